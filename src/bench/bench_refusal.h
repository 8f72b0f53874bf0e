/*
 * bench_refusal.h - why a bench child stopped measuring: the first cause and
 * its message, kept for the key=value lines the child ends with.
 *
 * The GEMM/copy, convolution and NCCL children each hold one; the cause is a
 * catalogue enum, so a child can only name a catalogue id (the parent maps
 * the id back, bench_parse.c).  The first refusal wins: later calls keep it.
 *
 *	struct bench_refusal r = { 0 };
 *	return bench_refuse(&r, CAUSE_GPU_COMPUTE_FAILED, "%s failed", what);	// -1
 *	if (r.cause[0]) kv_emit("refuse", "%s", r.cause);
 */
#ifndef GD_BENCH_REFUSAL_H
#define GD_BENCH_REFUSAL_H

#include "knowledge/causes.h"

struct bench_refusal {
	char cause[48];		/* catalogue id; "" while measuring goes on */
	char msg[512];
};

/* Records the refusal unless one is recorded already; always returns -1. */
int bench_refuse(struct bench_refusal *r, enum cause_id cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
