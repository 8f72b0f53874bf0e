/*
 * bench_conv_gpu.c - cuDNN convolutions in the child; see bench_conv_gpu.h.
 *
 * What makes the figures comparable with PyTorch's: the same layout
 * (channels_last), math modes (TF32 allowed for FP32, tensor ops for
 * FP16/BF16, FP32 accumulation) and algorithm choice (the fastest measured
 * by cudnnFind*AlgorithmEx, with its math type, as cudnn.benchmark=True
 * does), all work on one non-blocking stream timed with CUDA events, warm-up
 * before timing, the median of several regions of several passes.
 */
#include "bench/bench_conv_gpu.h"
#include "bench/bench_refusal.h"
#include "bench/bench_conv.h"
#include "bench/bench_cudnn.h"
#include "bench/bench_numeric.h"
#include "bench/bench_progress.h"
#include "bench/bench.h"
#include "core/child.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)
#define GIB (1024.0 * 1024.0 * 1024.0)
#define CG_SAMPLES 48
#define CG_MAX_INNER 50
#define CG_REGION_MS 4.0

enum { CG_FP32, CG_FP16, CG_BF16, CG_NPRECS };

static const char *const prec_names[] = { "fp32", "fp16", "bf16" };
static const int prec_dtypes[] = { GD_CUDNN_DATA_FLOAT, GD_CUDNN_DATA_HALF, GD_CUDNN_DATA_BFLOAT16 };
/* Tolerances relative to the sum of |products|: the inputs are rounded to
 * the type before the reference sees them, so what is left is TF32's input
 * rounding for FP32, FP32 accumulation and the rounding of the output. */
static const enum bench_prec prec_numeric[] = { BENCH_PREC_TF32, BENCH_PREC_FP16, BENCH_PREC_BF16 };

struct cg {
	const struct bench_conv_gpu_opts *o;
	struct cu_api cu;
	struct cudnn_api dn;
	cudnnHandle_t h;
	CUdevice dev;
	int ctx_retained;
	CUstream stream;
	CUevent ev0, ev1;
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	CUdeviceptr x, w, y, dy, dx, dw, ws;
	size_t ws_bytes;
	struct bench_conv_shape s;
	float *hx, *hw, *hdy;		/* the inputs as the GPU sees them (rounded to prec) */
	float *mx, *mw, *mdy;		/* full-precision masters (timed runs) */
	void *stage;
	int prec;
	struct bench_refusal refusal;
	int refused_by_cudnn;	/* the refusal is cuDNN's own: it ends one direction, not the run */
};

static void cg_emit(struct cg *g, int dir, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cg_emit(struct cg *g, int dir, const char *field, const char *fmt, ...)
{
	char key[96], val[1024];
	va_list ap;

	snprintf(key, sizeof(key), "conv.%s.%s.%s", bench_conv_dir_name(dir), prec_names[g->prec], field);
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	kv_emit(key, "%s", val);
}

static int cg_cuda(struct cg *g, CUresult rc, const char *what)
{
	char name[96];

	if (rc == GD_CUDA_SUCCESS)
		return 0;
	bench_cuda_errname(&g->cu, rc, name, sizeof(name));
	if (rc == GD_CUDA_ERROR_OUT_OF_MEMORY)
		return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "%s failed on GPU %d with %s", what, g->o->index, name);
	return bench_refuse(&g->refusal, CAUSE_GPU_COMPUTE_FAILED, "%s failed on GPU %d with %s", what, g->o->index, name);
}

/* The cause a failed cuDNN call stands for, marked as cuDNN's own.  A kernel missing for this GPU
 * shows as ARCH_MISMATCH, or as an execution failure whose message carries
 * the runtime's "no kernel image is available for execution on the device". */
static enum cause_id cg_status_cause(struct cg *g, cudnnStatus_t st, const char *msg)
{
	g->refused_by_cudnn = 1;
	if (st == GD_CUDNN_STATUS_NOT_INITIALIZED)
		return CAUSE_CUDNN_NOT_INITIALIZED;
	if (st == GD_CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH || (msg && strstr(msg, "no kernel image")))
		return CAUSE_CUDNN_NO_KERNEL_FOR_ARCH;
	return CAUSE_CUDNN_CALL_FAILED;
}

