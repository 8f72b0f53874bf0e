/*
 * bench_gpu.h - measuring one GPU (child side of `gpudoctor __probe bench gpu`).
 *
 * Loads libcuda.so.1 and cuBLAS, takes the device's primary context (the
 * one cuBLAS's runtime shares), checks that the GPU's memory is free,
 * measures copies and GEMMs on one non-blocking stream with CUDA events,
 * and writes key=value lines (docs/bench-schema.md lists them).  Every
 * allocation is freed on every path, including running out of memory part
 * way, which is reported as refuse=out-of-memory.
 *
 *	struct bench_gpu_opts o = { .index = 0, .root = "/" };
 *	int rc = bench_gpu_measure(&o);	// prints kv lines, not "end"
 */
#ifndef GD_BENCH_GPU_H
#define GD_BENCH_GPU_H

struct bench_gpu_opts {
	int index;			/* CUDA ordinal */
	int quick;
	const char *root;		/* for reading the PCIe link under load */
	const char *const *cublas;	/* candidates tried after the sonames, NULL-terminated */
	const char *libcuda;		/* NULL: "libcuda.so.1" */
};

/* 0 when the child ran to its end (results or a refusal were written). */
int bench_gpu_measure(const struct bench_gpu_opts *o);

#endif
