/* test_bench_dnn.c - bench's cuDNN and NCCL arithmetic: convolution shapes
 * and FLOPs, the CPU reference convolutions against naive ones, busbw and
 * algbw, the NVLink ceiling, NCCL's INFO log, and the parsed model. */
#include "bench/bench.h"
#include "bench/bench_ceiling.h"
#include "bench/bench_coll.h"
#include "bench/bench_conv.h"
#include "bench/bench_judge.h"
#include "bench/bench_ncclinfo.h"
#include "bench/bench_parse.h"
#include "bench/bench_refusal.h"
#include "bench/bench_sgemm.h"
#include "core/buf.h"
#include "core/kv.h"
#include "report/finding_record.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static void test_conv_shape_arithmetic(void)
{
	struct bench_conv_shape s = BENCH_CONV_RESNET, t;

	CHECK_INT(bench_conv_out_h(&s), 56);
	CHECK_INT(bench_conv_out_w(&s), 56);
	CHECK_INT(bench_conv_valid(&s), 0);
	/* 2 * 32 * 256 * 56 * 56 * 256 * 3 * 3 */
	CHECK(NEAR(bench_conv_flops(&s), 118380036096.0, 0.5));
	CHECK_INT(bench_conv_x_elems(&s), 32 * 56 * 56 * 256);
	CHECK_INT(bench_conv_w_elems(&s), 256 * 3 * 3 * 256);
	CHECK_INT(bench_conv_y_elems(&s), 32 * 56 * 56 * 256);
	/* 1 ms per pass = 118.38 TFLOP/s */
	CHECK(NEAR(bench_conv_tflops(&s, 1.0), 118.380036096, 1e-9));
	CHECK(isnan(bench_conv_tflops(&s, 0)));
	CHECK(isnan(bench_conv_tflops(&s, NAN)));
	/* stride 2, no padding: (56 - 3) / 2 + 1 = 27 */
	t = (struct bench_conv_shape){ 1, 3, 56, 56, 8, 3, 3, 0, 2 };
	CHECK_INT(bench_conv_out_h(&t), 27);
	/* a filter larger than the padded input: invalid, not negative */
	t = (struct bench_conv_shape){ 1, 3, 2, 2, 8, 5, 5, 1, 1 };
	CHECK_INT(bench_conv_out_h(&t), -1);
	CHECK_INT(bench_conv_valid(&t), -1);
	CHECK(isnan(bench_conv_flops(&t)));
	t = (struct bench_conv_shape){ 0, 3, 8, 8, 8, 3, 3, 1, 1 };
	CHECK_INT(bench_conv_valid(&t), -1);
	/* more than 2^31 elements in one tensor */
	t = (struct bench_conv_shape){ 1024, 1024, 64, 64, 8, 1, 1, 0, 1 };
	CHECK_INT(bench_conv_valid(&t), -1);
	CHECK_STR(bench_conv_dir_name(BENCH_CONV_BWD_FILTER), "bwd_filter");
	CHECK_STR(bench_conv_dir_name((enum bench_conv_dir)7), "?");
}

static void test_conv_shape_parse(void)
{
	struct bench_conv_shape s;

	CHECK_INT(bench_conv_shape_parse("32,256,56,56,256", &s), 0);
	CHECK_INT(s.r, 3);
	CHECK_INT(s.pad, 1);
	CHECK_INT(s.stride, 1);
	CHECK_INT(bench_conv_shape_parse("8,64,32,32,128,1,1,0,2", &s), 0);
	CHECK_INT(s.k, 128);
	CHECK_INT(s.r, 1);
	CHECK_INT(s.pad, 0);
	CHECK_INT(s.stride, 2);
	CHECK_INT(bench_conv_shape_parse("8,64,32,32,128,5,5", &s), 0);
	CHECK_INT(s.pad, 1);
	CHECK_INT(bench_conv_shape_parse("8,64,32,32", &s), -1);
	CHECK_INT(bench_conv_shape_parse("8,64,32,32,128,3", &s), -1);	/* R without S */
	CHECK_INT(bench_conv_shape_parse("8,64,32,32,128,", &s), -1);
	CHECK_INT(bench_conv_shape_parse("8,-64,32,32,128", &s), -1);
	CHECK_INT(bench_conv_shape_parse("8,64,32,32,128x", &s), -1);
	CHECK_INT(bench_conv_shape_parse("1,1,1,1,1,1,1,0,1,9", &s), -1);
	CHECK_INT(bench_conv_shape_parse("0,64,32,32,128", &s), -1);
	CHECK_INT(bench_conv_shape_parse("", &s), -1);
	CHECK_INT(bench_conv_shape_parse(NULL, &s), -1);
	CHECK_INT(bench_conv_shape_parse("99999999999,1,1,1,1", &s), -1);
}