static int cg_dnn(struct cg *g, cudnnStatus_t st, const char *what)
{
	char name[400];

	if (st == GD_CUDNN_STATUS_SUCCESS)
		return 0;
	bench_cudnn_errname(&g->dn, st, name, sizeof(name));
	return bench_refuse(&g->refusal, cg_status_cause(g, st, name), "%s failed on GPU %d with %s", what, g->o->index, name);
}

static int cg_alloc(struct cg *g, CUdeviceptr *p, size_t bytes)
{
	char what[96];

	snprintf(what, sizeof(what), "cuMemAlloc_v2(%zu MiB)", bytes / MIB ? bytes / MIB : 1);
	return cg_cuda(g, g->cu.cuMemAlloc(p, bytes), what);
}

static size_t cg_esize(int prec)
{
	return prec == CG_FP32 ? 4 : 2;
}

static int cg_upload(struct cg *g, CUdeviceptr dst, const float *src, size_t n)
{
	uint16_t *h = g->stage;

	if (g->prec == CG_FP32)
		return cg_cuda(g, g->cu.cuMemcpyHtoD(dst, src, n * 4), "cuMemcpyHtoD_v2 (input)");
	for (size_t i = 0; i < n; i++)
		h[i] = g->prec == CG_FP16 ? bench_f32_to_f16(src[i]) : bench_f32_to_bf16(src[i]);
	return cg_cuda(g, g->cu.cuMemcpyHtoD(dst, h, n * 2), "cuMemcpyHtoD_v2 (input)");
}

static int cg_op(struct cg *g, int dir, int algo)
{
	static const float one = 1.0f, zero = 0.0f;
	void *x = (void *)(uintptr_t)g->x, *w = (void *)(uintptr_t)g->w, *ws = (void *)(uintptr_t)g->ws;
	void *y = (void *)(uintptr_t)g->y, *dy = (void *)(uintptr_t)g->dy;
	void *dx = (void *)(uintptr_t)g->dx, *dw = (void *)(uintptr_t)g->dw;

	switch (dir) {
	case BENCH_CONV_FWD:
		return cg_dnn(g, g->dn.cudnnConvolutionForward(g->h, &one, g->xd, x, g->wd, w, g->cd, algo, ws,
							       g->ws_bytes, &zero, g->yd, y), "cudnnConvolutionForward");
	case BENCH_CONV_BWD_DATA:
		return cg_dnn(g, g->dn.cudnnConvolutionBackwardData(g->h, &one, g->wd, w, g->yd, dy, g->cd, algo, ws,
								    g->ws_bytes, &zero, g->xd, dx), "cudnnConvolutionBackwardData");
	default:
		return cg_dnn(g, g->dn.cudnnConvolutionBackwardFilter(g->h, &one, g->xd, x, g->yd, dy, g->cd, algo, ws,
								      g->ws_bytes, &zero, g->wd, dw), "cudnnConvolutionBackwardFilter");
	}
}

