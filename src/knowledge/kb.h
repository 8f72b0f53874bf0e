/*
 * kb.h - the knowledge base: version contracts as data with sources.
 *
 * The tables live in plain data files (src/knowledge/data/), embedded in the
 * binary at build time; kb_open(dir) loads newer ones at run time.  Every
 * answer carries the source id of the row it came from.  Callers never read
 * the data files themselves: they ask these functions.
 *
 *	struct kb *kb;
 *	if (kb_open(ctx->kb_dir, &kb, &e) < 0) ...
 *	const struct kb_gpu *g = kb_gpu_by_pci(kb, 0x10de, 0x2335);
 *	kb_close(kb);
 */
#ifndef GD_KB_H
#define GD_KB_H

#include <stddef.h>

#include "core/err.h"

struct kb;

/* dir NULL: the embedded tables. */
int kb_open(const char *dir, struct kb **out, struct err *e);
void kb_close(struct kb *kb);
/* For a privileged daemon (watch, health) given --kb DIR: 0 when DIR and
 * each table file in it could be written by no one but this user or root
 * (core/safefile.h); its tables decide severities and actions.  It opens
 * them as kb_open_trusted() does (a check before any work is started). */
int kb_check_trusted(const char *dir, struct err *e);
/* kb_open for such a daemon: the same checks, made on the descriptors the
 * tables are read from (no link followed), so nothing can be swapped in
 * between the check and the read.  Use it wherever --kb decides actions. */
int kb_open_trusted(const char *dir, struct kb **out, struct err *e);

/*
 * A yes/no/unknown answer with the reason and the source it rests on.
 * The rule functions below return v->ok (1, 0 or -1); v may be NULL.
 */
struct kb_verdict {
	int ok;			/* 1 yes, 0 no, -1 unknown */
	char why[1024];
	const char *source;	/* source id, or NULL */
	int via;		/* kb_arch_runs: KB_VIA_SASS or KB_VIA_PTX when ok; else 0 */
};
#define KB_VIA_SASS 1
#define KB_VIA_PTX 2
/* kb_driver_knows_gpu: ok -1 with via KB_VIA_UNLISTED: the driver does not
 * list the PCI id, but it supports the GPU's chip (another id of the chip
 * is listed by that driver or an older one), and the driver binds any
 * device of a supported chip: "not officially supported", not "refused".
 * The first-release rule stays: a driver older than every listed id of a
 * new chip does not know it (ok 0). */
#define KB_VIA_UNLISTED 3

/* GPUs, by PCI id.  Unknown numbers are negative (or NAN for doubles). */
struct kb_gpu {
	unsigned vendor, device;
	const char *name;	/* "NVIDIA H200" */
	const char *arch;	/* "Hopper" */
	int cc_major, cc_minor;	/* -1 unknown */
	double mem_gib;
	double bw_gbs;		/* peak memory bandwidth, GB/s */
	double fp32_tflops, fp16_tflops, bf16_tflops;	/* dense peak */
	int datacenter;		/* forward compatibility (cuda-compat) works: 1/0/-1 */
	const char *source;
	/* Added fields (after the original ones). */
	const char *chip;	/* "GH100", or NULL */
	const char *klass;	/* "datacenter", "geforce", "workstation", "jetson", or NULL */
	const char *specs_conf;	/* "U": mem/bw recalled, not verified; NULL: no specs */
	double mem_gb;		/* memory as marketed (GB); mem_gib holds the same number */
};
const struct kb_gpu *kb_gpu_by_pci(const struct kb *kb, unsigned vendor, unsigned device);

/* CUDA version a driver reports (1000*major + 10*minor), or -1 unknown. */
int kb_driver_cuda_version(const struct kb *kb, const char *driver_version);
/* Minimum Linux driver of a toolkit release (cuda as 12040 = 12.4 GA), or NULL. */
const char *kb_cuda_min_driver(const struct kb *kb, int cuda_version);
/*
 * Does driver D run a CUDA runtime R?  Toolkit floor, then the major's
 * minor-version-compatibility floor; forward compatibility only mentioned for
 * datacenter GPUs (datacenter_gpu 1/0/-1).
 */
