/*
 * bench_parse.h - the parent's reading of the bench child's key=value lines
 * (docs/bench-schema.md lists them) into the model of bench.h.
 *
 *	bench_parse_gpu(&r.kv, g);	// g from bench_run_add_gpu
 *	bench_parse_cpu(&r.kv, &run.cpu);
 */
#ifndef GD_BENCH_PARSE_H
#define GD_BENCH_PARSE_H

#include "bench/bench.h"
#include "core/kv.h"

void bench_parse_gpu(const struct kvlist *kv, struct bench_gpu *g);
void bench_parse_cpu(const struct kvlist *kv, struct bench_cpu *c);
/* The cuDNN child's "conv.*" lines. */
void bench_parse_conv(const struct kvlist *kv, struct bench_conv *c);
/* The NCCL child's "nccl.*" lines and its stderr (NCCL's INFO log):
 * algbw and busbw from sizes and times, the topology NCCL chose, and the
 * ceiling from the NVLinks NVML reported. */
void bench_parse_nccl(const struct kvlist *kv, const char *log, size_t loglen, struct bench_nccl *n);

#endif