/* The fastest algorithm cuDNN measured, or -1 (and the refusal set). */
static int cg_find(struct cg *g, int dir, struct cudnn_perf *best)
{
	struct cudnn_perf perf[8];
	void *x = (void *)(uintptr_t)g->x, *w = (void *)(uintptr_t)g->w, *ws = (void *)(uintptr_t)g->ws;
	void *y = (void *)(uintptr_t)g->y, *dy = (void *)(uintptr_t)g->dy;
	void *dx = (void *)(uintptr_t)g->dx, *dw = (void *)(uintptr_t)g->dw;
	int ret = 0;
	cudnnStatus_t st;

	memset(perf, 0, sizeof(perf));
	if (dir == BENCH_CONV_FWD)
		st = g->dn.cudnnFindConvolutionForwardAlgorithmEx(g->h, g->xd, x, g->wd, w, g->cd, g->yd, y,
								  GD_CUDNN_FWD_ALGO_COUNT, &ret, perf, ws, g->ws_bytes);
	else if (dir == BENCH_CONV_BWD_DATA)
		st = g->dn.cudnnFindConvolutionBackwardDataAlgorithmEx(g->h, g->wd, w, g->yd, dy, g->cd, g->xd, dx,
								       GD_CUDNN_BWD_DATA_ALGO_COUNT, &ret, perf, ws, g->ws_bytes);
	else
		st = g->dn.cudnnFindConvolutionBackwardFilterAlgorithmEx(g->h, g->xd, x, g->yd, dy, g->cd, g->wd, dw,
									 GD_CUDNN_BWD_FILTER_ALGO_COUNT, &ret, perf, ws, g->ws_bytes);
	if (cg_dnn(g, st, dir == BENCH_CONV_FWD ? "cudnnFindConvolutionForwardAlgorithmEx" :
		   dir == BENCH_CONV_BWD_DATA ? "cudnnFindConvolutionBackwardDataAlgorithmEx" :
		   "cudnnFindConvolutionBackwardFilterAlgorithmEx") < 0)
		return -1;
	/* Sorted fastest first; the first that ran is the one to use. */
	for (int i = 0; i < ret && i < 8; i++)
		if (perf[i].status == GD_CUDNN_STATUS_SUCCESS && perf[i].memory <= g->ws_bytes) {
			*best = perf[i];
			return 0;
		}
	{
		char name[400];

		bench_cudnn_errname(&g->dn, ret > 0 ? perf[0].status : GD_CUDNN_STATUS_EXECUTION_FAILED, name, sizeof(name));
		return bench_refuse(&g->refusal, cg_status_cause(g, ret > 0 ? perf[0].status : 0, name),
				 "no %s algorithm of cuDNN ran on GPU %d for %s: %d tried, the first said %s",
				 bench_conv_dir_label(dir), g->o->index, prec_names[g->prec], ret, name);
	}
}

/* One output element, and its reference. */
static double cg_sample(struct cg *g, int dir, uint64_t *rnd, int s, double *ref, double *scale, size_t *idx)
{
	const struct bench_conv_shape *sh = &g->s;
	int P = bench_conv_out_h(sh), Q = bench_conv_out_w(sh);
	int d0, d1, d2, d3, lim[4];
	size_t index;
	unsigned char raw[4];
	CUdeviceptr base;

	if (dir == BENCH_CONV_FWD) {
		lim[0] = sh->n; lim[1] = P; lim[2] = Q; lim[3] = sh->k;
	} else if (dir == BENCH_CONV_BWD_DATA) {
		lim[0] = sh->n; lim[1] = sh->h; lim[2] = sh->w; lim[3] = sh->c;
	} else {
		lim[0] = sh->k; lim[1] = sh->r; lim[2] = sh->s; lim[3] = sh->c;
	}
	if (s == 0) {
		d0 = d1 = d2 = d3 = 0;
	} else if (s == 1) {
		d0 = lim[0] - 1; d1 = lim[1] - 1; d2 = lim[2] - 1; d3 = lim[3] - 1;
	} else {
		uint64_t x = *rnd;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		*rnd = x;
		d0 = (int)(x % (uint64_t)lim[0]);
		d1 = (int)((x >> 16) % (uint64_t)lim[1]);
		d2 = (int)((x >> 32) % (uint64_t)lim[2]);
		d3 = (int)((x >> 48) % (uint64_t)lim[3]);
	}
	index = (((size_t)d0 * (size_t)lim[1] + (size_t)d1) * (size_t)lim[2] + (size_t)d2) * (size_t)lim[3] + (size_t)d3;
	if (dir == BENCH_CONV_FWD) {
		*ref = bench_conv_ref_fwd(sh, g->hx, g->hw, d0, d1, d2, d3, scale);
		base = g->y;
	} else if (dir == BENCH_CONV_BWD_DATA) {
		*ref = bench_conv_ref_bwd_data(sh, g->hdy, g->hw, d0, d1, d2, d3, scale);
		base = g->dx;
	} else {
		*ref = bench_conv_ref_bwd_filter(sh, g->hx, g->hdy, d0, d1, d2, d3, scale);
		base = g->dw;
	}
	*idx = index;
	if (cg_cuda(g, g->cu.cuMemcpyDtoH(raw, base + index * cg_esize(g->prec), cg_esize(g->prec)),
		    "cuMemcpyDtoH_v2 (output sample)") < 0)
		return NAN;
	return bench_elem_value(raw, prec_numeric[g->prec], 0);
}

