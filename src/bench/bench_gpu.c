/*
 * bench_gpu.c - measuring one GPU in the child; see bench_gpu.h.
 *
 * What makes the figures comparable with PyTorch's: pinned host memory
 * from cuMemAllocHost, every copy and product on one non-blocking stream
 * with the events recorded on that same stream, warm-ups before timing,
 * several operations per timed region for the short ones, the median of
 * the regions, sizes far beyond the L2, a 32 MiB cuBLAS workspace, and the
 * same math modes PyTorch uses (FP32: CUBLAS_COMPUTE_32F, i.e. no TF32;
 * TF32: CUBLAS_COMPUTE_32F_FAST_TF32 as with allow_tf32; FP16/BF16 in and
 * out with FP32 accumulation).  Inputs are random, never zeros.
 */
#include "bench/bench_gpu.h"
#include "bench/bench_refusal.h"
#include "bench/bench.h"
#include "bench/bench_cuda.h"
#include "bench/bench_numeric.h"
#include "bench/bench_pcie.h"
#include "bench/bench_plan.h"
#include "bench/bench_progress.h"
#include "core/child.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MIB ((size_t)1 << 20)
#define GIB (1024.0 * 1024.0 * 1024.0)
#define BG_SAMPLES 64
#define BG_OFFB 12345	/* B's offset into the input pattern, so B != A */

struct bg {
	const struct bench_gpu_opts *o;
	struct cu_api cu;
	struct cublas_api cb;
	cublasHandle_t blas;
	CUdevice dev;
	int ctx_retained;
	CUstream stream;
	CUevent ev0, ev1;
	void *pinned;
	void *pageable;
	CUdeviceptr d[3];
	CUdeviceptr ws;
	struct bench_plan plan;
	char bdf[16];
	struct bench_refusal refusal;
	/* the GEMM being timed */
	int gemm_type, gemm_compute, gemm_n;
	double link_gts;
	int link_width;
};

static void bg_emit_kind(enum bench_kind k, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bg_emit_kind(enum bench_kind k, const char *field, const char *fmt, ...)
{
	char key[96], val[1024];
	va_list ap;

	snprintf(key, sizeof(key), "result.%s.%s", bench_kind_info(k)->name, field);
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	kv_emit(key, "%s", val);
}

/* A failed driver call: out of memory is its own refusal, with the numbers. */
static int bg_cuda_fail(struct bg *g, CUresult rc, const char *what)
{
	char name[96];

	bench_cuda_errname(&g->cu, rc, name, sizeof(name));
	if (rc == GD_CUDA_ERROR_OUT_OF_MEMORY) {
		size_t fr = 0, tot = 0;

		if (g->cu.cuMemGetInfo && g->cu.cuMemGetInfo(&fr, &tot) == GD_CUDA_SUCCESS)
			return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "GPU %d ran out of memory part way: %s failed with %s (%.2f of %.2f GiB free now); another process may have taken memory meanwhile",
					 g->o->index, what, name, (double)fr / GIB, (double)tot / GIB);
		return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "GPU %d ran out of memory part way: %s failed with %s",
				 g->o->index, what, name);
	}
	return bench_refuse(&g->refusal, CAUSE_GPU_COMPUTE_FAILED, "%s failed on GPU %d with %s", what, g->o->index, name);
}

#define CK(g, call, what) do { \
	CUresult ck_rc = (call); \
	if (ck_rc != GD_CUDA_SUCCESS) \
		return bg_cuda_fail((g), ck_rc, (what)); \
} while (0)

static int bg_alloc(struct bg *g, CUdeviceptr *p, size_t bytes)
{
	char what[96];

	snprintf(what, sizeof(what), "cuMemAlloc_v2(%zu MiB)", bytes / MIB ? bytes / MIB : 1);
	CK(g, g->cu.cuMemAlloc(p, bytes), what);
	return 0;
}

static void bg_free_device(struct bg *g)
{
	for (int i = 0; i < 3; i++)
		if (g->d[i]) {
			g->cu.cuMemFree(g->d[i]);
			g->d[i] = 0;
		}
}

