/*
 * libraries.h - the libraries layer's part of the inventory: every copy of
 * the CUDA user libraries on the machine, which one the loader would pick,
 * the toolkits, nvcc, and the libraries' own answers (live), as facts.
 *
 * probe_libraries() and probe_libraries_live() (probes/libraries/
 * libraries.h) fill it; rules and renderers read it through struct inventory
 * (inventory/inventory.h) and look copies up with the helpers below.
 * Unknown is NULL / -1.  libraries_inventory_release() also cancels version
 * children nobody finished, so it lives with the probe.
 *
 *	const struct lib_resolved *r = libraries_resolved(&inv->libs, "libcudart.so.13");
 *	const struct lib_copy *c = r ? libraries_copy_by_realpath(&inv->libs, r->realpath) : NULL;
 */
#ifndef GD_INVENTORY_LIBRARIES_H
#define GD_INVENTORY_LIBRARIES_H

#include <stddef.h>

#include "loader/elf.h"
#include "loader/ldso.h"
#include "python/condameta.h"


/* One file (one real path) holding a library of interest. */
struct lib_copy {
	const char *family;	/* "cudart", "cublasLt", "cudnn_graph" ... (static) */
	char *path;		/* machine path as found: dir + name (soname-named link preferred) */
	char *dir;		/* machine dir it was found in */
	char *realpath;		/* symlinks resolved (inside root) */
	char *soname;		/* DT_SONAME, or the file name when it has none / is unreadable */
	int soname_from_elf;	/* 1 when soname is the ELF's DT_SONAME */
	char *version;		/* "13.0.96", NULL unknown */
	const char *version_source;	/* "file-name", "version.json", "version.txt",
					   "cudnn_version.h", "dist-info", "library-call" */
	const char *origin;	/* "ld-library-path", "system", "toolkit", "conda", "wheel", "opt", "cache" */
	char *owner;		/* "nvidia-cudnn-cu13 9.19.0.56", "toolkit /usr/local/cuda-13.0", "system" */
	char *conda_spec;	/* origin "conda": the package that installed it, as conda names
				   it, "conda-forge::cudnn=8.9.7.29" (conda-meta); NULL unknown */
	int in_active;		/* in the active Python env, or the toolkit /usr/local/cuda points to */
	long long size_bytes;	/* -1 unknown */
	/* What elf_open said; problem NULL when the file is a valid shared object. */
	enum elf_problem elf_problem;	/* ELF_OK, or what elf_open found wrong */
	char *problem;
	int readable;		/* by the user running gpudoctor: 1, 0, -1 unknown */
	int root_only;		/* readable, but only by root (no "other" read bit, root-owned) */
	size_t bytes_touched;	/* bytes elf_open looked at (verbose evidence) */
	char **needed;		/* DT_NEEDED */
	size_t nneeded;
	char *runpath, *rpath;
	/* The loader's view. */
	int winner;		/* the loader picks this copy for its soname (no requester) */
	const char *reachable_as;	/* "ld-library-path", "cache", "default", NULL: never searched */
	char **missing_deps;	/* NEEDED entries the loader cannot find */
	size_t nmissing_deps;
	int deps_checked_exact;	/* 1: resolved with the real environment (winners); 0: with
				   the copy's own directory added to LD_LIBRARY_PATH */
};

/* The loader's answer for one soname requested by a program without RPATH. */
struct lib_resolved {
	char *soname;
	const char *family;
	char *path;		/* winner, NULL when not found */
	char *realpath;
	const char *source;	/* ldso_source_id(via): the JSON vocabulary */
	enum ldso_source via;	/* how the loader found it, for the rules */
	char *from;
	char **passed_over;	/* "PATH: why" of rejected candidates */
	size_t npassed_over;
};

/* A cuDNN 9 sub-library as the winning shim would load it. */
struct lib_cudnn_sub {
	char *shim;		/* the shim's path */
	char *shim_version;
	const char *sub;	/* "graph", "ops" ... */
	char *soname;		/* libcudnn_graph.so.9 */
	char *path;		/* what would load, NULL when nothing */
	char *version;		/* its version, NULL unknown */
	const char *source;	/* how the loader found it: ldso_source_id(via) */
	enum ldso_source via;
};