static int cg_verify(struct cg *g, int dir, int samples, double *worst)
{
	uint64_t rnd = 0x2545f4914f6cdd1dull ^ (uint64_t)(dir * 7 + g->prec);

	*worst = 0;
	for (int s = 0; s < samples; s++) {
		double ref, scale, got, err;
		size_t idx;

		got = cg_sample(g, dir, &rnd, s, &ref, &scale, &idx);
		if (g->refusal.cause != CAUSE_NONE)
			return -1;
		err = bench_rel_err(got, ref, scale);
		if (err > *worst)
			*worst = err;
	}
	return 0;
}

static int cg_time(struct cg *g, int dir, int algo, double *ms_out)
{
	double med[9];
	int regions = g->o->quick ? 3 : 7, inner;
	float ms = 0;

	/* Warm-up, and one timed pass to size the regions. */
	for (int i = 0; i < 2; i++)
		if (cg_op(g, dir, algo) < 0)
			return -1;
	if (cg_cuda(g, g->cu.cuEventRecord(g->ev0, g->stream), "cuEventRecord") < 0 || cg_op(g, dir, algo) < 0 ||
	    cg_cuda(g, g->cu.cuEventRecord(g->ev1, g->stream), "cuEventRecord") < 0 ||
	    cg_cuda(g, g->cu.cuEventSynchronize(g->ev1), "cuEventSynchronize") < 0 ||
	    cg_cuda(g, g->cu.cuEventElapsedTime(&ms, g->ev0, g->ev1), "cuEventElapsedTime") < 0)
		return -1;
	inner = ms > 0 ? (int)ceil(CG_REGION_MS / ms) : CG_MAX_INNER;
	if (inner < 1)
		inner = 1;
	if (inner > CG_MAX_INNER)
		inner = CG_MAX_INNER;
	for (int r = 0; r < regions; r++) {
		if (cg_cuda(g, g->cu.cuEventRecord(g->ev0, g->stream), "cuEventRecord") < 0)
			return -1;
		for (int i = 0; i < inner; i++)
			if (cg_op(g, dir, algo) < 0)
				return -1;
		if (cg_cuda(g, g->cu.cuEventRecord(g->ev1, g->stream), "cuEventRecord") < 0 ||
		    cg_cuda(g, g->cu.cuEventSynchronize(g->ev1), "cuEventSynchronize") < 0 ||
		    cg_cuda(g, g->cu.cuEventElapsedTime(&ms, g->ev0, g->ev1), "cuEventElapsedTime") < 0)
			return -1;
		med[r] = ms / inner;
	}
	*ms_out = bench_median(med, (size_t)regions);
	cg_emit(g, dir, "timing", "median of %d regions of %d passes after 3 warm-ups", regions, inner);
	return 0;
}

static int cg_direction(struct cg *g, int dir)
{
	struct cudnn_perf best = { 0 };
	double ms = NAN, worst = 0, tol = bench_prec_tolerance(prec_numeric[g->prec]);

	bench_progress("gpudoctor bench: GPU %d: cuDNN %s %s...", g->o->index, bench_conv_dir_label(dir), prec_names[g->prec]);
	if (cg_find(g, dir, &best) < 0)
		return -1;
	if (cg_dnn(g, g->dn.cudnnSetConvolutionMathType(g->cd, best.math_type), "cudnnSetConvolutionMathType") < 0)
		return -1;
	/* Poison the output so an unwritten entry fails the check. */
	if (cg_cuda(g, g->cu.cuMemsetD8(dir == BENCH_CONV_FWD ? g->y : dir == BENCH_CONV_BWD_DATA ? g->dx : g->dw, 0xff,
					(dir == BENCH_CONV_FWD ? bench_conv_y_elems(&g->s) :
					 dir == BENCH_CONV_BWD_DATA ? bench_conv_x_elems(&g->s) :
					 bench_conv_w_elems(&g->s)) * cg_esize(g->prec)), "cuMemsetD8_v2") < 0 ||
	    /* The memset ran on the legacy stream, which a non-blocking stream
	     * does not wait for. */
	    cg_cuda(g, g->cu.cuCtxSynchronize(), "cuCtxSynchronize") < 0 ||
	    cg_op(g, dir, best.algo) < 0 ||
	    cg_cuda(g, g->cu.cuStreamSynchronize(g->stream), "cuStreamSynchronize") < 0 ||
	    cg_verify(g, dir, CG_SAMPLES, &worst) < 0 || cg_time(g, dir, best.algo, &ms) < 0)
		return -1;
	cg_emit(g, dir, "ms", "%.6g", ms);
	cg_emit(g, dir, "value", "%.3f", bench_conv_tflops(&g->s, ms));
	cg_emit(g, dir, "algo", "%d", best.algo);
	cg_emit(g, dir, "math", "%s", best.math_type == GD_CUDNN_TENSOR_OP_MATH ? "tensor-op" :
		best.math_type == 2 ? "tensor-op-allow-conversion" : best.math_type == 3 ? "fma" : "default");
	cg_emit(g, dir, "workspace", "%zu", best.memory);
	cg_emit(g, dir, "find_ms", "%.4f", (double)best.time);
	cg_emit(g, dir, "verified", "%d", worst <= tol);
	cg_emit(g, dir, "max_err", "%.3g", worst);
	return 0;
}