/* Issue one operation of kind k on the stream. */
static int bg_op(struct bg *g, enum bench_kind k)
{
	size_t bytes = g->plan.step[k].size;
	static const float one = 1.0f, zero = 0.0f;
	cublasStatus_t st;

	switch (k) {
	case BENCH_H2D_PINNED:
		CK(g, g->cu.cuMemcpyHtoDAsync(g->d[0], g->pinned, bytes, g->stream), "cuMemcpyHtoDAsync_v2 (pinned)");
		return 0;
	case BENCH_D2H_PINNED:
		CK(g, g->cu.cuMemcpyDtoHAsync(g->pinned, g->d[0], bytes, g->stream), "cuMemcpyDtoHAsync_v2 (pinned)");
		return 0;
	case BENCH_H2D_PAGEABLE:
		CK(g, g->cu.cuMemcpyHtoDAsync(g->d[0], g->pageable, bytes, g->stream), "cuMemcpyHtoDAsync_v2 (pageable)");
		return 0;
	case BENCH_D2H_PAGEABLE:
		CK(g, g->cu.cuMemcpyDtoHAsync(g->pageable, g->d[0], bytes, g->stream), "cuMemcpyDtoHAsync_v2 (pageable)");
		return 0;
	case BENCH_D2D:
		CK(g, g->cu.cuMemcpyDtoDAsync(g->d[1], g->d[0], bytes, g->stream), "cuMemcpyDtoDAsync_v2");
		return 0;
	default:
		/* Column-major C = A * B, no transposes: lda = ldb = ldc = n. */
		st = g->cb.cublasGemmEx(g->blas, GD_CUBLAS_OP_N, GD_CUBLAS_OP_N,
					g->gemm_n, g->gemm_n, g->gemm_n, &one,
					(const void *)(uintptr_t)g->d[0], g->gemm_type, g->gemm_n,
					(const void *)(uintptr_t)g->d[1], g->gemm_type, g->gemm_n,
					&zero, (void *)(uintptr_t)g->d[2], g->gemm_type, g->gemm_n,
					g->gemm_compute, GD_CUBLAS_GEMM_DEFAULT);
		if (st == GD_CUBLAS_STATUS_ALLOC_FAILED)
			return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "GPU %d ran out of memory part way: cublasGemmEx could not allocate (CUBLAS_STATUS_ALLOC_FAILED)", g->o->index);
		if (st != GD_CUBLAS_STATUS_SUCCESS)
			return bench_refuse(&g->refusal, CAUSE_GPU_COMPUTE_FAILED, "cublasGemmEx (%s, n=%d) failed on GPU %d with cuBLAS status %d",
					 bench_kind_info(k)->label, g->gemm_n, g->o->index, st);
		return 0;
	}
}

/* Warm up, then the median over reps of (region time / inner), in ms. */
static int bg_time(struct bg *g, enum bench_kind k, double *ms)
{
	const struct bench_step *st = &g->plan.step[k];
	double t[64];
	int reps = st->reps < 64 ? st->reps : 64;

	for (int w = 0; w < st->warmup; w++)
		if (bg_op(g, k) < 0)
			return -1;
	for (int r = 0; r < reps; r++) {
		float f = 0;

		CK(g, g->cu.cuEventRecord(g->ev0, g->stream), "cuEventRecord");
		for (int i = 0; i < st->inner; i++)
			if (bg_op(g, k) < 0)
				return -1;
		CK(g, g->cu.cuEventRecord(g->ev1, g->stream), "cuEventRecord");
		/* The link's speed while a copy is in flight: an idle GPU
		 * lowers it to save power, so an idle reading proves little. */
		if (k == BENCH_H2D_PINNED && r == 0 && g->bdf[0])
			bench_pcie_read_current(g->o->root, g->bdf, &g->link_gts, &g->link_width);
		CK(g, g->cu.cuEventSynchronize(g->ev1), "cuEventSynchronize");
		CK(g, g->cu.cuEventElapsedTime(&f, g->ev0, g->ev1), "cuEventElapsedTime");
		t[r] = (double)f / st->inner;
	}
	*ms = bench_median(t, (size_t)reps);
	if (!(*ms > 0))
		return bench_refuse(&g->refusal, CAUSE_GPU_COMPUTE_FAILED, "CUDA events measured no time for %s on GPU %d",
				 bench_kind_info(k)->label, g->o->index);
	return 0;
}

