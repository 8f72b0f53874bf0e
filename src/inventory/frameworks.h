/*
 * frameworks.h - the frameworks layer's part of the inventory: each
 * TensorFlow, PyTorch, JAX and CuPy install found, what it was built for,
 * and which file the loader gives each library it loads, as facts.
 *
 * probe_frameworks() and probe_frameworks_live() (probes/frameworks/
 * frameworks.h) fill it; the verdict is the rules' (rules/fw_verdict.h).
 * fw_kind_id() and fw_role_id() are the one JSON name of each enum.
 *
 *	for (size_t i = 0; i < inv->fw.n; i++)
 *		use(fw_kind_id(inv->fw.fws[i].kind), inv->fw.fws[i].libs);
 */
#ifndef GD_INVENTORY_FRAMEWORKS_H
#define GD_INVENTORY_FRAMEWORKS_H

#include <stddef.h>

#include "loader/ldso.h"

/* Which framework an entry is; fw_kind_id() is its one JSON name ("name"). */
enum fw_kind { FW_TENSORFLOW, FW_TORCH, FW_JAX, FW_CUPY };

/* "tensorflow", "torch", "jax", "cupy": the JSON vocabulary and the id part of findings. */
const char *fw_kind_id(enum fw_kind k);

/*
 * What a library is to the framework; fw_role_id() is its one JSON name
 * ("role"), which is also the library's key in the knowledge base's soname
 * table (kb_soname: "cudart", "cublasLt" ...).  Rules compare the enum.
 */
enum fw_role {
	FW_ROLE_NEEDED,		/* "needed": another DT_NEEDED library */
	FW_ROLE_DRIVER,		/* "driver": libcuda.so.1 */
	FW_ROLE_CUDART,		/* "cudart" */
	FW_ROLE_CUBLAS,		/* "cublas" */
	FW_ROLE_CUBLASLT,	/* "cublasLt" */
	FW_ROLE_CUFFT,		/* "cufft" */
	FW_ROLE_CUSOLVER,	/* "cusolver" */
	FW_ROLE_CUSPARSE,	/* "cusparse" */
	FW_ROLE_CURAND,		/* "curand" */
	FW_ROLE_NVRTC,		/* "nvrtc" */
	FW_ROLE_CUDNN,		/* "cudnn": the library the framework loads (cuDNN 9: the shim) */
	FW_ROLE_CUDNN_SUB,	/* "cudnn-sub": a sub-library cuDNN 9's shim loads */
	FW_ROLE_NCCL,		/* "nccl" */
};
const char *fw_role_id(enum fw_role r);

/* One library a framework loads, and where the loader finds it. */
struct fw_lib {
	char *soname;		/* what is asked for: "libcudnn.so.9" */
	enum fw_role role;	/* fw_role_id(): "cudart", "cudnn", "cudnn-sub", "driver", "needed" ... */
	int required;		/* its absence changes the outcome */
	int dlopened;		/* 1 dlopen at run time, 0 DT_NEEDED */
	char *requester;	/* the object whose search path applies */
	char *path;		/* machine path of the winner, NULL when not found */
	char *realpath;
	const char *source;	/* ldso_source_id(via), or "cuda-pathfinder"...; NULL not found */
	enum ldso_source via;	/* how the loader found it; LDSO_NONE when it was not the loader */
	char *from;		/* the object whose RPATH/RUNPATH found it */
	char *version;		/* from the real file name or the owning wheel, or NULL */
	char *wheel;		/* "nvidia-cudnn-cu12 9.1.0.70" when it comes from a wheel */
	char *missing_dep;	/* a DT_NEEDED of it that cannot be found, or NULL */
	char *unreached;	/* not found, but this site's nvidia wheel has it here */
	char *shadowed;		/* the copy the framework meant (its own dir), when another won */
	char *shadowed_version;
};

/* What the framework itself did when asked (--live). */
struct fw_live {
	int ran;		/* the interpreter was run */
	char *outcome;		/* "ok", "exited 1", "timed out after 30 s" ... */
	int import_ok;		/* 1/0, -1 unknown */
	int gpus;		/* devices the framework sees, -1 unknown */
	int matmul_ok;		/* 1/0, -1 not tried */
	char *cuda;		/* the CUDA it reports */
	char *cudnn;		/* cuDNN it reports ("91900" for torch) */
	char *archs;		/* torch.cuda.get_arch_list() */
	char *device;		/* name of device 0 */
	char *error;		/* the exception, one line */
	char **missing;		/* sonames the framework said it could not load */
	size_t nmissing, missing_cap;
	char **noise;		/* stderr lines known to be harmless (noise.tsv) */
	size_t nnoise, noise_cap;
	char *stderr_tail;	/* last lines of stderr, for evidence */
	double seconds;
};