static int cg_descriptors(struct cg *g)
{
	const struct bench_conv_shape *s = &g->s;
	int dt = prec_dtypes[g->prec];

	if (!g->xd && (cg_dnn(g, g->dn.cudnnCreateTensorDescriptor(&g->xd), "cudnnCreateTensorDescriptor") < 0 ||
		       cg_dnn(g, g->dn.cudnnCreateTensorDescriptor(&g->yd), "cudnnCreateTensorDescriptor") < 0 ||
		       cg_dnn(g, g->dn.cudnnCreateFilterDescriptor(&g->wd), "cudnnCreateFilterDescriptor") < 0 ||
		       cg_dnn(g, g->dn.cudnnCreateConvolutionDescriptor(&g->cd), "cudnnCreateConvolutionDescriptor") < 0))
		return -1;
	if (cg_dnn(g, g->dn.cudnnSetTensor4dDescriptor(g->xd, GD_CUDNN_TENSOR_NHWC, dt, s->n, s->c, s->h, s->w),
		   "cudnnSetTensor4dDescriptor (x)") < 0 ||
	    cg_dnn(g, g->dn.cudnnSetTensor4dDescriptor(g->yd, GD_CUDNN_TENSOR_NHWC, dt, s->n, s->k,
						       bench_conv_out_h(s), bench_conv_out_w(s)),
		   "cudnnSetTensor4dDescriptor (y)") < 0 ||
	    cg_dnn(g, g->dn.cudnnSetFilter4dDescriptor(g->wd, dt, GD_CUDNN_TENSOR_NHWC, s->k, s->c, s->r, s->s),
		   "cudnnSetFilter4dDescriptor") < 0 ||
	    cg_dnn(g, g->dn.cudnnSetConvolution2dDescriptor(g->cd, s->pad, s->pad, s->stride, s->stride, 1, 1,
							    GD_CUDNN_CROSS_CORRELATION, GD_CUDNN_DATA_FLOAT),
		   "cudnnSetConvolution2dDescriptor") < 0 ||
	    cg_dnn(g, g->dn.cudnnSetConvolutionMathType(g->cd, g->prec == CG_FP32 ? GD_CUDNN_DEFAULT_MATH : GD_CUDNN_TENSOR_OP_MATH),
		   "cudnnSetConvolutionMathType") < 0)
		return -1;
	return 0;
}

static void cg_free_tensors(struct cg *g)
{
	CUdeviceptr *p[] = { &g->x, &g->w, &g->y, &g->dy, &g->dx, &g->dw };

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (*p[i]) {
			g->cu.cuMemFree(*p[i]);
			*p[i] = 0;
		}
}

/* What the GPU will hold: FP32 as is (TF32 math rounds inside, which the
 * tolerance allows for), FP16 and BF16 rounded to nearest even. */
static void cg_round(const float *src, float *dst, size_t n, int prec)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = prec == CG_FP32 ? src[i] : prec == CG_FP16 ? bench_f16_to_f32(bench_f32_to_f16(src[i]))
			: bench_bf16_to_f32(bench_f32_to_bf16(src[i]));
}

