/* bench_deep_probe.c - the children of check --deep; see bench_deep.h. */
#include "bench/bench_deep.h"
#include "bench/bench_judge.h"
#include "bench/bench_parse.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "inventory/inventory.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_deep_init(struct bench_deep *d)
{
	memset(d, 0, sizeof(*d));
	d->gpus = -1;
	bench_nccl_init(&d->nccl);
	d->nccl_check_ms = d->nccl_child_s = NAN;
}

void bench_deep_release(struct bench_deep *d)
{
	free(d->libcuda);
	free(d->libnvml);
	free(d->cudnn_path);
	free(d->nccl_path);
	for (size_t i = 0; i < d->n; i++)
		bench_gpu_release_conv(&d->g[i].conv);
	free(d->g);
	bench_nccl_release(&d->nccl);
	bench_deep_init(d);
}

static char *deep_host(const struct gd_ctx *ctx, const char *machine_path)
{
	struct buf b = BUF_INIT;
	char *s;

	if (!machine_path)
		return NULL;
	fs_path(ctx->root, machine_path, &b);
	s = xstrdup(b.s);
	buf_release(&b);
	return s;
}

static char *deep_winner(const struct gd_ctx *ctx, const struct inventory *inv, const char *family)
{
	for (size_t i = 0; i < inv->libs.n; i++) {
		const struct lib_copy *c = &inv->libs.copies[i];

		if (c->winner && c->family && !strcmp(c->family, family))
			return deep_host(ctx, c->realpath ? c->realpath : c->path);
	}
	return NULL;
}

void bench_deep_paths(const struct gd_ctx *ctx, const struct inventory *inv, struct bench_deep *d)
{
	const struct driver_lib *cu = &inv->driver.cuda, *nv = &inv->driver.nvml;

	d->libcuda = deep_host(ctx, cu->realpath ? cu->realpath : cu->path);
	d->libnvml = deep_host(ctx, nv->realpath ? nv->realpath : nv->path);
	d->cudnn_path = deep_winner(ctx, inv, "cudnn");
	d->nccl_path = deep_winner(ctx, inv, "nccl");
}

static double deep_timeout(const struct gd_ctx *ctx)
{
	/* --timeout may shorten it (a test of the hang path), never lengthen
	 * it past what "well under a second" of work needs. */
	return ctx->timeout > 0 && ctx->timeout < BENCH_DEEP_TIMEOUT_S ? ctx->timeout : BENCH_DEEP_TIMEOUT_S;
}

static void deep_conv(const struct gd_ctx *ctx, struct bench_deep *d, int index)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	struct bench_deep_gpu *g;
	char idx[16];
	const char *argv[12] = { ctx->self_exe, "__probe", "bench", "conv", idx, "--smoke" };
	size_t n = 6;

	snprintf(idx, sizeof(idx), "%d", index);
	if (d->libcuda) {
		argv[n++] = "--libcuda";
		argv[n++] = d->libcuda;
	}
	if (d->cudnn_path) {
		argv[n++] = "--cudnn";
		argv[n++] = d->cudnn_path;
	}
	argv[n] = NULL;
	d->g = xrealloc(d->g, (d->n + 1) * sizeof(*d->g));
	g = &d->g[d->n++];
	memset(g, 0, sizeof(*g));
	bench_gpu_init_conv(&g->conv);
	g->index = index;
	g->smoke_ms = g->child_s = NAN;
	g->checked = -1;
	g->conv.ran = 1;
	if (child_run_argv(argv, NULL, deep_timeout(ctx), &r, &e) < 0) {
		g->conv.refused = CAUSE_CUDNN_CALL_FAILED;
		g->conv.refused_msg = xasprintf("cannot start the cuDNN child: %s", e.msg);
		child_result_release(&r);
		return;
	}
	bench_parse_conv(&r.kv, &g->conv);
	g->child_s = r.seconds;
	g->smoke_ms = kv_get_double(&r.kv, "conv.smoke_ms", NAN);
	g->checked = kv_get_ll(&r.kv, "conv.fwd.fp32.checked", -1);
	if (index == 0)
		d->gpus = (int)kv_get_ll(&r.kv, "conv.gpus", -1);
	if (r.outcome != CHILD_OK)
		bench_child_death(&r, "cuDNN", CAUSE_CUDNN_HANG, CAUSE_CUDNN_CALL_FAILED, &g->conv.refused, &g->conv.refused_msg);
	child_result_release(&r);
}

static void deep_nccl(const struct gd_ctx *ctx, struct bench_deep *d)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[12] = { ctx->self_exe, "__probe", "bench", "nccl", "--smoke" };
	size_t n = 5;

	if (d->libcuda) {
		argv[n++] = "--libcuda";
		argv[n++] = d->libcuda;
	}
	if (d->libnvml) {
		argv[n++] = "--libnvml";
		argv[n++] = d->libnvml;
	}
	if (d->nccl_path) {
		argv[n++] = "--nccl";
		argv[n++] = d->nccl_path;
	}
	argv[n] = NULL;
	d->nccl.ran = 1;
	if (child_run_argv(argv, NULL, deep_timeout(ctx), &r, &e) < 0) {
		d->nccl.refused = CAUSE_NCCL_CALL_FAILED;
		d->nccl.refused_msg = xasprintf("cannot start the NCCL child: %s", e.msg);
		child_result_release(&r);
		return;
	}
	bench_parse_nccl(&r.kv, r.err.s, r.err.len, &d->nccl);
	d->nccl_child_s = r.seconds;
	d->nccl_check_ms = kv_get_double(&r.kv, "nccl.check_ms", NAN);
	if (r.outcome != CHILD_OK)
		bench_child_death(&r, "NCCL", CAUSE_NCCL_HANG, CAUSE_NCCL_CALL_FAILED, &d->nccl.refused, &d->nccl.refused_msg);
	child_result_release(&r);
}

void bench_deep_probe(const struct gd_ctx *ctx, struct bench_deep *d)
{
	if (ctx->no_load)
		return;
	d->ran = 1;
	deep_conv(ctx, d, 0);
	for (int i = 1; i < d->gpus && i < 64; i++)
		deep_conv(ctx, d, i);
	if (d->gpus >= 2)
		deep_nccl(ctx, d);
}

void bench_deep_check(const struct gd_ctx *ctx, const struct inventory *inv, struct report *rep)
{
	struct bench_deep d;

	bench_deep_init(&d);
	bench_deep_paths(ctx, inv, &d);
	bench_deep_probe(ctx, &d);
	bench_judge_deep(&d, rep);
	bench_deep_release(&d);
}
