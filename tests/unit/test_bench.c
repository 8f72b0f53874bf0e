/* test_bench.c - bench's pure parts: PCIe arithmetic, ceilings, judging,
 * numbers, the CPU kernel, the plan, parsing and the JSON document. */
#include "bench/bench.h"
#include "bench/bench_ceiling.h"
#include "bench/bench_judge.h"
#include "bench/bench_numeric.h"
#include "bench/bench_parse.h"
#include "bench/bench_pcie.h"
#include "bench/bench_plan.h"
#include "bench/bench_render.h"
#include "bench/bench_sgemm.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static void test_pcie_lane_rates(void)
{
	CHECK(NEAR(bench_pcie_lane_gbs(2.5), 0.25, 1e-9));	/* 8b/10b */
	CHECK(NEAR(bench_pcie_lane_gbs(5.0), 0.5, 1e-9));
	CHECK(NEAR(bench_pcie_lane_gbs(8.0), 8.0 * 128 / 130 / 8, 1e-9));	/* 128b/130b */
	CHECK(NEAR(bench_pcie_lane_gbs(16.0), 1.969230769, 1e-6));
	CHECK(NEAR(bench_pcie_lane_gbs(32.0), 3.938461538, 1e-6));
	CHECK(NEAR(bench_pcie_lane_gbs(64.0), 64.0 * 236 / 256 / 8, 1e-9));	/* FLIT */
	CHECK(isnan(bench_pcie_lane_gbs(3.0)));
	CHECK(isnan(bench_pcie_lane_gbs(NAN)));
	CHECK(isnan(bench_pcie_lane_gbs(0)));
}

static void test_pcie_link_widths(void)
{
	CHECK(NEAR(bench_pcie_link_gbs(32.0, 16), 63.015, 1e-3));
	CHECK(NEAR(bench_pcie_link_gbs(16.0, 16), 31.508, 1e-3));
	CHECK(NEAR(bench_pcie_link_gbs(16.0, 8), 15.754, 1e-3));
	CHECK(NEAR(bench_pcie_link_gbs(8.0, 4), 3.938, 1e-3));
	CHECK(NEAR(bench_pcie_link_gbs(2.5, 1), 0.25, 1e-9));
	CHECK(NEAR(bench_pcie_link_gbs(64.0, 16), 118.0, 1e-9));
	CHECK(isnan(bench_pcie_link_gbs(32.0, 0)));
	CHECK(isnan(bench_pcie_link_gbs(32.0, -1)));
	CHECK_INT(bench_pcie_gen(2.5), 1);
	CHECK_INT(bench_pcie_gen(8), 3);
	CHECK_INT(bench_pcie_gen(32), 5);
	CHECK_INT(bench_pcie_gen(64), 6);
	CHECK_INT(bench_pcie_gen(7), -1);
}

static void test_pcie_parse(void)
{
	char bdf[16];

	CHECK(NEAR(bench_pcie_parse_speed("16.0 GT/s PCIe"), 16, 0));
	CHECK(NEAR(bench_pcie_parse_speed("8 GT/s"), 8, 0));
	CHECK(NEAR(bench_pcie_parse_speed("2.5 GT/s PCIe"), 2.5, 0));
	CHECK(isnan(bench_pcie_parse_speed("Unknown")));
	CHECK(isnan(bench_pcie_parse_speed("Unknown speed")));
	CHECK(isnan(bench_pcie_parse_speed("16.0")));
	CHECK(isnan(bench_pcie_parse_speed(NULL)));
	CHECK_INT(bench_pcie_parse_width("16"), 16);
	CHECK_INT(bench_pcie_parse_width("0"), -1);
	CHECK_INT(bench_pcie_parse_width("x"), -1);
	CHECK_INT(bench_pcie_normalize_bdf("00000000:65:00.0", bdf), 0);
	CHECK_STR(bdf, "0000:65:00.0");
	CHECK_INT(bench_pcie_normalize_bdf("0000:CA:00.1", bdf), 0);
	CHECK_STR(bdf, "0000:ca:00.1");
	CHECK_INT(bench_pcie_normalize_bdf("pci0000:00", bdf), -1);
	CHECK_INT(bench_pcie_normalize_bdf("0000:65:00.0x", bdf), -1);
}