/* The plainest possible convolution, from the definition, for the checks. */
static float naive_x(const struct bench_conv_shape *s, const float *x, int n, int h, int w, int c)
{
	if (h < 0 || h >= s->h || w < 0 || w >= s->w)
		return 0;
	return x[(((size_t)n * s->h + h) * s->w + w) * s->c + c];
}

static void naive_sgemm(void *ctx, int m, int n, int k, const float *a, const float *b, float *c)
{
	(void)ctx;
	bench_sgemm_naive(m, n, k, a, b, c);
}

static void fill(float *v, size_t n, unsigned seed)
{
	bench_conv_fill_full(v, n, seed);
}

static void check_shape_refs(struct bench_conv_shape s)
{
	int P = bench_conv_out_h(&s), Q = bench_conv_out_w(&s);
	size_t nx = bench_conv_x_elems(&s), nw = bench_conv_w_elems(&s), ny = bench_conv_y_elems(&s);
	float *x = malloc(nx * 4), *w = malloc(nw * 4), *y = malloc(ny * 4), *dy = malloc(ny * 4);
	float *y2 = malloc(ny * 4), *wt = malloc(nw * 4), *col = malloc(bench_conv_col_elems(&s) * 4);
	double worst = 0, scale;

	fill(x, nx, 11);
	fill(w, nw, 22);
	fill(dy, ny, 33);
	/* forward: the reference entry against the definition */
	for (int n = 0; n < s.n; n++)
		for (int p = 0; p < P; p++)
			for (int q = 0; q < Q; q++)
				for (int k = 0; k < s.k; k++) {
					double want = 0, got = bench_conv_ref_fwd(&s, x, w, n, p, q, k, &scale);

					for (int r = 0; r < s.r; r++)
						for (int t = 0; t < s.s; t++)
							for (int c = 0; c < s.c; c++)
								want += (double)naive_x(&s, x, n, p * s.stride + r - s.pad, q * s.stride + t - s.pad, c) *
									w[(((size_t)k * s.r + r) * s.s + t) * s.c + c];
					if (fabs(got - want) > worst)
						worst = fabs(got - want);
				}
	CHECK(worst < 1e-9);
	/* backward data: dx = d(sum y*dy)/dx, by scattering every product */
	{
		double *dx = calloc(nx, sizeof(double));

		for (int n = 0; n < s.n; n++)
			for (int p = 0; p < P; p++)
				for (int q = 0; q < Q; q++)
					for (int k = 0; k < s.k; k++)
						for (int r = 0; r < s.r; r++)
							for (int t = 0; t < s.s; t++) {
								int h = p * s.stride + r - s.pad, ww = q * s.stride + t - s.pad;

								if (h < 0 || h >= s.h || ww < 0 || ww >= s.w)
									continue;
								for (int c = 0; c < s.c; c++)
									dx[(((size_t)n * s.h + h) * s.w + ww) * s.c + c] +=
										(double)dy[(((size_t)n * P + p) * Q + q) * s.k + k] *
										w[(((size_t)k * s.r + r) * s.s + t) * s.c + c];
							}
		worst = 0;
		for (int n = 0; n < s.n; n++)
			for (int h = 0; h < s.h; h++)
				for (int ww = 0; ww < s.w; ww++)
					for (int c = 0; c < s.c; c++) {
						double got = bench_conv_ref_bwd_data(&s, dy, w, n, h, ww, c, &scale);
						double want = dx[(((size_t)n * s.h + h) * s.w + ww) * s.c + c];

						if (fabs(got - want) > worst)
							worst = fabs(got - want);
					}
		CHECK(worst < 1e-9);
		free(dx);
	}
	/* backward filter: dw = sum over n, p, q of dy * x */
	worst = 0;
	for (int k = 0; k < s.k; k++)
		for (int r = 0; r < s.r; r++)
			for (int t = 0; t < s.s; t++)
				for (int c = 0; c < s.c; c++) {
					double want = 0, got = bench_conv_ref_bwd_filter(&s, x, dy, k, r, t, c, &scale);

					for (int n = 0; n < s.n; n++)
						for (int p = 0; p < P; p++)
							for (int q = 0; q < Q; q++)
								want += (double)dy[(((size_t)n * P + p) * Q + q) * s.k + k] *
									naive_x(&s, x, n, p * s.stride + r - s.pad, q * s.stride + t - s.pad, c);
					if (fabs(got - want) > worst)
						worst = fabs(got - want);
				}
	CHECK(worst < 1e-9);
	/* the CPU im2col + SGEMM convolution against the naive one */
	bench_conv_naive_fwd(&s, x, w, y);
	bench_conv_transpose_w(&s, w, wt);
	bench_conv_im2col_fwd(&s, x, wt, y2, col, naive_sgemm, NULL);
	worst = 0;
	for (size_t i = 0; i < ny; i++)
		if (fabs(y[i] - y2[i]) > worst)
			worst = fabs(y[i] - y2[i]);
	CHECK(worst < 1e-4);
	free(x); free(w); free(y); free(dy); free(y2); free(wt); free(col);
}