/* A CUDA toolkit directory: /usr/local/cuda-X.Y or what /usr/local/cuda is. */
struct lib_toolkit {
	char *path;		/* machine path as listed (/usr/local/cuda-13.0) */
	char *realpath;
	char *version;		/* "13.0.2", NULL unknown */
	const char *version_source;	/* "version.json", "version.txt", "dist-info", "dir-name" */
};

/* One run of the libversion child. */
struct lib_live {
	char *path;
	const char *kind;	/* "cudart", "cudnn", "nccl", "cublas" */
	int ok;			/* the child answered */
	char *version;		/* decoded "13.0", "9.19.0", "2.28.9" */
	char *raw;		/* the raw number */
	char *cudart_version;	/* cuDNN's cudnnGetCudartVersion, decoded */
	char *static_version;	/* what the static probe said, for the comparison */
	char *error;		/* the child's dlopen/dlsym error, or its outcome */
	int crashed;		/* signal or timeout */
	double seconds;
};

struct libraries_inventory {
	int probed;		/* the static probe ran */
	double seconds;		/* static probe wall time */
	char *ld_library_path;	/* the value in force (NULL unset) */
	struct lib_copy *copies;
	size_t n, cap;
	struct lib_resolved *resolved;
	size_t nresolved, resolved_cap;
	struct lib_cudnn_sub *cudnn_subs;
	size_t ncudnn_subs, cudnn_subs_cap;
	struct lib_toolkit *toolkits;
	size_t ntoolkits, toolkits_cap;
	/* /usr/local/cuda */
	int cuda_link;		/* -1 absent, 0 a plain directory, 1 a link that resolves, 2 dangling */
	char *cuda_link_target;	/* the raw link text */
	char *cuda_link_resolved;	/* machine path it resolves to */
	char *cuda_link_version;
	/* the first nvcc on PATH (inside root); never executed */
	char *nvcc_path;
	char *nvcc_wrapper;	/* the script nvcc_path is, when it execs another nvcc */
	char *nvcc_toolkit;	/* resolved toolkit dir of that nvcc */
	char *nvcc_version;
	/* cudnn_version.h of the toolkit /usr/local/cuda or /usr/include */
	char *cudnn_header;
	char *cudnn_header_version;
	char *nccl_header;	/* nccl.h of /usr/local/cuda/include or /usr/include, NULL none */
	/* the loader emulation */
	char *ldso_error;	/* ldso_init failed: why */
	char *cache_error;	/* ld.so.cache missing/unreadable */
	int cache_stale;
	char *cache_stale_reason;	/* why the cache is stale, from the loader emulation */
	struct ldso_preload *preloads;	/* LD_PRELOAD then /etc/ld.so.preload, in load order */
	size_t npreloads;
	/* library directories that exist but this user cannot list (mode 0700
	 * lib64): their libraries are unknown, never "missing" */
	struct lib_unreadable_dir {
		char *dir;		/* machine path */
		char *why;		/* "Permission denied" */
		int active;		/* in the toolkit /usr/local/cuda names */
	} *unreadable;
	size_t nunreadable, unreadable_cap;
	/* the CUDA packages of each conda environment looked at (python/condameta.h) */
	struct conda_env *conda;
	size_t nconda, conda_cap;
	char **notes;		/* what was skipped or bounded, for verbose output */
	size_t nnotes, notes_cap;
	/* live */
	struct lib_live *live;
	size_t nlive, live_cap;
	int live_ran;
};

void libraries_inventory_init(struct libraries_inventory *p);
void libraries_inventory_release(struct libraries_inventory *p);

/* Helpers for other layers (frameworks): look copies up. */
/* The copy whose real path is realpath, or NULL. */
const struct lib_copy *libraries_copy_by_realpath(const struct libraries_inventory *p,
						  const char *realpath);
/* The loader's winner for soname with no requester, or NULL when not found / not asked. */
const struct lib_resolved *libraries_resolved(const struct libraries_inventory *p,
					      const char *soname);
/* The newest copy of soname on the machine (by version), or NULL. */
const struct lib_copy *libraries_newest(const struct libraries_inventory *p, const char *soname);

#endif