struct fw_entry {
	/* where */
	size_t env;		/* index into inv->pyenvs */
	char *env_prefix;
	const char *env_kind;
	char *python;		/* the environment's interpreter, or NULL */
	char *python_version;	/* "3.11" or NULL */
	char *site_dir;
	/* what */
	enum fw_kind kind;
	const char *name;	/* fw_kind_id(kind) */
	char *dist;		/* the distribution: "tensorflow-cpu", "jaxlib", "cupy-cuda12x" */
	char *version;		/* "2.15.0", "2.11.0+cu130" */
	char *flavour;		/* "cuda", "cpu", "rocm", "stub", "nightly", "intel", "macos", NULL */
	char *local_tag;	/* "cu126", "cpu", NULL */
	char *plugin;		/* JAX: "jax-cuda12-plugin 0.7.2", NULL */
	int is_cuda_build;	/* 1/0, -1 unknown */
	char *cuda_build;	/* "12.2", "13.0" */
	int cuda_version;	/* 12020 style, -1 unknown */
	int cuda_major;		/* -1 unknown */
	char *cudnn_build;	/* "9" (TF build_info), "9.10.2.21" (wheel pin) */
	char *cudnn_required;	/* the minimum runtime: "8.9" (TF table), "9.8" (JAX), NULL */
	const char *cudnn_required_source;	/* "TF tested configurations", "Requires-Dist pin" */
	int cudnn_major;	/* -1 unknown */
	char **archs;		/* "sm_80", "compute_90": what it is built for (sorted by number) */
	size_t narchs;
	size_t *arch_entries;	/* fatbin entries per archs[i], NULL when not from a fatbin */
	char **archs_partial;	/* in the fatbin for a few kernels only (fatbin.h's rule) */
	size_t narchs_partial;
	size_t *arch_partial_entries;
	const char *archs_source;	/* "build_info.py", "fatbin of libtorch_cuda.so" */
	char *archs_from;	/* the file */
	char *build_file;	/* build_info.py / version.py read */
	char *main_lib;		/* the requester library (libtensorflow_framework.so.2 ...) */
	char *main_rpath, *main_runpath;
	struct fw_lib *libs;
	size_t nlibs, libs_cap;
	char **wheels;		/* nvidia-* wheels in this site dir: "nvidia-cudnn-cu12 9.1.0.70" */
	size_t nwheels, wheels_cap;
	char *other_cudart;	/* when its libcudart is missing: another major's that the loader finds, "libcudart.so.13 -> /usr/..." */
	char *python_range;	/* "3.9-3.11" supported by the release, or NULL */
	/*
	 * Facts the verdict rests on (the verdict itself is the rules':
	 * rules/fw_verdict.h).  needed_fatal: a required library that is a
	 * DT_NEEDED of the framework fails its import (torch, CuPy), where TF
	 * and JAX dlopen() and fall back to the CPU.
	 */
	int needed_fatal;
	char *stub_why;		/* the package installs no framework (an empty stub): why */
	char *load_note;	/* how it finds its libraries, when that is unusual, or NULL */
	char *error;		/* facts that could not be read, or NULL */
	struct fw_live live;
};

struct frameworks_inventory {
	int probed;		/* the static probe ran */
	size_t nenvs;		/* environments looked at */
	size_t nsites;		/* site directories looked at */
	struct fw_entry *fws;
	size_t n, cap;
	double seconds;		/* the static probe's time */
	char *error;
	int live_ran;		/* probe_frameworks_live ran */
	/* site directories this user cannot list: their frameworks are
	 * unknown, never "not installed" */
	struct fw_unreadable_site {
		char *dir;		/* machine path */
		char *why;
	} *unreadable;
	size_t nunreadable, unreadable_cap;
};

void frameworks_inventory_init(struct frameworks_inventory *p);
void frameworks_inventory_release(struct frameworks_inventory *p);

struct libraries_inventory;
/*
 * One reading per fact: a library's version is the libraries layer's (its
 * file name, version.json, dist-info, cudnn_version.h: libraries.h), which
 * the frameworks scan, running beside it, could not see.  Called once both
 * scans are done: each framework library (and the copy a cuDNN
 * sub-library shadows) takes the version of the same file in the
 * libraries inventory when that one is known.
 */
void frameworks_adopt_library_versions(struct frameworks_inventory *fw, const struct libraries_inventory *libs);

#endif