static void test_conv_refs_padded(void)
{
	check_shape_refs((struct bench_conv_shape){ 2, 5, 7, 6, 4, 3, 3, 1, 1 });
}

static void test_conv_refs_strided(void)
{
	check_shape_refs((struct bench_conv_shape){ 1, 3, 9, 8, 2, 3, 2, 2, 2 });
	check_shape_refs((struct bench_conv_shape){ 2, 4, 5, 5, 3, 1, 1, 0, 1 });
}

static void test_conv_fill_exact(void)
{
	float v[1000];

	bench_conv_fill(v, 1000, 42);
	for (int i = 0; i < 1000; i++) {
		CHECK(v[i] >= -1.0f && v[i] < 1.0f);
		CHECK(v[i] * 128.0f == (float)(int)(v[i] * 128.0f));	/* multiples of 1/128 */
	}
	bench_conv_fill_full(v, 1000, 42);
	{
		int coarse = 0;

		for (int i = 0; i < 1000; i++)
			coarse += v[i] * 128.0f == (float)(int)(v[i] * 128.0f);
		CHECK(coarse < 50);	/* full mantissas, not a few bits */
	}
}

static void test_coll_busbw(void)
{
	/* nccl-tests: all-reduce 2(n-1)/n, the others (n-1)/n */
	CHECK(NEAR(bench_coll_bus_factor(BENCH_ALL_REDUCE, 2), 1.0, 1e-12));
	CHECK(NEAR(bench_coll_bus_factor(BENCH_ALL_REDUCE, 8), 1.75, 1e-12));
	CHECK(NEAR(bench_coll_bus_factor(BENCH_ALL_GATHER, 8), 0.875, 1e-12));
	CHECK(NEAR(bench_coll_bus_factor(BENCH_REDUCE_SCATTER, 4), 0.75, 1e-12));
	CHECK(NEAR(bench_coll_bus_factor(BENCH_ALL_REDUCE, 1), 0.0, 1e-12));
	CHECK(isnan(bench_coll_bus_factor(BENCH_ALL_REDUCE, 0)));
	/* 1 GiB in 5 ms: algbw 214.7 GB/s; 8 ranks: busbw x 1.75 */
	CHECK(NEAR(bench_coll_algbw(1073741824.0, 0.005), 214.7483648, 1e-6));
	CHECK(NEAR(bench_coll_busbw(BENCH_ALL_REDUCE, 8, 1073741824.0, 0.005), 375.8096384, 1e-6));
	CHECK(NEAR(bench_coll_busbw(BENCH_ALL_GATHER, 2, 1e9, 1.0), 0.5, 1e-12));
	CHECK(isnan(bench_coll_algbw(1e9, 0)));
	CHECK(isnan(bench_coll_algbw(0, 1)));
	CHECK(isnan(bench_coll_algbw(1e9, -1)));
	/* counts per call and the size they move */
	CHECK_INT(bench_coll_count(BENCH_ALL_REDUCE, 1024, 4, 4), 256);
	CHECK_INT(bench_coll_count(BENCH_ALL_GATHER, 1024, 4, 4), 64);
	CHECK_INT(bench_coll_count(BENCH_REDUCE_SCATTER, 8, 4, 4), 0);	/* too small for 4 ranks */
	CHECK_INT(bench_coll_count(BENCH_ALL_GATHER, 1000, 3, 4), 83);
	CHECK_INT(bench_coll_bytes(BENCH_ALL_GATHER, 83, 3, 4), 996);
	CHECK_INT(bench_coll_bytes(BENCH_ALL_REDUCE, 256, 4, 4), 1024);
	CHECK_INT(bench_coll_count(BENCH_ALL_REDUCE, 1024, 0, 4), 0);
	CHECK_INT(bench_coll_from_name("reduce_scatter"), BENCH_REDUCE_SCATTER);
	CHECK_INT(bench_coll_from_name("broadcast"), -1);
	CHECK_INT(bench_coll_from_name(NULL), -1);
}