static int cg_precision(struct cg *g, int prec)
{
	size_t es = cg_esize(prec), nx = bench_conv_x_elems(&g->s), nw = bench_conv_w_elems(&g->s);
	size_t ny = bench_conv_y_elems(&g->s);

	g->prec = prec;
	cg_round(g->mx, g->hx, nx, prec);
	cg_round(g->mw, g->hw, nw, prec);
	cg_round(g->mdy, g->hdy, ny, prec);
	if (cg_descriptors(g) < 0 || cg_alloc(g, &g->x, nx * es) < 0 || cg_alloc(g, &g->w, nw * es) < 0 ||
	    cg_alloc(g, &g->y, ny * es) < 0 || cg_alloc(g, &g->dy, ny * es) < 0 ||
	    cg_alloc(g, &g->dx, nx * es) < 0 || cg_alloc(g, &g->dw, nw * es) < 0 ||
	    cg_upload(g, g->x, g->hx, nx) < 0 || cg_upload(g, g->w, g->hw, nw) < 0 || cg_upload(g, g->dy, g->hdy, ny) < 0 ||
	    /* A copy from pageable memory may still be in flight when it returns. */
	    cg_cuda(g, g->cu.cuCtxSynchronize(), "cuCtxSynchronize") < 0)
		return -1;
	for (int d = 0; d < BENCH_CONV_NDIRS; d++) {
		if (cg_direction(g, d) < 0) {
			char key[96];

			/* A direction that cuDNN cannot run is a result, not the end
			 * of the run; a failing driver is. */
			if (!g->refused_by_cudnn)
				return -1;
			snprintf(key, sizeof(key), "conv.%s.%s.refuse", bench_conv_dir_name(d), prec_names[g->prec]);
			bench_refusal_emit(&g->refusal, key);
			g->refusal.cause = CAUSE_NONE;
			g->refused_by_cudnn = 0;
		}
	}
	cg_free_tensors(g);
	return 0;
}

/* check --deep: one small forward FP32 convolution with a fixed algorithm,
 * every output checked. */
static int cg_smoke(struct cg *g)
{
	size_t nx = bench_conv_x_elems(&g->s), nw = bench_conv_w_elems(&g->s), ny = bench_conv_y_elems(&g->s);
	double worst = 0, t0 = child_now();
	float *out;
	int algo = GD_CUDNN_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;

	g->prec = CG_FP32;
	if (cg_descriptors(g) < 0 ||
	    cg_dnn(g, g->dn.cudnnGetConvolutionForwardWorkspaceSize(g->h, g->xd, g->wd, g->cd, g->yd, algo, &g->ws_bytes),
		   "cudnnGetConvolutionForwardWorkspaceSize") < 0 ||
	    (g->ws_bytes && cg_alloc(g, &g->ws, g->ws_bytes) < 0) ||
	    cg_alloc(g, &g->x, nx * 4) < 0 || cg_alloc(g, &g->w, nw * 4) < 0 || cg_alloc(g, &g->y, ny * 4) < 0 ||
	    cg_upload(g, g->x, g->hx, nx) < 0 || cg_upload(g, g->w, g->hw, nw) < 0 ||
	    cg_cuda(g, g->cu.cuMemsetD8(g->y, 0xff, ny * 4), "cuMemsetD8_v2") < 0 ||
	    cg_cuda(g, g->cu.cuCtxSynchronize(), "cuCtxSynchronize") < 0 ||
	    cg_op(g, BENCH_CONV_FWD, algo) < 0 ||
	    cg_cuda(g, g->cu.cuStreamSynchronize(g->stream), "cuStreamSynchronize") < 0)
		return -1;
	out = xmalloc(ny * sizeof(float));
	if (cg_cuda(g, g->cu.cuMemcpyDtoH(out, g->y, ny * 4), "cuMemcpyDtoH_v2 (output)") < 0) {
		free(out);
		return -1;
	}
	{
		const struct bench_conv_shape *s = &g->s;
		size_t i = 0;

		for (int n = 0; n < s->n; n++)
			for (int p = 0; p < bench_conv_out_h(s); p++)
				for (int q = 0; q < bench_conv_out_w(s); q++)
					for (int k = 0; k < s->k; k++, i++) {
						double scale, ref = bench_conv_ref_fwd(s, g->hx, g->hw, n, p, q, k, &scale);
						double err = bench_rel_err(out[i], ref, scale);

						if (err > worst)
							worst = err;
					}
	}
	free(out);
	cg_emit(g, BENCH_CONV_FWD, "verified", "%d", worst <= bench_prec_tolerance(BENCH_PREC_TF32));
	cg_emit(g, BENCH_CONV_FWD, "max_err", "%.3g", worst);
	cg_emit(g, BENCH_CONV_FWD, "checked", "%zu", ny);
	cg_emit(g, BENCH_CONV_FWD, "algo", "%d", algo);
	kv_emit("conv.smoke_ms", "%.3f", (child_now() - t0) * 1e3);
	return 0;
}