static int bg_copies(struct bg *g)
{
	size_t dbytes = g->plan.step[BENCH_D2D].size;
	size_t pbytes = g->plan.step[BENCH_H2D_PINNED].size;

	if (bg_alloc(g, &g->d[0], dbytes > pbytes ? dbytes : pbytes) < 0 ||
	    bg_alloc(g, &g->d[1], dbytes) < 0)
		return -1;
	CK(g, g->cu.cuMemsetD8(g->d[0], 0x5a, dbytes > pbytes ? dbytes : pbytes), "cuMemsetD8_v2");
	for (int k = BENCH_H2D_PINNED; k <= BENCH_D2D; k++) {
		const struct bench_step *st = &g->plan.step[k];
		double ms, gbs;

		bench_progress("gpudoctor bench: GPU %d: %s copies (%zu MiB)...", g->o->index,
			       bench_kind_info(k)->label, st->size / MIB);
		if (bg_time(g, k, &ms) < 0)
			return -1;
		gbs = (double)st->size * (k == BENCH_D2D ? 2 : 1) / (ms / 1e3) / 1e9;
		bg_emit_kind(k, "value", "%.3f", gbs);
		bg_emit_kind(k, "size", "%zu", st->size);
		if (k == BENCH_D2D)
			bg_emit_kind(k, "method", "cuMemcpyDtoDAsync_v2 of %zu MiB on a non-blocking stream, timed with CUDA events; counts bytes read plus bytes written (2 x size / time), as the datasheet memory bandwidth and PyTorch-style copy benchmarks do; median of %d regions of %d copies after %d warm-ups",
				     st->size / MIB, st->reps, st->inner, st->warmup);
		else
			bg_emit_kind(k, "method", "%s of %zu MiB %s %s memory (%s) on a non-blocking stream, timed with CUDA events; median of %d regions of %d copy after %d warm-ups",
				     k == BENCH_H2D_PINNED || k == BENCH_H2D_PAGEABLE ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2",
				     st->size / MIB,
				     k == BENCH_H2D_PINNED || k == BENCH_H2D_PAGEABLE ? "from" : "to",
				     k <= BENCH_D2H_PINNED ? "pinned" : "pageable",
				     k <= BENCH_D2H_PINNED ? "cuMemAllocHost_v2" : "malloc",
				     st->reps, st->inner, st->warmup);
	}
	if (!isnan(g->link_gts))
		kv_emit("link.load_gts", "%.1f", g->link_gts);
	if (g->link_width > 0)
		kv_emit("link.load_width", "%d", g->link_width);
	bg_free_device(g);
	return 0;
}

static int bg_blas_open(struct bg *g, struct err *e)
{
	const char *names[40];
	size_t n = 0;
	struct err one = ERR_INIT;

	names[n++] = "libcublas.so.13";
	names[n++] = "libcublas.so.12";
	names[n++] = "libcublas.so.11";
	for (const char *const *c = g->o->cublas; c && *c && n < 39; c++)
		names[n++] = *c;
	names[n] = NULL;
	/* A cuBLAS newer than the driver loads but cannot create a handle:
	 * then the next candidate gets its chance. */
	for (size_t i = 0; i < n; i++) {
		const char *single[2] = { names[i], NULL };
		cublasStatus_t st;

		if (bench_cublas_load(single, &g->cb, &one) < 0) {
			if (i == 0)
				err_set(e, "%s", one.msg);
			continue;
		}
		st = g->cb.cublasCreate(&g->blas);
		if (st == GD_CUBLAS_STATUS_SUCCESS)
			return 0;
		err_set(e, "cublasCreate_v2 from %s failed with cuBLAS status %d",
			g->cb.path ? g->cb.path : names[i], st);
		g->blas = NULL;
		bench_cublas_unload(&g->cb);
	}
	if (!e || !e->msg[0])
		err_set(e, "no cuBLAS found (libcublas.so.13/.12/.11 and the paths given)");
	return -1;
}