int kb_driver_runs_cuda(const struct kb *kb, const char *driver_version, int cuda_version,
			int datacenter_gpu, struct kb_verdict *v);

/*
 * Does a binary carrying archs ("sm_90", "compute_80", "8.6", "8.6+PTX")
 * run on compute capability major.minor?  SASS sm_XY runs on X.Y..X.9 of the
 * same major; PTX compute_XY JIT-compiles for >= X.Y.
 */
int kb_arch_runs(const char *const *archs, size_t n, int cc_major, int cc_minor,
		 struct kb_verdict *v);

/* Does a cuDNN runtime "x.y.z" satisfy a build against "x.w"? */
int kb_cudnn_satisfies(const char *runtime, const char *built, struct kb_verdict *v);
/* Decode cudnnGetVersion(): major*1000 before 9, major*10000 from 9. */
void kb_cudnn_decode(long v, int *major, int *minor, int *patch);

/* The soname a framework built for CUDA major `cuda_major` dlopens for `lib`
 * ("cudart", "cublas", "cublasLt", "cufft", "cusolver", "cusparse", "curand",
 * "cudnn" -- cuDNN needs its own major: pass it as cuda_major), or NULL. */
const char *kb_soname(const struct kb *kb, int cuda_major, const char *lib);

/* TensorFlow tested build configurations. */
struct kb_tf {
	const char *version;	/* "2.15.0" */
	const char *python;	/* "3.9-3.11" */
	const char *compiler;
	const char *cudnn;	/* "8.9" */
	const char *cuda;	/* "12.2" */
	const char *source;
	/* Added fields. */
	const char *build_tool;	/* "Bazel 6.1.0" */
	const char *archs;	/* "sm_60,sm_70,...,compute_90", or NULL unknown */
	const char *archs_conf;	/* "V", "3P", or NULL */
	const char *install;	/* the pip command for a GPU build */
	int cuda_version;	/* 12020, or -1 */
	const char *pip_cudnn;	/* [and-cuda] cuDNN requirement: "==9.3.0.75", ">=9.3.0.75,<10", or NULL */
};
/* "2.15", "2.15.0" or "2.15.1" all find the 2.15 row. */
const struct kb_tf *kb_tf_release(const struct kb *kb, const char *version);

/* ---- Additions: whole tables, more lookups, and fit checks ---- */

/* Rows of a table, newest first as in the data file. */
size_t kb_tf_count(const struct kb *kb);
const struct kb_tf *kb_tf_at(const struct kb *kb, size_t i);

/* PyTorch: one row per (release, CUDA variant). */
struct kb_torch {
	const char *version;	/* "2.14" */
	const char *python;	/* "3.10-3.15" */
	const char *variant;	/* "cu126" */
	int cuda_version;	/* 12060 */
	const char *cudnn;	/* "9.10.2.21" */
	const char *archs;	/* "5.0;6.0;...;12.0+PTX", or NULL unknown */
	int is_default;		/* the plain PyPI wheel: 1/0/-1 unknown */
	int stable;		/* 1 stable, 0 experimental */
	const char *conf;	/* "V" or "3P" */
	const char *source;
};
size_t kb_torch_count(const struct kb *kb);
const struct kb_torch *kb_torch_at(const struct kb *kb, size_t i);
/* First row of release `version` ("2.7", "2.7.1"); variant NULL = the default or
 * first stable one, else "cu126". */
const struct kb_torch *kb_torch_release(const struct kb *kb, const char *version,
					const char *variant);
/* The pip command for a row (static buffer owned by the caller: out, size). */
void kb_torch_install(const struct kb_torch *t, char *out, size_t size);

