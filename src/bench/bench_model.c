/* bench_model.c - the bench run model: kinds, init/release, findings; see bench.h. */
#include "bench/bench.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct bench_kind_info kinds[BENCH_NKINDS] = {
	[BENCH_H2D_PINNED] = { "h2d_pinned", "host to device, pinned", "GB/s", 1, 0 },
	[BENCH_D2H_PINNED] = { "d2h_pinned", "device to host, pinned", "GB/s", 1, 0 },
	[BENCH_H2D_PAGEABLE] = { "h2d_pageable", "host to device, pageable", "GB/s", 1, 0 },
	[BENCH_D2H_PAGEABLE] = { "d2h_pageable", "device to host, pageable", "GB/s", 1, 0 },
	[BENCH_D2D] = { "d2d", "device to device (read+write)", "GB/s", 1, 0 },
	[BENCH_GEMM_FP32] = { "gemm_fp32", "GEMM FP32", "TFLOP/s", 0, 1 },
	[BENCH_GEMM_TF32] = { "gemm_tf32", "GEMM TF32", "TFLOP/s", 0, 1 },
	[BENCH_GEMM_FP16] = { "gemm_fp16", "GEMM FP16", "TFLOP/s", 0, 1 },
	[BENCH_GEMM_BF16] = { "gemm_bf16", "GEMM BF16", "TFLOP/s", 0, 1 },
};

const struct bench_kind_info *bench_kind_info(enum bench_kind k)
{
	return (unsigned)k < BENCH_NKINDS ? &kinds[k] : NULL;
}

int bench_kind_from_name(const char *name)
{
	for (int k = 0; k < BENCH_NKINDS; k++)
		if (name && !strcmp(kinds[k].name, name))
			return k;
	return -1;
}

static void bench_result_init(struct bench_result *r)
{
	memset(r, 0, sizeof(*r));
	r->value = r->ceiling = r->percent = r->max_err = NAN;
	r->size = -1;
	r->verified = -1;
}

static void bench_result_release(struct bench_result *r)
{
	free(r->ceiling_source);
	free(r->method);
	free(r->error);
	bench_result_init(r);
}

void bench_gpu_init(struct bench_gpu *g, int index)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	g->cc_major = g->cc_minor = g->sms = -1;
	g->clock_mhz = g->mem_clock_mhz = NAN;
	g->mem_total = g->mem_free = -1;
	g->cublas_version = -1;
	g->link = (struct bench_link){ NAN, NAN, -1, -1, NAN, -1, NAN, -1 };
	g->pcie_gbs = g->pcie_cur_gbs = NAN;
	g->mem_gbs = g->fp32_tflops = g->tf32_tflops = g->fp16_tflops = g->bf16_tflops = NAN;
	g->seconds = NAN;
	for (int k = 0; k < BENCH_NKINDS; k++)
		bench_result_init(&g->results[k]);
}

void bench_gpu_release(struct bench_gpu *g)
{
	free(g->name);
	free(g->pci);
	free(g->cublas);
	free(g->refused);
	free(g->refused_msg);
	free(g->pcie_label);
	free(g->kb_source);
	for (int k = 0; k < BENCH_NKINDS; k++)
		bench_result_release(&g->results[k]);
	for (size_t i = 0; i < g->nfindings; i++) {
		free(g->findings[i].title);
		free(g->findings[i].evidence);
		free(g->findings[i].fix);
	}
	free(g->findings);
	bench_gpu_init(g, -1);
}

void bench_cpu_init(struct bench_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->threads = -1;
	c->n = -1;
	c->gflops = NAN;
	c->verified = -1;
	c->speedup = NAN;
}

void bench_cpu_release(struct bench_cpu *c)
{
	free(c->impl);
	free(c->library);
	free(c->error);
	free(c->method);
	bench_cpu_init(c);
}

void bench_run_init(struct bench_run *r)
{
	memset(r, 0, sizeof(*r));
	bench_cpu_init(&r->cpu);
	r->seconds = NAN;
}

void bench_run_release(struct bench_run *r)
{
	for (size_t i = 0; i < r->ngpus; i++)
		bench_gpu_release(&r->gpus[i]);
	free(r->gpus);
	bench_cpu_release(&r->cpu);
	free(r->refused);
	free(r->refused_msg);
	bench_run_init(r);
}

struct bench_gpu *bench_run_add_gpu(struct bench_run *r, int index)
{
	XGROW(r->gpus, r->ngpus, r->gpus_cap);
	bench_gpu_init(&r->gpus[r->ngpus], index);
	return &r->gpus[r->ngpus++];
}

struct bench_finding *bench_gpu_add_finding(struct bench_gpu *g, enum bench_severity sev,
					    enum cause_id cause, const char *result,
					    const char *title, const char *evidence,
					    const char *fix)
{
	struct bench_finding *f;

	XGROW(g->findings, g->nfindings, g->findings_cap);
	f = &g->findings[g->nfindings++];
	f->severity = sev;
	f->cause = cause;
	f->result = result;
	f->title = xstrdup_or_null(title);
	f->evidence = xstrdup_or_null(evidence);
	f->fix = xstrdup_or_null(fix);
	return f;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