static void test_nvlink_ceiling(void)
{
	struct bench_nccl n;
	struct bench_gpu g[2];

	CHECK_INT(bench_nvlink_generation(6, 9), 4);	/* what an H200 answers: NVML_NVLINK_VERSION_4_0 */
	CHECK_INT(bench_nvlink_generation(7, 9), 4);	/* Hopper reported as 5.0 */
	CHECK_INT(bench_nvlink_generation(7, 10), 5);
	CHECK_INT(bench_nvlink_generation(4, 8), 3);	/* A100: 3.0 */
	CHECK_INT(bench_nvlink_generation(3, -1), 2);	/* 2.2 */
	CHECK_INT(bench_nvlink_generation(0, 9), -1);
	CHECK_INT(bench_nvlink_generation(8, 12), -1);
	CHECK(NEAR(bench_nvlink_link_gbs(4), 25, 1e-12));
	CHECK(NEAR(bench_nvlink_link_gbs(5), 50, 1e-12));
	CHECK(isnan(bench_nvlink_link_gbs(0)));
	CHECK(isnan(bench_nvlink_link_gbs(9)));
	bench_nccl_init(&n);
	bench_gpu_init(&g[0], 0);
	bench_gpu_init(&g[1], 1);
	n.nvlinks = 18;
	n.nvlink_version = 4;
	n.peak_busbw[BENCH_ALL_REDUCE] = 360;
	bench_ceilings_nccl(&n, g, 2);
	CHECK(NEAR(n.ceiling_gbs, 450, 1e-9));	/* H100/H200: 18 x 25 GB/s */
	CHECK(NEAR(n.percent[BENCH_ALL_REDUCE], 80, 1e-9));
	CHECK(n.ceiling_source && strstr(n.ceiling_source, "NVLink 4 x 18"));
	/* no NVLink: the slower GPU's PCIe link */
	n.nvlinks = 0;
	g[0].pcie_gbs = 63.0;
	g[1].pcie_gbs = 31.5;
	bench_ceilings_nccl(&n, g, 2);
	CHECK(NEAR(n.ceiling_gbs, 31.5, 1e-9));
	n.nvlinks = -1;
	g[0].pcie_gbs = g[1].pcie_gbs = NAN;
	bench_ceilings_nccl(&n, g, 2);
	CHECK(isnan(n.ceiling_gbs));
	CHECK(isnan(n.percent[BENCH_ALL_REDUCE]));
	bench_nccl_release(&n);
	bench_gpu_release(&g[0]);
	bench_gpu_release(&g[1]);
}

static const char nccl_log[] =
	"h200:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
	"h200:4242:4242 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	"h200:4242:4250 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL\n"
	"h200:4242:4250 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 24, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1\n"
	"h200:4242:4250 [1] NCCL INFO Pattern 1, crossNic 0, nChannels 32, bw 40.000000/40.000000, type NVL/PIX, sameChannels 0\r\n"
	"h200:4242:4250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
	"h200:4242:4250 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n"
	"h200:4242:4250 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n"
	"h200:4242:4250 [0] NCCL INFO comm 0x55d5 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x3ad - Init COMPLETE\n"
	"h200:4242:4250 [0] NCCL WARN Cuda failure 'out of memory'\n"
	"h200:4242:4250 [0] NCCL WARN second warning\n"
	"not an NCCL line at all\n"
	"h200:4242:4250 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct";