/* JAX CUDA plugins, one row per (range of releases, plugin). */
struct kb_jax {
	const char *jax_from, *jax_to;	/* jax_to NULL: current */
	const char *plugin;		/* "cuda12", "cuda13" */
	int cuda_min;			/* 12010 */
	const char *cudnn_min;		/* "9.8" */
	const char *cudnn_max;		/* exclusive: "10" */
	const char *min_driver;		/* "525.60.13" */
	int min_cc_major, min_cc_minor;
	const char *archs;		/* or NULL */
	const char *install;		/* may contain VERSION */
	const char *source;
};
size_t kb_jax_count(const struct kb *kb);
const struct kb_jax *kb_jax_at(const struct kb *kb, size_t i);
/* The newest plugin row serving JAX `version` (NULL: the newest rows). */
const struct kb_jax *kb_jax_release(const struct kb *kb, const char *version, const char *plugin);

/* CUDA toolkit releases and their minimum drivers. */
struct kb_cuda_release {
	const char *toolkit;	/* "12.4" */
	const char *release;	/* "GA", "Update 1" */
	int cuda_version;	/* 12040 */
	const char *linux_min, *windows_min;	/* NULL unknown / not applicable */
	const char *conf;
	const char *source;
};
size_t kb_cuda_count(const struct kb *kb);
const struct kb_cuda_release *kb_cuda_at(const struct kb *kb, size_t i);
/* Minor-version-compatibility floor of a CUDA major (Linux), or NULL. */
const char *kb_cuda_compat_floor(const struct kb *kb, int cuda_major);
/* Newest CUDA toolkit (as 13020) whose own driver floor `driver` meets, or -1. */
int kb_cuda_newest_for_driver(const struct kb *kb, const char *driver_version);
/* Source id of the branch row a driver version belongs to, or NULL. */
const char *kb_driver_branch_source(const struct kb *kb, const char *driver_version);

/* Per SM version: toolkit and driver support range. */
struct kb_arch {
	int cc_major, cc_minor;
	const char *arch;	/* "Hopper" */
	int first_cuda;		/* 11080 */
	int last_cuda;		/* last supported: 12999 for "12" (any 12.x), -1 ongoing */
	int last_branch;	/* 580, -1 ongoing */
	const char *first_driver;	/* first driver of the architecture, or NULL (older than R384 / Jetson) */
	const char *conf;
	const char *source;
};
const struct kb_arch *kb_arch_info(const struct kb *kb, int cc_major, int cc_minor);

/* cuDNN release lines. */
struct kb_cudnn {
	const char *version;	/* "9.10" */
	int cuda_from, cuda_to;	/* 12000, 12090; -1 unknown */
	const char *linux_min, *windows_min;
	int cc_min, cc_max;	/* 10*major + minor (75 = 7.5); -1 unknown */
	const char *libs;	/* "7", "8", "9", "9+tir" */
	const char *source;
};
size_t kb_cudnn_count(const struct kb *kb);
const struct kb_cudnn *kb_cudnn_at(const struct kb *kb, size_t i);

/* GPUs: all rows, and lookups by name ("RTX 4090", "h100 pcie") or CC. */
size_t kb_gpu_count(const struct kb *kb);
const struct kb_gpu *kb_gpu_at(const struct kb *kb, size_t i);
/*
 * GPUs by name, in tiers; the first tier with a match wins:
 *   1. exact: the table's name, the same without a brand word ("GTX 1080" is
 *      "GeForce GTX 1080", never its Ti), or a name the driver prints;
 *   2. every word as a whole token ("A100" in "A100 SXM4 40GB");
 *   3. every word as a substring.
 * An exact match of an id the newest driver no longer lists (10de:2336
 * "H100", listed by two 525 releases) does not end the search: tier 2 is
 * looked at too.  kb_gpu_candidates() fills up to max candidates, best
 * first (still listed by the newest driver, then the main product over
 * variants, then the shorter name) and returns how many there are;
 * kb_gpu_by_name() is the first, or NULL.  A caller whose answer depends on
 * the candidate (their compute capabilities differ) lists them and asks.
 */
const struct kb_gpu *kb_gpu_by_name(const struct kb *kb, const char *name);
size_t kb_gpu_candidates(const struct kb *kb, const char *name, const struct kb_gpu **out, size_t max);
/* 1 when the newest driver read (gpu_drivers.tsv) still lists the id, or
 * the id was listed until its architecture's last branch (Pascal: R580);
 * 0 for an id NVIDIA stopped listing while the architecture went on. */
