/*
 * bench_plan.h - how big and how often: sizes and repetitions of each
 * measurement, from the GPU's free memory and --quick.  Pure.
 *
 * Default (an H200 with its memory free): 256 MiB host<->device copies,
 * 1 GiB device-to-device copies, 8192^3 GEMMs in every precision; the
 * copies use at most an eighth of the free memory and the GEMMs' three
 * matrices at most a quarter, so smaller GPUs (and the test fakes) get
 * smaller sizes, down to 1 MiB copies and 256^3 GEMMs.
 */
#ifndef GD_BENCH_PLAN_H
#define GD_BENCH_PLAN_H

#include <stddef.h>

#include "bench/bench.h"

struct bench_step {
	size_t size;		/* bytes per copy, or the GEMM's n */
	int warmup;		/* untimed runs first */
	int inner;		/* operations per timed region */
	int reps;		/* timed regions; the median counts */
};

struct bench_plan {
	struct bench_step step[BENCH_NKINDS];
	size_t device_bytes;	/* largest device allocation set at one time */
	size_t pinned_bytes;	/* host staging buffer (copies and GEMM inputs) */
	size_t pageable_bytes;
	size_t workspace_bytes;	/* cuBLAS workspace: 32 MiB as PyTorch on Hopper, less on small GPUs */
};

/* 0, or -1 when free_bytes cannot hold even the smallest plan. */
int bench_plan_make(size_t free_bytes, int quick, struct bench_plan *p);

#endif