/* A datasheet row written field by field: struct kb_gpu grows at its end. */
static struct kb_gpu h200;

static void h200_init(void)
{
	memset(&h200, 0, sizeof(h200));
	h200.vendor = 0x10de;
	h200.device = 0x2335;
	h200.name = "NVIDIA H200";
	h200.cc_major = 9;
	h200.bw_gbs = 4800;
	h200.fp32_tflops = 67;
	h200.fp16_tflops = 989.5;
	h200.bf16_tflops = 989.5;
	h200.source = "test";
}

static void fill_healthy(struct bench_gpu *g)
{
	bench_gpu_init(g, 0);
	g->name = strdup("NVIDIA H200");
	g->pci = strdup("0000:65:00.0");
	g->cc_major = 9;
	g->cc_minor = 0;
	g->mem_total = 150000000000LL;
	g->mem_free = 149000000000LL;
	g->link = (struct bench_link){ 32, 32, 16, 16, 32, 16, 32, 16 };
	double v[BENCH_NKINDS] = { 55, 56, 20, 18, 4300, 50, 380, 780, 790 };
	for (int k = 0; k < BENCH_NKINDS; k++) {
		g->results[k].measured = 1;
		g->results[k].value = v[k];
		if (bench_kind_info(k)->is_gemm) {
			g->results[k].verified = 1;
			g->results[k].size = 8192;
		}
	}
}

static int has_cause(const struct bench_gpu *g, const char *cause)
{
	for (size_t i = 0; i < g->rep.n; i++)
		if (!strcmp(cause_id_str(g->rep.findings[i].cause), cause))
			return 1;
	return 0;
}

static void test_ceilings_datasheet(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	bench_ceilings_fill(&g, &h200);
	CHECK(NEAR(g.pcie_gbs, 63.015, 1e-3));
	CHECK_STR(g.pcie_label, "PCIe Gen5 x16");
	CHECK(NEAR(g.results[BENCH_D2D].ceiling, 4800, 0));
	CHECK(NEAR(g.results[BENCH_D2D].percent, 4300.0 / 48, 1e-9));
	CHECK(NEAR(g.results[BENCH_GEMM_BF16].ceiling, 989.5, 0));
	CHECK(NEAR(g.results[BENCH_GEMM_TF32].ceiling, 989.5 / 2, 1e-9));
	CHECK(NEAR(g.results[BENCH_GEMM_FP32].ceiling, 67, 0));
	CHECK(NEAR(g.results[BENCH_H2D_PINNED].percent, 5500 / 63.0154, 1e-2));
	bench_gpu_release(&g);
}

static void test_ceilings_unknown(void)
{
	struct bench_gpu g;
	struct kb_gpu partial = h200;

	fill_healthy(&g);
	partial.fp32_tflops = NAN;
	partial.bw_gbs = 0;	/* not positive: unknown, never a zero ceiling */
	bench_ceilings_fill(&g, &partial);
	CHECK(isnan(g.results[BENCH_GEMM_FP32].ceiling));
	CHECK(isnan(g.results[BENCH_GEMM_FP32].percent));
	CHECK(isnan(g.results[BENCH_D2D].ceiling));
	CHECK(g.results[BENCH_D2D].ceiling_source == NULL);
	bench_ceilings_fill(&g, NULL);
	CHECK(isnan(g.results[BENCH_GEMM_BF16].ceiling));
	CHECK(!isnan(g.results[BENCH_H2D_PINNED].ceiling));	/* the link is still known */
	g.link = (struct bench_link){ NAN, NAN, -1, -1, NAN, -1, NAN, -1 };
	bench_ceilings_fill(&g, NULL);
	CHECK(isnan(g.results[BENCH_H2D_PINNED].ceiling));
	CHECK(g.pcie_label == NULL);
	bench_gpu_release(&g);
}