static int cg_cuda_init(struct cg *g)
{
	struct err e = ERR_INIT;
	CUresult rc;
	char name[96];
	int count = 0;

	if (bench_cuda_load(g->o->libcuda ? g->o->libcuda : "libcuda.so.1", &g->cu, &e) < 0)
		return bench_refuse(&g->refusal, CAUSE_LIBCUDA_MISSING, "no GPU can be used: %s", e.msg);
	rc = g->cu.cuInit(0);
	if (rc == GD_CUDA_ERROR_STUB_LIBRARY)
		return bench_refuse(&g->refusal, CAUSE_LIBCUDA_STUB_ON_PATH, "cuInit failed with %s", bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (rc == GD_CUDA_ERROR_NO_DEVICE)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "cuInit found no CUDA device (%s)", bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (rc != GD_CUDA_SUCCESS)
		return bench_refuse(&g->refusal, CAUSE_CUDA_INIT_FAILED, "cuInit failed with %s", bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (cg_cuda(g, g->cu.cuDeviceGetCount(&count), "cuDeviceGetCount") < 0)
		return -1;
	kv_emit("conv.gpus", "%d", count);
	if (g->o->index >= count)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "there is no GPU %d: CUDA sees %d", g->o->index, count);
	return 0;
}

static int cg_setup(struct cg *g)
{
	CUcontext ctx = NULL;
	size_t fr = 0, tot = 0;

	if (cg_cuda(g, g->cu.cuDeviceGet(&g->dev, g->o->index), "cuDeviceGet") < 0 ||
	    cg_cuda(g, g->cu.cuDevicePrimaryCtxRetain(&ctx, g->dev), "cuDevicePrimaryCtxRetain") < 0)
		return -1;
	g->ctx_retained = 1;
	if (cg_cuda(g, g->cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent") < 0 ||
	    cg_cuda(g, g->cu.cuMemGetInfo(&fr, &tot), "cuMemGetInfo_v2") < 0)
		return -1;
	/* cudnnCreate is the first cuDNN call that needs the GPU: the place
	 * where a cuDNN that cannot use this driver or GPU says so. */
	if (cg_dnn(g, g->dn.cudnnCreate(&g->h), "cudnnCreate") < 0)
		return -1;
	if (cg_cuda(g, g->cu.cuStreamCreate(&g->stream, GD_CU_STREAM_NON_BLOCKING), "cuStreamCreate") < 0 ||
	    cg_cuda(g, g->cu.cuEventCreate(&g->ev0, GD_CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
	    cg_cuda(g, g->cu.cuEventCreate(&g->ev1, GD_CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
	    cg_dnn(g, g->dn.cudnnSetStream(g->h, g->stream), "cudnnSetStream") < 0)
		return -1;
	if (!g->o->smoke) {
		/* A generous workspace, as PyTorch's benchmark mode offers what the
		 * caching allocator can give: 2 GiB, less on a small GPU. */
		g->ws_bytes = (size_t)2 << 30;
		if (g->ws_bytes > fr / 8)
			g->ws_bytes = fr / 8 & ~(MIB - 1);
		if (g->ws_bytes && cg_alloc(g, &g->ws, g->ws_bytes) < 0)
			return -1;
	}
	return 0;
}

static void cg_cleanup(struct cg *g)
{
	cg_free_tensors(g);
	if (g->ws)
		g->cu.cuMemFree(g->ws);
	if (g->xd)
		g->dn.cudnnDestroyTensorDescriptor(g->xd);
	if (g->yd)
		g->dn.cudnnDestroyTensorDescriptor(g->yd);
	if (g->wd)
		g->dn.cudnnDestroyFilterDescriptor(g->wd);
	if (g->cd)
		g->dn.cudnnDestroyConvolutionDescriptor(g->cd);
	if (g->h)
		g->dn.cudnnDestroy(g->h);
	if (g->ev0)
		g->cu.cuEventDestroy(g->ev0);
	if (g->ev1)
		g->cu.cuEventDestroy(g->ev1);
	if (g->stream)
		g->cu.cuStreamDestroy(g->stream);
	if (g->ctx_retained)
		g->cu.cuDevicePrimaryCtxRelease(g->dev);
	free(g->hx);
	free(g->hw);
	free(g->hdy);
	free(g->mx);
	free(g->mw);
	free(g->mdy);
	free(g->stage);
	bench_cudnn_unload(&g->dn);
	bench_cuda_unload(&g->cu);
}

static int cg_load_cudnn(struct cg *g)
{
	const char *names[40];
	size_t n = 0;
	struct err e = ERR_INIT;
	size_t ver;

	/* A cuDNN named on the command line is the one to measure: when it
	 * does not load, say so rather than measure another. */
	for (const char *const *c = g->o->cudnn; c && *c && n < 36; c++)
		names[n++] = *c;
	if (n == 0) {
		names[n++] = "libcudnn.so.9";
		names[n++] = "libcudnn.so.8";
	}
	names[n] = NULL;
	bench_progress("gpudoctor bench: GPU %d: loading cuDNN...", g->o->index);
	if (bench_cudnn_load(names, &g->dn, &e) < 0)
		return bench_refuse(&g->refusal, CAUSE_CUDNN_MISSING, "%s", e.msg);
	if (g->dn.path)
		kv_emit("conv.cudnn", "%s", g->dn.path);
	ver = g->dn.cudnnGetVersion();
	kv_emit("conv.cudnn_version", "%zu", ver);
	return 0;
}

int bench_conv_gpu_measure(const struct bench_conv_gpu_opts *o)
{
	static const struct bench_conv_shape resnet = BENCH_CONV_RESNET, smoke = BENCH_CONV_SMOKE;
	struct cg g;
	double start = child_now();

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.s = o->smoke ? smoke : resnet;
	if (o->shape && bench_conv_shape_parse(o->shape, &g.s) < 0) {
		/* cmd_bench refuses such a shape; a child started by hand says so. */
		bench_refuse(&g.refusal, CAUSE_CUDNN_CALL_FAILED,
			     "'%s' is not a convolution shape N,C,H,W,K[,R,S[,pad[,stride]]]", o->shape);
		bench_refusal_emit(&g.refusal, "conv.refuse");
		return 0;
	}
	kv_emit("conv.index", "%d", o->index);
	kv_emit("conv.shape", "N=%d C=%d H=%d W=%d K=%d R=%d S=%d pad=%d stride=%d", g.s.n, g.s.c, g.s.h, g.s.w,
		g.s.k, g.s.r, g.s.s, g.s.pad, g.s.stride);
	kv_emit("conv.flops", "%.0f", bench_conv_flops(&g.s));
	if (cg_load_cudnn(&g) == 0 && cg_cuda_init(&g) == 0 && cg_setup(&g) == 0) {
		size_t nx = bench_conv_x_elems(&g.s), ny = bench_conv_y_elems(&g.s), nw = bench_conv_w_elems(&g.s);

		g.hx = xmalloc(nx * sizeof(float));
		g.hw = xmalloc(nw * sizeof(float));
		g.hdy = xmalloc(ny * sizeof(float));
		g.stage = xmalloc((nx > ny ? nx : ny) * 2);
		if (o->smoke) {
			/* Exact in every type: the whole output is checked tightly. */
			bench_conv_fill(g.hx, nx, 0x1234567ull);
			bench_conv_fill(g.hw, nw, 0x7654321ull);
			cg_smoke(&g);
		} else {
			g.mx = xmalloc(nx * sizeof(float));
			g.mw = xmalloc(nw * sizeof(float));
			g.mdy = xmalloc(ny * sizeof(float));
			bench_conv_fill_full(g.mx, nx, 0x1234567ull);
			bench_conv_fill_full(g.mw, nw, 0x7654321ull);
			bench_conv_fill_full(g.mdy, ny, 0x0badcafeull);
			for (int p = 0; p < CG_NPRECS && cg_precision(&g, p) == 0; p++)
				;
		}
	}
	cg_cleanup(&g);
	bench_refusal_emit(&g.refusal, "conv.refuse");
	kv_emit("conv.seconds", "%.3f", child_now() - start);
	return 0;
}
