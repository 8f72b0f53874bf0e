/*
 * bench_deep.h - `gpudoctor check --deep`: the short form of bench's cuDNN
 * and NCCL runs, turning "cuDNN 9.x is installed" into "cuDNN computes
 * correctly on this GPU".
 *
 * The probe (bench_deep_probe.c) runs, in isolated children with a short
 * deadline, one small FP32 convolution on each GPU (bench_conv_gpu.h smoke
 * mode: 2x64x16x16, 3x3, every output checked) and, with two GPUs or more,
 * one 1 MiB all-reduce whose sums are checked.  bench's one judge
 * (bench_judge.h, bench_judge_deep()) turns what they said into findings of
 * the libraries layer, as it does for bench's full runs:
 * cudnn-not-initialized, cudnn-no-kernel-for-arch, cudnn-wrong-result,
 * cudnn-hang, cudnn-call-failed, nccl-call-failed, nccl-hang.
 *
 *	struct bench_deep d;
 *	bench_deep_init(&d);
 *	bench_deep_paths(ctx, inv, &d);
 *	bench_deep_probe(ctx, &d);
 *	bench_judge_deep(&d, rep);		// bench_judge.h
 *	bench_deep_release(&d);
 */
#ifndef GD_BENCH_DEEP_H
#define GD_BENCH_DEEP_H

#include "bench/bench.h"

struct gd_ctx;
struct inventory;
struct report;

/* A smoke child is a library load, a context and one small kernel: far
 * below this unless something hangs. */
#define BENCH_DEEP_TIMEOUT_S 20.0

struct bench_deep_gpu {
	int index;
	struct bench_conv conv;
	double smoke_ms;	/* the convolution itself, NAN */
	long long checked;	/* outputs compared, -1 */
	double child_s;		/* the whole child, NAN */
};

struct bench_deep {
	int ran;
	/* Machine paths (inside --root) of the libraries check found the
	 * loader picks; NULL: the children ask the loader themselves. */
	char *libcuda, *libnvml, *cudnn_path, *nccl_path;
	int gpus;			/* what CUDA saw, -1 */
	struct bench_deep_gpu *g;
	size_t n;
	struct bench_nccl nccl;
	double nccl_check_ms;		/* NAN */
	double nccl_child_s;		/* NAN */
};

void bench_deep_init(struct bench_deep *d);
void bench_deep_release(struct bench_deep *d);
/* The libraries the check's inventory says the loader picks, as host paths. */
void bench_deep_paths(const struct gd_ctx *ctx, const struct inventory *inv, struct bench_deep *d);
void bench_deep_probe(const struct gd_ctx *ctx, struct bench_deep *d);
/* All of it in turn: what check --deep calls. */
void bench_deep_check(const struct gd_ctx *ctx, const struct inventory *inv, struct report *rep);

#endif