int kb_gpu_current(const struct kb *kb, const struct kb_gpu *g);
/* The newest driver that lists the id, NULL when the newest still does. */
const char *kb_gpu_last_driver(const struct kb *kb, unsigned device);

/* A single fact (facts.tsv), or NULL. */
const char *kb_fact(const struct kb *kb, const char *key);
/* URL of a source id (or of the first id of a ";" list that resolves), or NULL
 * ("-" in the data is NULL too). */
const char *kb_source_url(const struct kb *kb, const char *id);

/* "12.4" / "12.4.1" / "cu124" / "12040" -> 12040; -1 when not a CUDA version. */
int kb_parse_cuda(const char *s);

/* Which data is in use. */
struct kb_table_info {
	const char *name;	/* "gpus.tsv" */
	const char *origin;	/* "embedded" or the file read */
	const char *as_of;	/* or NULL */
	size_t rows;
};
size_t kb_table_count(const struct kb *kb);
/* The knowledge base's as-of date: the oldest "# as-of:" of its tables
 * ("2026-11-30"), the day up to which all of it was read from its sources;
 * NULL when a table has none.  Shown by --version, in every JSON document and
 * in the markdown report, so that an answer about a newer release can be
 * read as what it is. */
const char *kb_as_of(const struct kb *kb);
void kb_table_info(const struct kb *kb, size_t i, struct kb_table_info *out);

/*
 * Does a framework build run on this machine?  driver NULL: not judged;
 * cc_major < 0: not judged; datacenter_gpu 1/0/-1.  v->why holds the chain
 * of reasons ("needs CUDA 12.5 ...; driver 470.256.02 is older than ...").
 */
int kb_tf_fits(const struct kb *kb, const struct kb_tf *tf, const char *driver,
	       int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v);
int kb_torch_fits(const struct kb *kb, const struct kb_torch *t, const char *driver,
		  int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v);
int kb_jax_fits(const struct kb *kb, const struct kb_jax *j, const char *driver,
		int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v);

/* ---- The combination rules: what makes a "yes" (see kb_fit.c) ---- */

/*
 * Does driver D know (bind to) this GPU?  The first driver per PCI device id
 * (gpu_drivers.tsv, from the driver's supported-chips table), else the
 * architecture's first driver (archs.tsv); and the architecture's last
 * branch.  g NULL: judged by compute capability alone.
 */
int kb_driver_knows_gpu(const struct kb *kb, const char *driver, const struct kb_gpu *g,
			int cc_major, int cc_minor, struct kb_verdict *v);
/* The first driver that knows g (its own row, else its architecture's), or NULL. */
const char *kb_gpu_first_driver(const struct kb *kb, const struct kb_gpu *g);
/* The names the driver gives device `device` ("NVIDIA A10G|..."), or NULL. */
const char *kb_gpu_driver_names(const struct kb *kb, unsigned device);

/* PTX JIT: can driver D compile PTX that CUDA toolkit `ptx_cuda` produced?
 * It needs a driver at least as new as that toolkit's own minimum. */
int kb_ptx_jit_runs(const struct kb *kb, const char *driver, int ptx_cuda, struct kb_verdict *v);

/* A failure reported for a framework release on a class of GPU (failures.tsv). */
struct kb_failure {
	const char *framework;	/* "tensorflow", "torch", "jax" */
	const char *from, *to;
	int cc_min, cc_max;	/* 10*major + minor */
	const char *what;
	const char *source;
};
const struct kb_failure *kb_known_failure(const struct kb *kb, const char *framework,
					  const char *version, int cc_major, int cc_minor);

/* The cudnn.tsv line that judges cuDNN `version`: the newest at or below it
 * with known capabilities (its cc_min is the capability floor), or NULL. */
const struct kb_cudnn *kb_cudnn_line(const struct kb *kb, const char *version);
/* Does cuDNN `version` ("9.28.0.42") ship code for compute capability ma.mi?
 * From the newest cudnn.tsv line at or below it with known capabilities. */
