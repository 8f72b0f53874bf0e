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

#endif
