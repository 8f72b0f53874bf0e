/*
 * bench_run.h - the parent side of `gpudoctor bench`: runs the isolated
 * children (one per GPU, one for the CPU baseline), reads each GPU's PCIe
 * link from sysfs and its datasheet figures from the knowledge base, and
 * judges the figures.  Prints nothing (the progress line is the child's).
 *
 *	struct bench_opts o = { .quick = 0, .gpu = -1 };
 *	struct bench_run run;
 *	bench_run_init(&run);
 *	bench_run_all(ctx, &o, &run);
 *	bench_render_text(&run, &out);
 *	bench_run_release(&run);
 */
#ifndef GD_BENCH_RUN_H
#define GD_BENCH_RUN_H

#include "bench/bench.h"

struct gd_ctx;

struct bench_opts {
	int quick;
	int gpu;			/* -1: all */
	int no_cpu;
	const char **cublas;		/* --cublas PATH (repeatable) */
	size_t ncublas;
	const char **cudnn;		/* --cudnn PATH (repeatable) */
	size_t ncudnn;
	const char **nccl;		/* --nccl PATH (repeatable) */
	size_t nnccl;
	int no_conv;			/* skip the cuDNN child */
	const char *conv_shape;		/* --conv-shape, or NULL: the ResNet layer */
	int no_nccl;			/* skip the NCCL child */
	int progress_fd;		/* -1: no progress line */
};

void bench_run_all(const struct gd_ctx *ctx, const struct bench_opts *o, struct bench_run *run);

/* "--cublas PATH" pairs for a GPU child (bench's, burn's): the paths given,
 * then the toolkit's and the Python wheels' cuBLAS on the live machine.
 * NULL-terminated; free with bench_argv_free. */
char **bench_cublas_argv(const struct gd_ctx *ctx, const char **given, size_t ngiven);
void bench_argv_free(char **argv);

/* Child deadline: --timeout, but never less than a full run needs. */
double bench_child_timeout(const struct gd_ctx *ctx, int quick);

#endif