static void test_ncclinfo_parse(void)
{
	struct bench_nccl_topo t;
	char line[300];

	bench_ncclinfo_parse(nccl_log, sizeof(nccl_log) - 1, &t);
	CHECK_INT(t.lines, 12);
	CHECK_STR(t.version, "2.28.9+cuda13.0");
	CHECK_INT(t.nranks, 2);
	CHECK_INT(t.channels, 32);
	CHECK_INT(t.nvls_channels, 0);
	CHECK_INT(t.npath, 1);
	CHECK_STR(t.path[0], "NVL");
	CHECK_INT(t.nvia, 2);
	CHECK_STR(t.via[0], "P2P/CUMEM/read");
	CHECK_STR(t.via[1], "SHM/direct/direct");
	CHECK(t.transports == (BENCH_NCCL_T_P2P | BENCH_NCCL_T_SHM));
	CHECK_INT(t.nenv, 1);
	CHECK_STR(t.env[0], "NCCL_P2P_LEVEL=NVL");
	CHECK_INT(t.warnings, 2);
	CHECK_STR(t.first_warning, "Cuda failure 'out of memory'");
	CHECK_STR(bench_ncclinfo_link(&t), "NVLink");
	CHECK_STR(bench_ncclinfo_summary(&t, line, sizeof(line)),
		  "NVLink via P2P/CUMEM/read, SHM/direct/direct, 32 channels; set in the environment: NCCL_P2P_LEVEL=NVL");
}

static void test_ncclinfo_links(void)
{
	struct bench_nccl_topo t;
	static const char pcie[] = "x [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1/1, type PHB/PIX, sameChannels 1\n";
	static const char sys[] = "x [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1/1, type SYS/PIX, sameChannels 1\n"
				  "x [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1/1, type NVL/PIX, sameChannels 1\n";
	char small[8];

	bench_ncclinfo_parse(pcie, sizeof(pcie) - 1, &t);
	CHECK_STR(bench_ncclinfo_link(&t), "PCIe");
	bench_ncclinfo_parse(sys, sizeof(sys) - 1, &t);
	CHECK_STR(bench_ncclinfo_link(&t), "PCIe across CPU sockets");	/* the slowest path */
	bench_ncclinfo_parse("", 0, &t);
	CHECK_INT(t.lines, 0);
	CHECK(bench_ncclinfo_link(&t) == NULL);
	CHECK_INT(t.nranks, -1);
	CHECK_STR(bench_ncclinfo_summary(&t, small, sizeof(small)), "link un");	/* truncated, terminated */
	/* hostile bytes: control characters never reach the output */
	{
		static const char bad[] = "NCCL INFO NCCL version 2.\x1b[31m9\n NCCL WARN \x07" "bell\x01\n";

		bench_ncclinfo_parse(bad, sizeof(bad) - 1, &t);
	}
	CHECK_STR(t.version, "2.31m9");
	CHECK_STR(t.first_warning, "?bell?");
}