int kb_cudnn_runs_on(const struct kb *kb, const char *version, int cc_major, int cc_minor,
		     struct kb_verdict *v);
/*
 * What pip installs for a requirement of `package` ("nvidia-cudnn-cu12"):
 * "==X" gives X; ">=A,<B" gives the newest version served (facts.tsv
 * pip.newest.PACKAGE, with its as-of date) when it is below B.  NULL unknown.
 */
const char *kb_pip_resolve(const struct kb *kb, const char *package, const char *requirement);
/* The newest served version of `package` that still runs on CC < 7.5, or NULL. */
const char *kb_pip_cudnn_pre_turing(const struct kb *kb, const char *package);

/*
 * Python versions as 100*major + minor (3.12 -> 312).  kb_python_range()
 * reads a release's Python column: "3.10-3.14", "3.11+" (hi 399), "3.12",
 * or a list whose last part counts ("3.7, 3.9-3.12").  0 or -1.
 */
int kb_python_range(const char *range, int *lo, int *hi);
/*
 * The newest python3.X package that the distribution release `repo`
 * ("debian12", "ubuntu2204", "rhel9": plan's repository names) ships with
 * lo <= X <= hi (facts.tsv python.packages.REPO, from the distribution's own
 * package index).  Returns the version (311) with its package name in pkg,
 * 0 when the release ships none in the range, -1 when the kb does not know
 * the release's packages.
 */
int kb_python_packaged(const struct kb *kb, const char *repo, int lo, int hi, char *pkg, unsigned long size);

/*
 * The newest release of a framework ("torch", "tensorflow", "jax", "cupy")
 * the knowledge base knows, or NULL.  kb_predates() is 1 when `version` (an
 * installed one, "2.16.0+cu130") is a newer release line than that: for
 * torch, TensorFlow and CuPy a newer major.minor, for JAX any newer version.
 * Such a framework is judged from its own files, with a note that the
 * knowledge base predates it.
 */
const char *kb_newest_release(const struct kb *kb, const char *framework);
int kb_predates(const struct kb *kb, const char *framework, const char *version);

/* Was JAX `version` released (facts.tsv jax.releases)?  1, 0, or -1 not recorded. */
int kb_jax_released(const struct kb *kb, const char *version);

/* The machine a fit is judged on.  Unknown parts are NULL / -1. */
struct kb_target {
	const char *driver;
	const struct kb_gpu *gpu;	/* NULL: by compute capability only */
	int cc_major, cc_minor;
	int datacenter;			/* 1/0/-1 */
};

/* A fit: the verdict and the install command that gives the working setup
 * (it pins cuDNN where the plain one would bring a cuDNN without code for
 * the GPU), with the cuDNN that command brings. */
struct kb_fit {
	struct kb_verdict v;
	char install[384];
	char cudnn[32];		/* "" unknown; "system" for TF <= 2.13 */
	const struct kb_failure *failure;
};
int kb_tf_fit(const struct kb *kb, const struct kb_tf *tf, const struct kb_target *t, struct kb_fit *f);
int kb_torch_fit(const struct kb *kb, const struct kb_torch *p, const struct kb_target *t, struct kb_fit *f);
/* CuPy: one wheel per CUDA major (cupy.tsv).  CuPy compiles its kernels at
 * run time, so the GPU needs only a CUDA major that supports it. */
struct kb_cupy {
	const char *cupy;	/* "14" */
	const char *package;	/* "cupy-cuda13x" */
	int cuda_from, cuda_to;	/* 13000, 13010 */
	const char *python;
	const char *install;
	const char *source;
};
size_t kb_cupy_count(const struct kb *kb);
const struct kb_cupy *kb_cupy_at(const struct kb *kb, size_t i);
int kb_cupy_fit(const struct kb *kb, const struct kb_cupy *c, const struct kb_target *t, struct kb_fit *f);

/* version: the JAX release (NULL: the newest release the row serves). */
int kb_jax_fit(const struct kb *kb, const struct kb_jax *j, const char *version, const struct kb_target *t,
	       struct kb_fit *f);

#endif