static void test_ceiling_slot_limits(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	g.link.port_max_gts = 16;	/* a Gen4 slot */
	g.link.port_max_width = 8;
	bench_ceilings_fill(&g, &h200);
	CHECK_STR(g.pcie_label, "PCIe Gen4 x8");
	CHECK(NEAR(g.pcie_gbs, 15.754, 1e-3));
	bench_gpu_release(&g);
	CHECK(isnan(bench_percent(1, 0)));
	CHECK(isnan(bench_percent(NAN, 5)));
	CHECK(NEAR(bench_percent(1, 4), 25, 0));
}

static void test_judge_healthy(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(!has_cause(&g, "pcie-link-degraded"));
	CHECK(!has_cause(&g, "bench-below-peak"));
	CHECK(!has_cause(&g, "gpu-compute-failed"));
	CHECK(has_cause(&g, "pageable-copies-slow"));	/* 20 of 55: info */
	for (size_t i = 0; i < g.rep.n; i++)
		CHECK(g.rep.findings[i].status == STATUS_OK && g.rep.findings[i].nevidence && g.rep.findings[i].fix);
	bench_gpu_release(&g);
}

static void test_judge_degraded_link(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	g.link.load_gts = 16;	/* Gen4 under load on a Gen5 card and slot */
	g.results[BENCH_H2D_PINNED].value = 26;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(has_cause(&g, "pcie-link-degraded"));
	bench_gpu_release(&g);
	/* idle and fast: a low idle speed alone is power saving, not a fault */
	fill_healthy(&g);
	g.link.load_gts = NAN;
	g.link.cur_gts = 2.5;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(!has_cause(&g, "pcie-link-degraded"));
	bench_gpu_release(&g);
	/* narrow link: always a finding */
	fill_healthy(&g);
	g.link.load_width = 8;
	g.link.cur_width = 8;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(has_cause(&g, "pcie-link-degraded"));
	bench_gpu_release(&g);
}

static void test_judge_low_figures(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	g.results[BENCH_D2D].value = 2000;	/* 42 % */
	g.results[BENCH_GEMM_BF16].value = 300;	/* 30 % */
	g.results[BENCH_H2D_PINNED].value = 20;	/* full link, slow copies */
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(has_cause(&g, "bench-below-peak"));
	CHECK(!has_cause(&g, "pcie-link-degraded"));
	int n = 0;
	for (size_t i = 0; i < g.rep.n; i++)
		if (g.rep.findings[i].cause == CAUSE_BENCH_BELOW_PEAK) {
			n++;
			CHECK(g.rep.findings[i].status == STATUS_WARN);
			CHECK(strstr(g.rep.findings[i].evidence[0], "clocks") || strstr(g.rep.findings[i].evidence[0], "IOMMU"));
		}
	CHECK_INT(n, 3);
	bench_gpu_release(&g);
}

static void test_judge_causes_mig_and_other_process(void)
{
	struct bench_gpu g;

	fill_healthy(&g);
	free(g.name);
	g.name = strdup("NVIDIA H200 MIG 1g.18gb");
	g.results[BENCH_GEMM_FP16].value = 100;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(g.rep.n > 0 && strstr(g.rep.findings[g.rep.n - 1].evidence[0], "MIG slice"));
	bench_gpu_release(&g);
	fill_healthy(&g);
	g.mem_free = g.mem_total / 2;
	g.results[BENCH_GEMM_FP16].value = 100;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(g.rep.n > 0 && strstr(g.rep.findings[g.rep.n - 1].evidence[0], "another process"));
	bench_gpu_release(&g);
}