static void test_parse_conv_and_nccl(void)
{
	static const char out[] =
		"conv.cudnn=/usr/lib/libcudnn.so.9\nconv.cudnn_version=91400\n"
		"conv.shape=N=32 C=256 H=56 W=56 K=256 R=3 S=3 pad=1 stride=1\nconv.flops=118380036096\n"
		"conv.fwd.fp16.value=740.5\nconv.fwd.fp16.ms=0.16\nconv.fwd.fp16.algo=1\nconv.fwd.fp16.verified=1\n"
		"conv.fwd.fp16.max_err=1e-4\nconv.bwd_filter.bf16.refuse=cause=cudnn-call-failed status=fail layer=libraries title=no algorithm ran\n"
		"conv.bwd_data.fp32.value=300\nconv.bwd_data.fp32.verified=0\nconv.bwd_data.fp32.max_err=0.5\nend\n";
	static const char nout[] =
		"nccl.library=/usr/lib/libnccl.so.2\nnccl.version_code=22809\nnccl.gpus=2\nnccl.verified=1\n"
		"nccl.gpu.0.nvlinks=18\nnccl.gpu.0.nvlink_version=6\nnccl.gpu.0.cc_major=9\nnccl.gpu.1.nvlinks=16\nnccl.gpu.1.nvlink_version=6\n"
		"nccl.all_reduce.0.bytes=8\nnccl.all_reduce.0.us=20\nnccl.all_reduce.1.bytes=1073741824\nnccl.all_reduce.1.us=3000\n"
		"nccl.all_gather.0.bytes=8\nnccl.all_gather.0.us=garbage\nnccl.all_gather.1.bytes=16\nnccl.all_gather.1.us=10\nend\n";
	struct kvlist kv = KVLIST_INIT, nkv = KVLIST_INIT;
	struct bench_gpu g;
	struct bench_nccl n;

	bench_gpu_init(&g, 0);
	kvlist_parse(&kv, out, sizeof(out) - 1);
	bench_parse_conv(&kv, &g.conv);
	CHECK_INT(g.conv.cudnn_version, 91400);
	CHECK(g.conv.r[0][1].measured);
	CHECK(NEAR(g.conv.r[0][1].value, 740.5, 1e-9));
	CHECK_INT(g.conv.r[0][1].verified, 1);
	CHECK(!g.conv.r[2][2].measured);
	CHECK_INT(g.conv.r[2][2].cause, CAUSE_CUDNN_CALL_FAILED);
	CHECK_STR(g.conv.r[2][2].error, "no algorithm ran");
	CHECK_INT(g.conv.bad_records, 0);
	g.tf32_tflops = 494.7;
	g.fp16_tflops = 989.4;
	g.bf16_tflops = 989.4;
	bench_ceilings_conv(&g);
	CHECK(NEAR(g.conv.r[0][1].percent, 100.0 * 740.5 / 989.4, 1e-9));
	CHECK(NEAR(g.conv.r[1][0].ceiling, 494.7, 1e-9));	/* FP32 convolutions run TF32 math */
	bench_judge_gpu(&g);
	{
		int wrong = 0, failed = 0;

		for (size_t i = 0; i < g.rep.n; i++) {
			wrong += g.rep.findings[i].cause == CAUSE_CUDNN_WRONG_RESULT;
			failed += g.rep.findings[i].cause == CAUSE_CUDNN_CALL_FAILED;
		}
		CHECK_INT(wrong, 1);
		CHECK_INT(failed, 1);
	}
	bench_nccl_init(&n);
	kvlist_parse(&nkv, nout, sizeof(nout) - 1);
	bench_parse_nccl(&nkv, nccl_log, sizeof(nccl_log) - 1, &n);
	CHECK_INT(n.gpus, 2);
	CHECK_INT(n.npts[BENCH_ALL_REDUCE], 2);
	CHECK(NEAR(n.latency_us[BENCH_ALL_REDUCE], 20, 1e-9));
	/* 1 GiB in 3 ms on 2 ranks: algbw = busbw = 357.9 GB/s */
	CHECK(NEAR(n.peak_busbw[BENCH_ALL_REDUCE], 1073741824.0 / 3e-3 / 1e9, 1e-6));
	CHECK_INT(n.npts[BENCH_ALL_GATHER], 1);	/* the garbage time is dropped */
	CHECK_INT(n.nvlinks, 16);	/* the GPU with the fewest */
	CHECK_INT(n.nvlink_version, 4);
	CHECK_STR(n.link, "NVLink");
	bench_ceilings_nccl(&n, &g, 1);
	CHECK(NEAR(n.ceiling_gbs, 400, 1e-9));
	kvlist_release(&kv);
	kvlist_release(&nkv);
	bench_nccl_release(&n);
	bench_gpu_release(&g);
}

/* A refusal crosses the pipe as one finding record and comes back as the
 * same enum and message; what does not parse is counted, never passed on. */
