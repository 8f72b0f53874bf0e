/* bench_ceiling.c - ceilings and percentages of bench figures; see bench_ceiling.h. */
#include "bench/bench_ceiling.h"
#include "bench/bench_coll.h"
#include "bench/bench_pcie.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdlib.h>

double bench_percent(double value, double ceiling)
{
	if (!isfinite(value) || !isfinite(ceiling) || ceiling <= 0)
		return NAN;
	return 100.0 * value / ceiling;
}

static double bench_known(double v)
{
	return isfinite(v) && v > 0 ? v : NAN;
}

static double bench_min_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a < b ? a : b;
}

static void bench_ceiling_link(struct bench_gpu *g)
{
	const struct bench_link *l = &g->link;
	double gts = bench_min_known(l->max_gts, l->port_max_gts);
	double cur = isnan(l->load_gts) ? l->cur_gts : l->load_gts;
	int width = l->max_width, cw = l->load_width > 0 ? l->load_width : l->cur_width;

	if (l->port_max_width > 0 && (width <= 0 || l->port_max_width < width))
		width = l->port_max_width;
	/* A device that does not say its maximum: the link as it runs is all we know. */
	if (isnan(gts))
		gts = cur;
	if (width <= 0)
		width = cw;
	g->pcie_gbs = bench_pcie_link_gbs(gts, width);
	g->pcie_cur_gbs = bench_pcie_link_gbs(cur, cw);
	free(g->pcie_label);
	g->pcie_label = NULL;
	if (!isnan(g->pcie_gbs))
		g->pcie_label = xasprintf("PCIe Gen%d x%d", bench_pcie_gen(gts), width);
}

static void bench_ceiling_set(struct bench_result *r, double ceiling, const char *source)
{
	free(r->ceiling_source);
	r->ceiling = ceiling;
	r->ceiling_source = isnan(ceiling) ? NULL : xstrdup_or_null(source);
	r->percent = bench_percent(r->value, r->ceiling);
}

void bench_ceilings_fill(struct bench_gpu *g, const struct kb_gpu *kg)
{
	char *ds, *tf;

	bench_ceiling_link(g);
	g->mem_gbs = g->fp32_tflops = g->fp16_tflops = g->bf16_tflops = NAN;
	free(g->kb_source);
	g->kb_source = NULL;
	if (kg) {
		g->mem_gbs = bench_known(kg->bw_gbs);
		g->fp32_tflops = bench_known(kg->fp32_tflops);
		g->fp16_tflops = bench_known(kg->fp16_tflops);
		g->bf16_tflops = bench_known(kg->bf16_tflops);
		g->kb_source = xstrdup_or_null(kg->source);
	}
	/* TF32 has no row of its own: on Ampere and later the tensor cores run
	 * it at half the dense BF16 rate (A100 156/312, H100 SXM 495/989 per
	 * NVIDIA's datasheets); before Ampere cuBLAS runs it as plain FP32. */
	g->tf32_tflops = NAN;
	if (g->cc_major >= 8)
		g->tf32_tflops = g->bf16_tflops / 2;
	else if (g->cc_major >= 0)
		g->tf32_tflops = g->fp32_tflops;
	ds = xasprintf("datasheet (%s)", g->kb_source ? g->kb_source : "knowledge base");
	tf = xasprintf("datasheet BF16 / 2 (%s)", g->kb_source ? g->kb_source : "knowledge base");
	for (int k = BENCH_H2D_PINNED; k <= BENCH_D2H_PAGEABLE; k++)
		bench_ceiling_set(&g->results[k], g->pcie_gbs, g->pcie_label);
	bench_ceiling_set(&g->results[BENCH_D2D], g->mem_gbs, ds);
	bench_ceiling_set(&g->results[BENCH_GEMM_FP32], g->fp32_tflops, ds);
	bench_ceiling_set(&g->results[BENCH_GEMM_TF32], g->tf32_tflops,
			  g->cc_major >= 8 ? tf : ds);
	bench_ceiling_set(&g->results[BENCH_GEMM_FP16], g->fp16_tflops, ds);
	bench_ceiling_set(&g->results[BENCH_GEMM_BF16], g->bf16_tflops, ds);
	free(ds);
	free(tf);
}

void bench_ceilings_conv(struct bench_gpu *g)
{
	double ceil[BENCH_CONV_PRECS] = { g->tf32_tflops, g->fp16_tflops, g->bf16_tflops };

	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			struct bench_conv_result *r = &g->conv.r[d][p];

			r->ceiling = ceil[p];
			r->percent = bench_percent(r->value, r->ceiling);
		}
}

void bench_ceilings_nccl(struct bench_nccl *n, const struct bench_gpu *gpus, size_t ngpus)
{
	double per = bench_nvlink_link_gbs(n->nvlink_version), pcie = NAN;
	const char *label = NULL;

	free(n->ceiling_source);
	n->ceiling_source = NULL;
	n->ceiling_gbs = NAN;
	if (n->nvlinks > 0 && !isnan(per)) {
		n->ceiling_gbs = n->nvlinks * per;
		n->ceiling_source = xasprintf("NVLink %d x %d links at %.0f GB/s per direction (NVML)",
					      n->nvlink_version, n->nvlinks, per);
	} else {
		for (size_t i = 0; i < ngpus; i++)
			if (!isnan(gpus[i].pcie_gbs) && (isnan(pcie) || gpus[i].pcie_gbs < pcie)) {
				pcie = gpus[i].pcie_gbs;
				label = gpus[i].pcie_label;
			}
		if (!isnan(pcie)) {
			n->ceiling_gbs = pcie;
			n->ceiling_source = xasprintf("%s per direction (no active NVLink)", label ? label : "PCIe");
		}
	}
	for (int c = 0; c < BENCH_NCCL_COLLS; c++)
		n->percent[c] = bench_percent(n->peak_busbw[c], n->ceiling_gbs);
}