static void test_judge_wrong_results(void)
{
	struct bench_gpu g;
	struct bench_run run;

	bench_run_init(&run);
	fill_healthy(&g);
	g.results[BENCH_GEMM_FP16].verified = 0;
	g.results[BENCH_GEMM_FP16].max_err = 0.5;
	bench_ceilings_fill(&g, &h200);
	bench_judge_gpu(&g);
	CHECK(has_cause(&g, "gpu-compute-failed"));
	run.gpus = &g;
	run.ngpus = 1;
	CHECK(bench_judge_worst(&run) == STATUS_FAIL);
	CHECK_STR(bench_run_status(&run), "fail");
	run.cpu.gflops = 1000;
	bench_judge_cpu(&run);
	CHECK(NEAR(run.cpu.speedup, 50, 1e-9));
	run.gpus = NULL;
	run.ngpus = 0;
	bench_run_release(&run);
	bench_gpu_release(&g);
}

static void test_half_conversions(void)
{
	CHECK_INT(bench_f32_to_f16(1.0f), 0x3c00);
	CHECK_INT(bench_f32_to_f16(-2.0f), 0xc000);
	CHECK_INT(bench_f32_to_f16(65504.0f), 0x7bff);
	CHECK_INT(bench_f32_to_f16(70000.0f), 0x7c00);
	CHECK_INT(bench_f32_to_f16(5.960464477539063e-08f), 0x0001);	/* smallest subnormal */
	CHECK_INT(bench_f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);	/* tie to even */
	CHECK_INT(bench_f32_to_f16(1.0f + 3.0f / 2048), 0x3c02);
	CHECK(bench_f16_to_f32(0x3555) == 0.333251953125f);
	CHECK(bench_f16_to_f32(0x0001) == 5.960464477539063e-08f);
	CHECK_INT(bench_f32_to_bf16(1.0f), 0x3f80);
	CHECK_INT(bench_f32_to_bf16(-1.0f), 0xbf80);
	CHECK(bench_bf16_to_f32(0x3f80) == 1.0f);
	CHECK(isnan(bench_bf16_to_f32(bench_f32_to_bf16(NAN))));
	for (float f = -1; f < 1; f += 0.0137f) {
		CHECK(fabsf(bench_f16_to_f32(bench_f32_to_f16(f)) - f) <= fabsf(f) / 2048 + 3e-8f);
		CHECK(fabsf(bench_bf16_to_f32(bench_f32_to_bf16(f)) - f) <= fabsf(f) / 256);
	}
}

static void test_reference_and_tolerance(void)
{
	float *tile = malloc(BENCH_TILE * sizeof(float));
	size_t n = 64;
	float *a = malloc(n * n * 4), *b = malloc(n * n * 4);
	double scale, ref, direct = 0;

	bench_tile_fill(tile, 7);
	for (size_t i = 0; i < BENCH_TILE; i++)
		CHECK(tile[i] >= -1 && tile[i] < 1);
	bench_tile_expand(tile, BENCH_PREC_FP32, 0, a, n * n);
	bench_tile_expand(tile, BENCH_PREC_FP32, 12345, b, n * n);
	for (size_t k = 0; k < n; k++)	/* column-major entry (3, 5) */
		direct += (double)a[3 + k * n] * b[k + 5 * n];
	ref = bench_ref_entry(tile, 0, 12345, n, 3, 5, &scale);
	CHECK(NEAR(ref, direct, 1e-12));
	CHECK(scale > fabs(ref));
	CHECK(bench_rel_err(ref, ref, scale) == 0);
	CHECK(isinf(bench_rel_err(NAN, ref, scale)));
	CHECK(bench_rel_err(ref + scale * 1e-3, ref, scale) > bench_prec_tolerance(BENCH_PREC_FP32));
	CHECK(bench_rel_err(ref + scale * 1e-3, ref, scale) < bench_prec_tolerance(BENCH_PREC_BF16));
	CHECK(bench_prec_tolerance(BENCH_PREC_FP32) < bench_prec_tolerance(BENCH_PREC_TF32));
	/* the pattern wraps exactly */
	bench_tile_expand(tile, BENCH_PREC_FP32, BENCH_TILE - 2, a, 4);
	CHECK(a[0] == tile[BENCH_TILE - 2] && a[2] == tile[0]);
	{
		uint16_t h[4];

		bench_tile_round(tile, BENCH_PREC_BF16);
		bench_tile_expand(tile, BENCH_PREC_BF16, 0, h, 4);
		CHECK(bench_bf16_to_f32(h[1]) == tile[1]);
		CHECK(bench_elem_value(h, BENCH_PREC_BF16, 2) == tile[2]);
	}
	free(a);
	free(b);
	free(tile);
}