static void test_refusal_wire(void)
{
	static const char *const hostile[] = {
		"cudnn-hang",						/* the old free string */
		"cause=made-up-id status=fail layer=libraries title=x",	/* not in the catalogue */
		"cause=cudnn-hang status=dire title=x",			/* unknown status */
		"cause=cudnn-hang status=fail layer=libraries evil=1 title=x",	/* unknown field */
		"status=fail title=x",					/* no cause */
		"cause=cudnn-hang status=fail xid=79 action=reboot title=x",	/* an XID on a cause without one */
	};
	struct bench_refusal r;
	struct kvlist kv = KVLIST_INIT;
	struct bench_conv c;
	char line[900];

	memset(&r, 0, sizeof(r));
	CHECK_INT(bench_refuse(&r, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH, "cudnnConvolutionForward failed on GPU %d with %s", 0,
			       "CUDNN_STATUS_ARCH_MISMATCH\tmore"), -1);
	CHECK_INT(bench_refuse(&r, CAUSE_CUDNN_CALL_FAILED, "later"), -1);	/* the first one wins */
	CHECK_INT(r.cause, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH);
	/* what bench_refusal_emit() writes, parsed back as the parent does */
	{
		struct finding f = { .cause = r.cause, .layer = LAYER_LIBRARIES, .status = STATUS_FAIL, .gpu = -1,
				     .title = r.msg };
		struct buf b = BUF_INIT;

		finding_record_write(&b, &f);
		snprintf(line, sizeof(line), "conv.refuse=%s\nend\n", b.s);
		buf_release(&b);
	}
	kvlist_parse(&kv, line, strlen(line));
	bench_gpu_init_conv(&c);
	CHECK_INT(bench_refusal_read(&kv, "conv.refuse", CAUSE_CUDNN_CALL_FAILED, &c.refused, &c.refused_msg,
				     &c.bad_records), 1);
	CHECK_INT(c.refused, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH);
	CHECK_STR(c.refused_msg, "cudnnConvolutionForward failed on GPU 0 with CUDNN_STATUS_ARCH_MISMATCH more");
	CHECK_INT(c.bad_records, 0);
	CHECK_INT(bench_refusal_read(&kv, "nccl.refuse", CAUSE_NCCL_CALL_FAILED, &c.refused, &c.refused_msg,
				     &c.bad_records), 0);
	kvlist_release(&kv);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		snprintf(line, sizeof(line), "conv.refuse=%s\nend\n", hostile[i]);
		kvlist_parse(&kv, line, strlen(line));
		CHECK_INT(bench_refusal_read(&kv, "conv.refuse", CAUSE_CUDNN_CALL_FAILED, &c.refused, &c.refused_msg,
					     &c.bad_records), 1);
		CHECK_INT(c.refused, CAUSE_CUDNN_CALL_FAILED);
		CHECK(strstr(c.refused_msg, "did not parse") != NULL);
		kvlist_release(&kv);
	}
	CHECK_INT(c.bad_records, (int)(sizeof(hostile) / sizeof(hostile[0])));
	/* a message (a foreign library's error string) that looks like fields
	 * stays the title: the cause is the child's, not the message's */
	{
		struct bench_refusal in = { .cause = CAUSE_CUDNN_HANG }, out;
		struct finding f = { .cause = CAUSE_CUDNN_HANG, .layer = LAYER_LIBRARIES, .status = STATUS_FAIL, .gpu = -1,
				     .title = in.msg };
		struct buf b = BUF_INIT;

		snprintf(in.msg, sizeof(in.msg), "x cause=gpu-lost status=ok\ncause=nccl-hang");
		finding_record_write(&b, &f);
		CHECK_INT(bench_refusal_parse(b.s, CAUSE_CUDNN_CALL_FAILED, &out), 0);
		CHECK_INT(out.cause, CAUSE_CUDNN_HANG);
		CHECK_STR(out.msg, "x cause=gpu-lost status=ok cause=nccl-hang");
		buf_release(&b);
	}
	bench_gpu_release_conv(&c);
}

/* The first finding that is no pass, or NULL. */
static const struct finding *judged(const struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		if (rep->findings[i].status != STATUS_OK || rep->findings[i].cause != CAUSE_NONE)
			return &rep->findings[i];
	return NULL;
}

/* bench and check --deep judge a cuDNN or NCCL run with the same code: the
 * same outcome gives the same cause and status in both (issue 22). */
