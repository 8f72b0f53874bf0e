/* bench_model.c - the bench run model: kinds, init/release, findings; see bench.h. */
#include "bench/bench.h"
#include "core/xalloc.h"
#include "report/report.h"

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

static const char *const conv_prec_names[] = { "fp32", "fp16", "bf16" };
static const char *const conv_prec_labels[] = { "FP32 (TF32 math)", "FP16", "BF16" };

const char *bench_conv_prec_name(int prec)
{
	return prec >= 0 && prec < BENCH_CONV_PRECS ? conv_prec_names[prec] : "?";
}

const char *bench_conv_prec_label(int prec)
{
	return prec >= 0 && prec < BENCH_CONV_PRECS ? conv_prec_labels[prec] : "?";
}

void bench_gpu_init_conv(struct bench_conv *c)
{
	memset(c, 0, sizeof(*c));
	c->cudnn_version = -1;
	c->flops = c->seconds = NAN;
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			struct bench_conv_result *r = &c->r[d][p];

			r->value = r->ceiling = r->percent = r->ms = r->max_err = NAN;
			r->algo = -1;
			r->workspace = -1;
			r->verified = -1;
		}
}

void bench_gpu_release_conv(struct bench_conv *c)
{
	free(c->cudnn);
	free(c->shape);
	free(c->refused_msg);
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			free(c->r[d][p].math);
			free(c->r[d][p].error);
		}
	bench_gpu_init_conv(c);
}

void bench_nccl_init(struct bench_nccl *n)
{
	memset(n, 0, sizeof(*n));
	report_init(&n->rep);
	n->version_code = n->gpus = n->verified = n->nvlinks = n->nvlink_version = -1;
	for (int c = 0; c < BENCH_NCCL_COLLS; c++)
		n->latency_us[c] = n->peak_busbw[c] = n->percent[c] = NAN;
	n->ceiling_gbs = n->seconds = NAN;
}

void bench_nccl_release(struct bench_nccl *n)
{
	free(n->library);
	free(n->skipped);
	free(n->refused_msg);
	for (int c = 0; c < BENCH_NCCL_COLLS; c++)
		free(n->pts[c]);
	free(n->link);
	free(n->topology);
	free(n->nccl_warning);
	free(n->ceiling_source);
	report_release(&n->rep);
	bench_nccl_init(n);
}

void bench_gpu_init(struct bench_gpu *g, int index)
{
	memset(g, 0, sizeof(*g));
	report_init(&g->rep);
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
	bench_gpu_init_conv(&g->conv);
}

void bench_gpu_release(struct bench_gpu *g)
{
	free(g->name);
	free(g->pci);
	free(g->cublas);
	free(g->refused_msg);
	free(g->pcie_label);
	free(g->kb_source);
	for (int k = 0; k < BENCH_NKINDS; k++)
		bench_result_release(&g->results[k]);
	report_release(&g->rep);
	bench_gpu_release_conv(&g->conv);
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
	c->conv_gflops = c->conv_speedup = NAN;
	c->conv_verified = -1;
}

void bench_cpu_release(struct bench_cpu *c)
{
	free(c->impl);
	free(c->library);
	free(c->error);
	free(c->method);
	free(c->conv_method);
	bench_cpu_init(c);
}

void bench_run_init(struct bench_run *r)
{
	memset(r, 0, sizeof(*r));
	bench_cpu_init(&r->cpu);
	bench_nccl_init(&r->nccl);
	r->seconds = NAN;
}

void bench_run_release(struct bench_run *r)
{
	for (size_t i = 0; i < r->ngpus; i++)
		bench_gpu_release(&r->gpus[i]);
	free(r->gpus);
	bench_cpu_release(&r->cpu);
	bench_nccl_release(&r->nccl);
	free(r->refused_msg);
	bench_run_init(r);
}

struct bench_gpu *bench_run_add_gpu(struct bench_run *r, int index)
{
	XGROW(r->gpus, r->ngpus, r->gpus_cap);
	bench_gpu_init(&r->gpus[r->ngpus], index);
	return &r->gpus[r->ngpus++];
}

const char *bench_finding_word(const struct finding *f)
{
	return f->status == STATUS_FAIL ? "fail" : f->status == STATUS_WARN ? "warn" : "info";
}

const char *bench_finding_mark(const struct finding *f)
{
	return f->status == STATUS_FAIL ? "FAIL" : f->status == STATUS_WARN ? "WARN" : "note";
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