static void test_sgemm_blocked_matches_naive(void)
{
	static const int dims[][3] = { { 1, 1, 1 }, { 37, 53, 29 }, { 64, 600, 300 }, { 130, 17, 513 } };

	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		int m = dims[d][0], n = dims[d][1], k = dims[d][2];
		float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n);
		float *c1 = malloc(sizeof(float) * (size_t)m * n), *c2 = malloc(sizeof(float) * (size_t)m * n);

		for (long i = 0; i < (long)m * k; i++)
			a[i] = (float)((i * 7919) % 201 - 100) / 100.0f;
		for (long i = 0; i < (long)k * n; i++)
			b[i] = (float)((i * 104729) % 199 - 99) / 99.0f;
		bench_sgemm_naive(m, n, k, a, b, c1);
		for (int t = 1; t <= 3; t++) {
			int bad = 0;

			for (long i = 0; i < (long)m * n; i++)
				c2[i] = NAN;	/* poison: every entry must be written */
			bench_sgemm_blocked(m, n, k, a, b, c2, t);
			for (long i = 0; i < (long)m * n; i++)
				if (!(fabsf(c1[i] - c2[i]) <= 1e-4f * (float)k))
					bad++;
			CHECK_INT(bad, 0);
		}
		free(a);
		free(b);
		free(c1);
		free(c2);
	}
}

static void test_plan(void)
{
	struct bench_plan p;
	size_t gib = (size_t)1 << 30, mib = (size_t)1 << 20;

	CHECK_INT(bench_plan_make(140 * gib, 0, &p), 0);
	CHECK_INT(p.step[BENCH_H2D_PINNED].size, 256 * mib);
	CHECK_INT(p.step[BENCH_D2D].size, gib);
	CHECK_INT(p.step[BENCH_GEMM_BF16].size, 8192);
	CHECK_INT(p.workspace_bytes, 32 * mib);
	CHECK(p.pinned_bytes >= 8192ull * 8192 * 4);
	CHECK_INT(bench_plan_make(140 * gib, 1, &p), 0);
	CHECK_INT(p.step[BENCH_H2D_PINNED].size, 64 * mib);
	CHECK_INT(p.step[BENCH_GEMM_FP32].size, 4096);
	CHECK_INT(bench_plan_make(7 * mib, 0, &p), 0);	/* the fakes' size */
	CHECK_INT(p.step[BENCH_GEMM_FP32].size, 256);
	CHECK(p.device_bytes <= 7 * mib);
	CHECK_INT(bench_plan_make(2 * mib, 0, &p), -1);
	for (int k = 0; k < BENCH_NKINDS; k++)
		CHECK(p.step[k].reps <= 64);
}