static int bg_gemm_one(struct bg *g, enum bench_kind k, float *tile)
{
	static const enum bench_prec precs[] = { BENCH_PREC_FP32, BENCH_PREC_TF32, BENCH_PREC_FP16, BENCH_PREC_BF16 };
	static const int types[] = { GD_CUDA_R_32F, GD_CUDA_R_32F, GD_CUDA_R_16F, GD_CUDA_R_16BF };
	static const char *tnames[] = { "CUDA_R_32F", "CUDA_R_32F", "CUDA_R_16F", "CUDA_R_16BF" };
	int pi = k - BENCH_GEMM_FP32;
	enum bench_prec prec = precs[pi];
	const struct bench_step *st = &g->plan.step[k];
	size_t n = st->size, es = bench_prec_size(prec), bytes = n * n * es;
	double ms, worst = 0, tol = bench_prec_tolerance(prec);
	uint64_t x = 0x243f6a8885a308d3ull ^ (uint64_t)k;

	bench_progress("gpudoctor bench: GPU %d: %s, %zux%zux%zu...", g->o->index,
		       bench_kind_info(k)->label, n, n, n);
	g->gemm_type = types[pi];
	g->gemm_compute = prec == BENCH_PREC_TF32 ? GD_CUBLAS_COMPUTE_32F_FAST_TF32 : GD_CUBLAS_COMPUTE_32F;
	g->gemm_n = (int)n;
	bench_tile_fill(tile, 0x9e3779b97f4a7c15ull + (uint64_t)k);
	bench_tile_round(tile, prec);
	for (int i = 0; i < 3; i++)
		if (bg_alloc(g, &g->d[i], bytes) < 0)
			return -1;
	bench_tile_expand(tile, prec, 0, g->pinned, n * n);
	CK(g, g->cu.cuMemcpyHtoD(g->d[0], g->pinned, bytes), "cuMemcpyHtoD_v2 (A)");
	bench_tile_expand(tile, prec, BG_OFFB, g->pinned, n * n);
	CK(g, g->cu.cuMemcpyHtoD(g->d[1], g->pinned, bytes), "cuMemcpyHtoD_v2 (B)");
	/* Poison C (0xff.. is NaN in every type) so an unwritten entry fails. */
	CK(g, g->cu.cuMemsetD8(g->d[2], 0xff, bytes), "cuMemsetD8_v2 (C)");
	if (bg_op(g, k) < 0)
		return -1;
	CK(g, g->cu.cuStreamSynchronize(g->stream), "cuStreamSynchronize");
	for (int s = 0; s < BG_SAMPLES; s++) {
		size_t i, j;
		unsigned char raw[4];
		double ref, scale, got, err;

		if (s == 0) {
			i = 0;
			j = 0;
		} else if (s == 1) {
			i = n - 1;
			j = n - 1;
		} else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			i = (size_t)(x % n);
			j = (size_t)((x >> 32) % n);
		}
		CK(g, g->cu.cuMemcpyDtoH(raw, g->d[2] + (i + j * n) * es, es), "cuMemcpyDtoH_v2 (C sample)");
		got = bench_elem_value(raw, prec, 0);
		ref = bench_ref_entry(tile, 0, BG_OFFB, n, i, j, &scale);
		err = bench_rel_err(got, ref, scale);
		if (err > worst)
			worst = err;
	}
	if (bg_time(g, k, &ms) < 0)
		return -1;
	bg_emit_kind(k, "value", "%.3f", 2.0 * (double)n * (double)n * (double)n / (ms / 1e3) / 1e12);
	bg_emit_kind(k, "size", "%zu", n);
	bg_emit_kind(k, "verified", "%d", worst <= tol);
	bg_emit_kind(k, "max_err", "%.3g", worst);
	bg_emit_kind(k, "method", "cublasGemmEx %zux%zux%zu, A, B and C %s, %s, column-major, no transposes, %zu MiB workspace, on a non-blocking stream, timed with CUDA events; 2n^3 flops; median of %d regions of %d products after %d warm-ups; %d sampled entries checked against a float64 CPU reference (worst relative error %.2g, tolerance %.0g)",
		     n, n, n, tnames[pi],
		     prec == BENCH_PREC_TF32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F",
		     g->plan.workspace_bytes / MIB, st->reps, st->inner, st->warmup, BG_SAMPLES, worst, tol);
	bg_free_device(g);
	return 0;
}