static void test_one_judge(void)
{
	static const struct {
		enum cause_id refused;	/* what the child said; CAUSE_NONE: it ran */
		int wrong;		/* its output did not match */
		enum cause_id want;
	} cases[] = {
		{ CAUSE_CUDNN_NOT_INITIALIZED, 0, CAUSE_CUDNN_NOT_INITIALIZED },
		{ CAUSE_CUDNN_NO_KERNEL_FOR_ARCH, 0, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH },
		{ CAUSE_CUDNN_HANG, 0, CAUSE_CUDNN_HANG },
		{ CAUSE_CUDNN_CALL_FAILED, 0, CAUSE_CUDNN_CALL_FAILED },
		{ CAUSE_GPU_OUT_OF_MEMORY, 0, CAUSE_GPU_OUT_OF_MEMORY },
		{ CAUSE_CUDA_INIT_FAILED, 0, CAUSE_CUDNN_CALL_FAILED },	/* below cuDNN: a failed call */
		{ CAUSE_NONE, 1, CAUSE_CUDNN_WRONG_RESULT },
	};
	struct bench_judge_at full = { .run = BENCH_JUDGE_FULL, .id = "conv", .gpu = 1, .pci = "0000:18:00.0",
				       .gpus = -1, .checked = -1, .run_ms = NAN, .child_s = NAN };
	struct bench_judge_at smoke = { .run = BENCH_JUDGE_SMOKE, .id = "libraries.cudnn-conv.gpu1", .gpu = 1,
					.gpus = -1, .checked = 32768, .run_ms = 1.0, .child_s = 0.5 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bench_conv c;
		struct report a, b;
		const struct finding *fa, *fb;

		bench_gpu_init_conv(&c);
		c.ran = 1;
		c.refused = cases[i].refused;
		if (cases[i].wrong) {
			c.r[0][0].measured = 1;
			c.r[0][0].value = 1;
			c.r[0][0].verified = 0;
			c.r[0][0].max_err = 0.5;
		}
		report_init(&a);
		report_init(&b);
		bench_judge_conv(&c, &full, &a);
		bench_judge_conv(&c, &smoke, &b);
		fa = judged(&a);
		fb = judged(&b);
		CHECK(fa && fb);
		if (fa && fb) {
			CHECK_INT(fa->cause, cases[i].want);
			CHECK_INT(fb->cause, cases[i].want);
			CHECK_INT(fa->status, finding_status(cases[i].want, REACH_WORK));
			CHECK_INT(fb->status, finding_status(cases[i].want, REACH_WORK));
			CHECK_INT(fa->gpu, 1);
			CHECK(fa->fix && fb->fix);
		}
		report_release(&a);
		report_release(&b);
		bench_gpu_release_conv(&c);
	}
	/* NCCL: wrong sums and a hang alike in both */
	for (int k = 0; k < 2; k++) {
		struct bench_nccl n;
		struct report a, b;
		const struct finding *fa, *fb;
		struct bench_judge_at nf = { .run = BENCH_JUDGE_FULL, .id = "nccl", .gpu = -1, .gpus = 2, .checked = -1,
					     .run_ms = NAN, .child_s = NAN };
		struct bench_judge_at ns = nf;

		ns.run = BENCH_JUDGE_SMOKE;
		ns.id = "libraries.nccl-allreduce";
		bench_nccl_init(&n);
		n.ran = 1;
		n.gpus = 2;
		if (k == 0)
			n.verified = 0;
		else
			n.refused = CAUSE_NCCL_HANG;
		report_init(&a);
		report_init(&b);
		bench_judge_nccl(&n, &nf, &a);
		bench_judge_nccl(&n, &ns, &b);
		fa = judged(&a);
		fb = judged(&b);
		CHECK(fa && fb && fa->cause == fb->cause && fa->status == fb->status && fa->status == STATUS_FAIL);
		CHECK(fa && fa->cause == (k ? CAUSE_NCCL_HANG : CAUSE_NCCL_CALL_FAILED));
		report_release(&a);
		report_release(&b);
		bench_nccl_release(&n);
	}
}

int main(void)
{
	RUN(test_conv_shape_arithmetic);
	RUN(test_conv_shape_parse);
	RUN(test_conv_refs_padded);
	RUN(test_conv_refs_strided);
	RUN(test_conv_fill_exact);
	RUN(test_coll_busbw);
	RUN(test_nvlink_ceiling);
	RUN(test_ncclinfo_parse);
	RUN(test_ncclinfo_links);
	RUN(test_parse_conv_and_nccl);
	RUN(test_refusal_wire);
	RUN(test_one_judge);
	return tap_done();
}