static void test_parse_and_json(void)
{
	static const char text[] =
		"index=0\nname=NVIDIA H200\npci=0000:65:00.0\ncc=9.0\nsms=132\nclock_khz=1980000\n"
		"mem_total=1000\nmem_free=900\n"
		"result.h2d_pinned.value=55.5\nresult.h2d_pinned.size=268435456\nresult.h2d_pinned.method=m\n"
		"result.gemm_bf16.value=790\nresult.gemm_bf16.size=8192\nresult.gemm_bf16.verified=1\nresult.gemm_bf16.max_err=0.001\n"
		"result.gemm_fp32.error=no cuBLAS\nresult.d2d.value=nan\nlink.load_gts=32.0\nseconds=3.5\nend\n";
	struct kvlist kv = KVLIST_INIT;
	struct bench_run run;
	struct bench_gpu *g;
	struct buf out = BUF_INIT;

	kvlist_parse(&kv, text, sizeof(text) - 1);
	bench_run_init(&run);
	g = bench_run_add_gpu(&run, 0);
	bench_parse_gpu(&kv, g);
	CHECK_STR(g->name, "NVIDIA H200");
	CHECK_INT(g->cc_major, 9);
	CHECK_INT(g->sms, 132);
	CHECK(NEAR(g->clock_mhz, 1980, 1e-9));
	CHECK(g->results[BENCH_H2D_PINNED].measured && g->results[BENCH_H2D_PINNED].value == 55.5);
	CHECK(!g->results[BENCH_D2D].measured);	/* "nan" is not a value */
	CHECK_STR(g->results[BENCH_GEMM_FP32].error, "no cuBLAS");
	CHECK_INT(g->results[BENCH_GEMM_BF16].verified, 1);
	CHECK(NEAR(g->link.load_gts, 32, 0));
	bench_ceilings_fill(g, &h200);
	bench_judge_gpu(g);
	bench_render_json(&run, &out);
	CHECK(strstr(out.s, "\"schema\": \"gpudoctor.bench/1\""));
	CHECK(strstr(out.s, "\"name\": \"gemm_bf16\""));
	CHECK(strstr(out.s, "\"unit\": \"TFLOP/s\""));
	CHECK(strstr(out.s, "\"ceiling\": 989.5"));
	CHECK(strstr(out.s, "\"percent\": 79.8"));
	CHECK(strstr(out.s, "\"sgemm_gflops\": null"));
	CHECK(strstr(out.s, "\"status\": \"ok\""));
	CHECK(!strstr(out.s, "\"name\": \"d2d\""));	/* not measured, no error: left out */
	buf_reset(&out);
	bench_render_text(&run, &out);
	CHECK(strstr(out.s, "GEMM BF16 8192^3"));
	CHECK(strstr(out.s, "not measured: no cuBLAS"));
	buf_release(&out);
	kvlist_release(&kv);
	bench_run_release(&run);
}

static void test_median_and_kinds(void)
{
	double v[] = { 5, 1, 3 }, w[] = { 4, 1, 3, 2 };

	CHECK(bench_median(v, 3) == 3);
	CHECK(bench_median(w, 4) == 2.5);
	CHECK(isnan(bench_median(v, 0)));
	CHECK_INT(bench_kind_from_name("d2d"), BENCH_D2D);
	CHECK_INT(bench_kind_from_name("nope"), -1);
	CHECK(bench_kind_info(BENCH_NKINDS) == NULL);
}

int main(void)
{
	h200_init();
	RUN(test_pcie_lane_rates);
	RUN(test_pcie_link_widths);
	RUN(test_pcie_parse);
	RUN(test_ceilings_datasheet);
	RUN(test_ceilings_unknown);
	RUN(test_ceiling_slot_limits);
	RUN(test_judge_healthy);
	RUN(test_judge_degraded_link);
	RUN(test_judge_low_figures);
	RUN(test_judge_causes_mig_and_other_process);
	RUN(test_judge_wrong_results);
	RUN(test_half_conversions);
	RUN(test_reference_and_tolerance);
	RUN(test_sgemm_blocked_matches_naive);
	RUN(test_plan);
	RUN(test_parse_and_json);
	RUN(test_median_and_kinds);
	return tap_done();
}
