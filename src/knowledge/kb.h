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

/* A yes/no/unknown answer with the reason and the source it rests on. */
struct kb_verdict {
	int ok;			/* 1 yes, 0 no, -1 unknown */
	char why[512];
	const char *source;	/* source id, or NULL */
};

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
};
/* "2.15", "2.15.0" or "2.15.1" all find the 2.15 row. */
const struct kb_tf *kb_tf_release(const struct kb *kb, const char *version);

#endif