static int bg_gemms(struct bg *g)
{
	struct err e = ERR_INIT;
	float *tile;
	int rc = 0, ver = -1;

	bench_progress("gpudoctor bench: GPU %d: loading cuBLAS...", g->o->index);
	if (bg_blas_open(g, &e) < 0) {
		for (int k = BENCH_GEMM_FP32; k <= BENCH_GEMM_BF16; k++)
			bg_emit_kind(k, "error", "%s", e.msg);
		return 0;
	}
	if (g->cb.path)
		kv_emit("cublas", "%s", g->cb.path);
	if (g->cb.cublasGetVersion(g->blas, &ver) == GD_CUBLAS_STATUS_SUCCESS)
		kv_emit("cublas_version", "%d", ver);
	if (g->cb.cublasSetStream(g->blas, g->stream) != GD_CUBLAS_STATUS_SUCCESS)
		return bench_refuse(&g->refusal, CAUSE_GPU_COMPUTE_FAILED, "cublasSetStream_v2 failed on GPU %d", g->o->index);
	g->cb.cublasSetMathMode(g->blas, GD_CUBLAS_DEFAULT_MATH);
	/* PyTorch gives cuBLAS a 32 MiB workspace on Hopper; so do we. */
	if (g->cb.cublasSetWorkspace) {
		if (bg_alloc(g, &g->ws, g->plan.workspace_bytes) < 0)
			return -1;
		g->cb.cublasSetWorkspace(g->blas, (void *)(uintptr_t)g->ws, g->plan.workspace_bytes);
	}
	tile = xmalloc(BENCH_TILE * sizeof(float));
	for (int k = BENCH_GEMM_FP32; k <= BENCH_GEMM_BF16 && rc == 0; k++)
		rc = bg_gemm_one(g, k, tile);
	free(tile);
	return rc;
}

static int bg_device_info(struct bg *g)
{
	char name[256] = "", bus[64] = "";
	int v;

	CK(g, g->cu.cuDeviceGet(&g->dev, g->o->index), "cuDeviceGet");
	if (g->cu.cuDeviceGetName(name, sizeof(name), g->dev) == GD_CUDA_SUCCESS)
		kv_emit("name", "%s", name);
	if (g->cu.cuDeviceGetPCIBusId(bus, sizeof(bus), g->dev) == GD_CUDA_SUCCESS &&
	    bench_pcie_normalize_bdf(bus, g->bdf) == 0)
		kv_emit("pci", "%s", g->bdf);
	if (g->cu.cuDeviceGetAttribute(&v, GD_CU_ATTR_CC_MAJOR, g->dev) == GD_CUDA_SUCCESS) {
		int minor = 0;

		g->cu.cuDeviceGetAttribute(&minor, GD_CU_ATTR_CC_MINOR, g->dev);
		kv_emit("cc", "%d.%d", v, minor);
	}
	if (g->cu.cuDeviceGetAttribute(&v, GD_CU_ATTR_MULTIPROCESSOR_COUNT, g->dev) == GD_CUDA_SUCCESS)
		kv_emit("sms", "%d", v);
	if (g->cu.cuDeviceGetAttribute(&v, GD_CU_ATTR_CLOCK_RATE, g->dev) == GD_CUDA_SUCCESS)
		kv_emit("clock_khz", "%d", v);
	if (g->cu.cuDeviceGetAttribute(&v, GD_CU_ATTR_MEMORY_CLOCK_RATE, g->dev) == GD_CUDA_SUCCESS)
		kv_emit("mem_clock_khz", "%d", v);
	return 0;
}

static int bg_setup(struct bg *g)
{
	CUcontext ctx = NULL;
	size_t fr = 0, tot = 0;

	/* The primary context is the one cuBLAS's runtime picks up. */
	CK(g, g->cu.cuDevicePrimaryCtxRetain(&ctx, g->dev), "cuDevicePrimaryCtxRetain");
	g->ctx_retained = 1;
	CK(g, g->cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	CK(g, g->cu.cuMemGetInfo(&fr, &tot), "cuMemGetInfo_v2");
	kv_emit("mem_total", "%zu", tot);
	kv_emit("mem_free", "%zu", fr);
	if (fr < tot / 2)
		return bench_refuse(&g->refusal, CAUSE_GPU_MEMORY_HELD, "another process holds most of GPU %d's memory: %.1f of %.1f GiB in use, %.1f GiB free; the figures would be wrong and the run could starve it",
				 g->o->index, (double)(tot - fr) / GIB, (double)tot / GIB, (double)fr / GIB);
	if (bench_plan_make(fr, g->o->quick, &g->plan) < 0)
		return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "GPU %d has only %.1f MiB free, too little to measure", g->o->index,
				 (double)fr / MIB);
	CK(g, g->cu.cuStreamCreate(&g->stream, GD_CU_STREAM_NON_BLOCKING), "cuStreamCreate");
	CK(g, g->cu.cuEventCreate(&g->ev0, GD_CU_EVENT_DEFAULT), "cuEventCreate");
	CK(g, g->cu.cuEventCreate(&g->ev1, GD_CU_EVENT_DEFAULT), "cuEventCreate");
	CK(g, g->cu.cuMemAllocHost(&g->pinned, g->plan.pinned_bytes), "cuMemAllocHost_v2 (pinned host buffer)");
	/*
	 * Pageable memory aligned to 2 MiB with transparent huge pages asked for
	 * (the H200 VMs run THP in madvise mode).  With plain malloc() the median
	 * of 5 rounds of device-to-host pageable copies was 11.5 GB/s against
	 * PyTorch's 13.1; with this, 12.4 (ranges overlapping).  Still pageable:
	 * the driver stages it through its own pinned buffer.
	 */
	if (posix_memalign(&g->pageable, 2 * MIB, g->plan.pageable_bytes) != 0)
		g->pageable = NULL;
	if (!g->pageable)
		return bench_refuse(&g->refusal, CAUSE_GPU_OUT_OF_MEMORY, "allocating %zu MiB of pageable host memory failed",
				 g->plan.pageable_bytes / MIB);
	madvise(g->pageable, g->plan.pageable_bytes, MADV_HUGEPAGE);
	/* Touch every page now, or the first copy would time page faults. */
	memset(g->pageable, 0x5a, g->plan.pageable_bytes);
	memset(g->pinned, 0x5a, g->plan.pinned_bytes);
	return 0;
}

static void bg_cleanup(struct bg *g)
{
	if (g->blas)
		g->cb.cublasDestroy(g->blas);
	bg_free_device(g);
	if (g->ws)
		g->cu.cuMemFree(g->ws);
	if (g->ev0)
		g->cu.cuEventDestroy(g->ev0);
	if (g->ev1)
		g->cu.cuEventDestroy(g->ev1);
	if (g->stream)
		g->cu.cuStreamDestroy(g->stream);
	if (g->pinned)
		g->cu.cuMemFreeHost(g->pinned);
	free(g->pageable);
	if (g->ctx_retained)
		g->cu.cuDevicePrimaryCtxRelease(g->dev);
	bench_cublas_unload(&g->cb);
	bench_cuda_unload(&g->cu);
}

static int bg_init(struct bg *g)
{
	struct err e = ERR_INIT;
	CUresult rc;
	char name[96];
	int count = 0, ver = 0;

	if (bench_cuda_load(g->o->libcuda ? g->o->libcuda : "libcuda.so.1", &g->cu, &e) < 0)
		return bench_refuse(&g->refusal, CAUSE_LIBCUDA_MISSING, "no GPU can be used: %s", e.msg);
	if (g->cu.path)
		kv_emit("libcuda", "%s", g->cu.path);
	rc = g->cu.cuInit(0);
	if (rc == GD_CUDA_ERROR_STUB_LIBRARY)
		return bench_refuse(&g->refusal, CAUSE_LIBCUDA_STUB_ON_PATH, "cuInit failed with %s: %s is the toolkit's stub, not the driver",
				 bench_cuda_errname(&g->cu, rc, name, sizeof(name)), g->cu.path ? g->cu.path : "libcuda.so.1");
	if (rc == GD_CUDA_ERROR_NO_DEVICE)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "cuInit found no CUDA device (%s)",
				 bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (rc != GD_CUDA_SUCCESS)
		return bench_refuse(&g->refusal, CAUSE_CUDA_INIT_FAILED, "cuInit failed with %s; run 'gpudoctor check' to find out why",
				 bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (g->cu.cuDriverGetVersion(&ver) == GD_CUDA_SUCCESS)
		kv_emit("driver_cuda", "%d", ver);
	CK(g, g->cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
	kv_emit("gpu.count", "%d", count);
	if (count == 0)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "CUDA sees no GPU");
	if (g->o->index >= count)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "there is no GPU %d: CUDA sees %d GPU%s (0-%d)",
				 g->o->index, count, count == 1 ? "" : "s", count - 1);
	return 0;
}

int bench_gpu_measure(const struct bench_gpu_opts *o)
{
	struct bg g;
	double start = child_now();

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.link_gts = NAN;
	g.link_width = -1;
	kv_emit("index", "%d", o->index);
	kv_emit("quick", "%d", o->quick);
	bench_progress("gpudoctor bench: GPU %d: starting CUDA...", o->index);
	if (bg_init(&g) == 0 && bg_device_info(&g) == 0 && bg_setup(&g) == 0 &&
	    bg_copies(&g) == 0)
		bg_gemms(&g);
	bg_cleanup(&g);
	bench_refusal_emit(&g.refusal, "refuse");
	kv_emit("seconds", "%.3f", child_now() - start);
	return 0;
}
