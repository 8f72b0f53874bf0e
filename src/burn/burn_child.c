/*
 * burn_child.c - child side of `gpudoctor burn`: one GPU under sustained,
 * verified load.
 *
 *	gpudoctor __probe burn INDEX --seconds S [--n N] [--mem-mib M]
 *	                        [--libcuda PATH] [--cublas PATH]...
 *
 * Each tick (about a second) does, on one stream:
 *   1. GEMMs: C = A * B, bf16 inputs, fp32 output and accumulation
 *      (cublasGemmEx), each product checked: y = C * x on the GPU
 *      (cublasSgemv, another algorithm) against r = A * (B * x), computed
 *      once in double precision on the CPU from the same bf16 values, and
 *      bit for bit against the first product's y.  A product that disagrees
 *      is silent data corruption: the row, the values and the tolerance are
 *      reported.  Coverage: x is in [0.5, 1.5], so every element of C weighs
 *      in y; a wrong element shows unless its error vanishes in the fp32
 *      rounding of the sum.
 *   2. memory test over the rest of the free memory (burn_kernels.cu):
 *      address-derived data, moving inversions, walking ones and zeros,
 *      one full sweep set per tick.
 *   3. host <-> device copies of pinned random data, compared byte for byte.
 * and prints key=value lines (core/kv.h) "tick.K.FIELD=V", then at the end
 * the totals and "end".  SIGTERM or SIGINT ends the run after the current
 * tick, with the totals: the parent sends it on Ctrl-C.
 */
#include "bench/bench_cuda.h"
#include "bench/bench_refusal.h"
#include "burn/burn.h"
#include "burn/burn_ptx.h"
#include "core/child.h"
#include "core/kv.h"
#include "knowledge/causes.h"
#include "probes/children.h"

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)
#define BURN_COPY_BYTES (64u << 20)
#define BURN_MAX_CUBLAS 32

static volatile sig_atomic_t burn_stop;

static void burn_on_signal(int sig)
{
	(void)sig;
	burn_stop = 1;
}

struct bc {
	struct cu_api cu;
	struct cublas_api cb;
	cublasHandle_t blas;
	CUdevice dev;
	int ctx_retained;
	CUstream stream;
	CUevent ev0, ev1;	/* the GEMM phase's GPU time */
	CUmodule mod;
	CUfunction fill, check;
	int n;
	CUdeviceptr a16, b16, c, x, y, mem, bad, ws, cbuf;
	size_t mem_words, ws_bytes;
	double *ref;		/* A * (B * x), double precision, host */
	float *yh;		/* pinned: y back on the host */
	float *yfirst;		/* y of the first product, for the bitwise check */
	unsigned char *h2d, *d2h;	/* pinned copy buffers */
	unsigned long long *badh;	/* pinned: the check kernel's counters */
	double tol;		/* calibrated tolerance of |y - ref| */
	double calib_max;
	int calibrated;
	unsigned long long gemms, bad_gemms, mem_bad, copy_bad, pass;
	int refused;
};

static int burn_refuse(struct bc *b, enum cause_id cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int burn_refuse(struct bc *b, enum cause_id cause, const char *fmt, ...)
{
	struct bench_refusal r = { .cause = cause };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r.msg, sizeof(r.msg), fmt, ap);
	va_end(ap);
	if (!b->refused)
		bench_refusal_emit(&r, "refuse");	/* the one wire format */
	b->refused = 1;
	return -1;
}

#define CK(b, call, what) do { \
	CUresult rc_ = (call); \
	if (rc_ != GD_CUDA_SUCCESS) { \
		char nm_[96]; \
		return burn_refuse((b), rc_ == GD_CUDA_ERROR_OUT_OF_MEMORY ? CAUSE_GPU_OUT_OF_MEMORY \
				   : CAUSE_GPU_COMPUTE_FAILED, "%s failed with %s", (what), \
				   bench_cuda_errname(&(b)->cu, rc_, nm_, sizeof(nm_))); \
	} \
} while (0)

/* bf16 of a float, truncated: the value kept in both copies is exact. */
static uint16_t burn_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

static float burn_from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* xorshift64*: the host's random data, reproducible from the seed. */
static uint64_t burn_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static double burn_unit(uint64_t *s)
{
	return (double)(burn_rand(s) >> 11) / 9007199254740992.0;
}

/* A, B (bf16 on the GPU) and x, and the double-precision reference. */
static int burn_setup_gemm(struct bc *b)
{
	size_t nn = (size_t)b->n * (size_t)b->n;
	uint16_t *a = malloc(nn * 2), *bm = malloc(nn * 2);
	float *x = malloc((size_t)b->n * 4);
	double *bx = calloc((size_t)b->n, sizeof(double));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int rc = -1;

	b->ref = calloc((size_t)b->n, sizeof(double));
	b->yfirst = calloc((size_t)b->n, sizeof(float));
	if (!a || !bm || !x || !bx || !b->ref || !b->yfirst) {
		burn_refuse(b, CAUSE_GPU_OUT_OF_MEMORY, "host memory for %d x %d matrices", b->n, b->n);
		goto out;
	}
	for (size_t i = 0; i < nn; i++) {
		a[i] = burn_bf16((float)(burn_unit(&seed) * 2.0 - 1.0));
		bm[i] = burn_bf16((float)(burn_unit(&seed) * 2.0 - 1.0));
	}
	for (int i = 0; i < b->n; i++)
		x[i] = burn_from_bf16(burn_bf16((float)(0.5 + burn_unit(&seed))));
	/* Column-major, as cuBLAS: M[row + col * n].  bx = B x, ref = A bx. */
	for (int col = 0; col < b->n; col++)
		for (int row = 0; row < b->n; row++)
			bx[row] += (double)burn_from_bf16(bm[row + (size_t)col * b->n]) * x[col];
	for (int col = 0; col < b->n; col++)
		for (int row = 0; row < b->n; row++)
			b->ref[row] += (double)burn_from_bf16(a[row + (size_t)col * b->n]) * bx[col];
	if (b->cu.cuMemcpyHtoD(b->a16, a, nn * 2) != GD_CUDA_SUCCESS ||
	    b->cu.cuMemcpyHtoD(b->b16, bm, nn * 2) != GD_CUDA_SUCCESS ||
	    b->cu.cuMemcpyHtoD(b->x, x, (size_t)b->n * 4) != GD_CUDA_SUCCESS) {
		burn_refuse(b, CAUSE_GPU_COMPUTE_FAILED, "copying the matrices to GPU failed");
		goto out;
	}
	rc = 0;
out:
	free(a);
	free(bm);
	free(x);
	free(bx);
	return rc;
}

/* One product and its check; 1 when it disagreed, 0 when it agreed, -1 error. */
static int burn_gemm_once(struct bc *b, double t, double *worst)
{
	const float one = 1.0f, zero = 0.0f;
	cublasStatus_t st;
	double maxerr = 0;
	int maxrow = 0;

	st = b->cb.cublasGemmEx(b->blas, GD_CUBLAS_OP_N, GD_CUBLAS_OP_N, b->n, b->n, b->n, &one,
				(const void *)(uintptr_t)b->a16, GD_CUDA_R_16BF, b->n,
				(const void *)(uintptr_t)b->b16, GD_CUDA_R_16BF, b->n, &zero,
				(void *)(uintptr_t)b->c, GD_CUDA_R_32F, b->n, GD_CUBLAS_COMPUTE_32F,
				GD_CUBLAS_GEMM_DEFAULT);
	if (st != GD_CUBLAS_STATUS_SUCCESS)
		return burn_refuse(b, CAUSE_GPU_COMPUTE_FAILED, "cublasGemmEx failed with cuBLAS status %d", st);
	st = b->cb.cublasSgemv(b->blas, GD_CUBLAS_OP_N, b->n, b->n, &one, (const float *)(uintptr_t)b->c,
			       b->n, (const float *)(uintptr_t)b->x, 1, &zero, (float *)(uintptr_t)b->y, 1);
	if (st != GD_CUBLAS_STATUS_SUCCESS)
		return burn_refuse(b, CAUSE_GPU_COMPUTE_FAILED, "cublasSgemv failed with cuBLAS status %d", st);
	CK(b, b->cu.cuMemcpyDtoHAsync(b->yh, b->y, (size_t)b->n * 4, b->stream), "cuMemcpyDtoHAsync");
	CK(b, b->cu.cuStreamSynchronize(b->stream), "cuStreamSynchronize");
	b->gemms++;
	for (int i = 0; i < b->n; i++) {
		double d = fabs((double)b->yh[i] - b->ref[i]);

		if (!(d <= maxerr)) {	/* NaN counts as the worst */
			maxerr = isnan(d) ? INFINITY : d;
			maxrow = i;
		}
	}
	if (maxerr > *worst)
		*worst = maxerr;
	/* Against the CPU's reference: the first products calibrate the
	 * tolerance to this GPU's own rounding (16 x their worst error, at
	 * least 1e-3); a product already far off then (above a generous
	 * analytic bound) counts as corrupt. */
	if (!b->calibrated) {
		double bound = 1e-5 * (double)b->n * (double)b->n;

		if (!(maxerr <= bound))
			goto bad;
		if (maxerr > b->calib_max)
			b->calib_max = maxerr;
		if (b->gemms == 1)
			memcpy(b->yfirst, b->yh, (size_t)b->n * 4);
		if (b->gemms >= 3) {
			b->tol = fmax(16.0 * b->calib_max, 1e-3);
			b->calibrated = 1;
			kv_emit("gemm_tolerance", "%.6g", b->tol);
		}
	} else if (!(maxerr <= b->tol))
		goto bad;
	/* Against the first product, bit for bit: cuBLAS is bitwise
	 * reproducible for the same call on the same GPU (cuBLAS guide,
	 * "Results reproducibility"), so any difference, however small, is an
	 * element computed or stored wrong. */
	if (memcmp(b->yh, b->yfirst, (size_t)b->n * 4)) {
		for (maxrow = 0; maxrow < b->n && b->yh[maxrow] == b->yfirst[maxrow]; maxrow++)
			;
		if (maxrow == b->n)
			maxrow = 0;
		b->bad_gemms++;
		if (b->bad_gemms <= 5)
			kv_emit("sdc", "t=%.2f product=%llu row=%d got=%.9g first_product=%.9g (bitwise difference from the same product)",
				t, b->gemms, maxrow, (double)b->yh[maxrow], (double)b->yfirst[maxrow]);
		return 1;
	}
	return 0;
bad:
	b->bad_gemms++;
	if (b->bad_gemms <= 5)
		kv_emit("sdc", "t=%.2f product=%llu row=%d got=%.9g expected=%.9g error=%.6g tolerance=%.6g",
			t, b->gemms, maxrow, (double)b->yh[maxrow], b->ref[maxrow], maxerr,
			b->calibrated ? b->tol : 1e-5 * (double)b->n * (double)b->n);
	return 1;
}

static int burn_launch(struct bc *b, CUfunction f, void **params)
{
	unsigned blocks = 1024;

	CK(b, b->cu.cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, b->stream, params, NULL), "cuLaunchKernel");
	return 0;
}

/* One set of memory sweeps: fill, then checks that move through
 * inversions; the seed and the mode (address-derived or a walking bit)
 * change every pass.  Returns the bytes read and written, or -1. */
static double burn_memtest(struct bc *b, double t)
{
	unsigned seed, mode = b->pass % 3 == 2, inv0 = 0, inv1 = 0xffffffffu;
	unsigned long long n = b->mem_words;
	void *fill_args[] = { &b->mem, &n, &seed, &mode, &inv0 };
	void *ck1[] = { &b->mem, &n, &seed, &mode, &inv0, &inv1, &b->bad };
	void *ck2[] = { &b->mem, &n, &seed, &mode, &inv1, &inv0, &b->bad };
	void *ck3[] = { &b->mem, &n, &seed, &mode, &inv0, &inv0, &b->bad };
	unsigned long long init[4] = { 0, ~0ull, 0, 0 };

	if (!b->mem_words)
		return 0;
	/* walking ones on odd passes, walking zeros on even (mode 1) */
	seed = mode ? ((b->pass / 3) % 2 ? ~(1u << (b->pass % 32)) : 1u << (b->pass % 32))
		    : (unsigned)(0x5bd1e995u * (b->pass + 1));
	b->pass++;
	memcpy(b->badh, init, sizeof(init));
	CK(b, b->cu.cuMemcpyHtoDAsync(b->bad, b->badh, sizeof(init), b->stream), "cuMemcpyHtoDAsync");
	if (burn_launch(b, b->fill, fill_args) < 0 || burn_launch(b, b->check, ck1) < 0 ||
	    burn_launch(b, b->check, ck2) < 0 || burn_launch(b, b->check, ck3) < 0)
		return -1;
	CK(b, b->cu.cuMemcpyDtoHAsync(b->badh, b->bad, sizeof(init), b->stream), "cuMemcpyDtoHAsync");
	CK(b, b->cu.cuStreamSynchronize(b->stream), "cuStreamSynchronize");
	if (b->badh[0]) {
		b->mem_bad += b->badh[0];
		kv_emit("membad", "t=%.2f words=%llu first=0x%llx last=0x%llx bits=0x%llx pattern=%s",
			t, b->badh[0], b->badh[1] * 4ull, b->badh[2] * 4ull, b->badh[3],
			mode ? "walking bit" : "address-derived");
	}
	/* fill writes once; each check reads and writes */
	return (double)n * 4.0 * 7.0;
}

/* Pinned random data to the GPU and back, compared. */
static int burn_copies(struct bc *b, uint64_t *seed)
{
	for (size_t i = 0; i < BURN_COPY_BYTES; i += 8) {
		uint64_t r = burn_rand(seed);

		memcpy(b->h2d + i, &r, 8);
	}
	CK(b, b->cu.cuMemcpyHtoDAsync(b->cbuf, b->h2d, BURN_COPY_BYTES, b->stream), "cuMemcpyHtoDAsync");
	CK(b, b->cu.cuMemcpyDtoHAsync(b->d2h, b->cbuf, BURN_COPY_BYTES, b->stream), "cuMemcpyDtoHAsync");
	CK(b, b->cu.cuStreamSynchronize(b->stream), "cuStreamSynchronize");
	if (memcmp(b->h2d, b->d2h, BURN_COPY_BYTES)) {
		b->copy_bad++;
		return 1;
	}
	return 0;
}

static int burn_init(struct bc *b, const struct burn_child_opts *o)
{
	struct err e = ERR_INIT;
	CUcontext ctx = NULL;
	size_t fr = 0, tot = 0, gemm_bytes, nn;
	int count = 0;
	char name[96];
	CUresult rc;
	const char *sonames[] = { "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", NULL };

	if (bench_cuda_load(o->libcuda ? o->libcuda : "libcuda.so.1", &b->cu, &e) < 0)
		return burn_refuse(b, CAUSE_LIBCUDA_MISSING, "no GPU can be used: %s", e.msg);
	if (!b->cu.cuModuleLoadData)
		return burn_refuse(b, CAUSE_LIBCUDA_MISSING, "%s lacks the module API (cuModuleLoadData)",
				   b->cu.path ? b->cu.path : "libcuda.so.1");
	rc = b->cu.cuInit(0);
	if (rc == GD_CUDA_ERROR_STUB_LIBRARY)
		return burn_refuse(b, CAUSE_LIBCUDA_STUB_ON_PATH, "cuInit: %s is the toolkit's stub",
				   b->cu.path ? b->cu.path : "libcuda.so.1");
	if (rc == GD_CUDA_ERROR_NO_DEVICE)
		return burn_refuse(b, CAUSE_NO_NVIDIA_GPU, "cuInit found no CUDA device");
	if (rc != GD_CUDA_SUCCESS)
		return burn_refuse(b, CAUSE_CUDA_INIT_FAILED, "cuInit failed with %s",
				   bench_cuda_errname(&b->cu, rc, name, sizeof(name)));
	CK(b, b->cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
	if (o->index >= count)
		return burn_refuse(b, CAUSE_NO_NVIDIA_GPU, "there is no GPU %d: CUDA sees %d", o->index, count);
	CK(b, b->cu.cuDeviceGet(&b->dev, o->index), "cuDeviceGet");
	if (b->cu.cuDeviceGetName(name, sizeof(name), b->dev) == GD_CUDA_SUCCESS)
		kv_emit("name", "%s", name);
	if (b->cu.cuDeviceGetPCIBusId(name, sizeof(name), b->dev) == GD_CUDA_SUCCESS)
		kv_emit("pci", "%s", name);
	CK(b, b->cu.cuDevicePrimaryCtxRetain(&ctx, b->dev), "cuDevicePrimaryCtxRetain");
	b->ctx_retained = 1;
	CK(b, b->cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	CK(b, b->cu.cuMemGetInfo(&fr, &tot), "cuMemGetInfo");
	kv_emit("mem_total", "%zu", tot);
	kv_emit("mem_free", "%zu", fr);
	/* A burn takes the whole GPU; another process on it would be starved
	 * and would falsify the figures. */
	if ((double)fr < 0.9 * (double)tot)
		return burn_refuse(b, CAUSE_GPU_MEMORY_HELD, "another process holds GPU %d's memory: %.1f of %.1f GiB in use",
				   o->index, (double)(tot - fr) / (MIB * 1024), (double)tot / (MIB * 1024));
	{
		const char *names[BURN_MAX_CUBLAS + 4];
		size_t k = 0;

		for (size_t i = 0; o->cublas && o->cublas[i] && k < BURN_MAX_CUBLAS; i++)
			names[k++] = o->cublas[i];
		for (size_t i = 0; sonames[i]; i++)
			names[k++] = sonames[i];
		names[k] = NULL;
		if (bench_cublas_load(names, &b->cb, &e) < 0)
			return burn_refuse(b, CAUSE_CUBLAS_MISSING, "%s", e.msg);
	}
	if (!b->cb.cublasSgemv)
		return burn_refuse(b, CAUSE_CUBLAS_MISSING, "%s lacks cublasSgemv_v2", b->cb.path ? b->cb.path : "cuBLAS");
	if (b->cb.path)
		kv_emit("cublas", "%s", b->cb.path);
	CK(b, b->cu.cuStreamCreate(&b->stream, GD_CU_STREAM_NON_BLOCKING), "cuStreamCreate");
	CK(b, b->cu.cuEventCreate(&b->ev0, GD_CU_EVENT_DEFAULT), "cuEventCreate");
	CK(b, b->cu.cuEventCreate(&b->ev1, GD_CU_EVENT_DEFAULT), "cuEventCreate");
	if (b->cb.cublasCreate(&b->blas) != GD_CUBLAS_STATUS_SUCCESS)
		return burn_refuse(b, CAUSE_GPU_COMPUTE_FAILED, "cublasCreate failed");
	b->cb.cublasSetStream(b->blas, b->stream);
	CK(b, b->cu.cuModuleLoadData(&b->mod, burn_ptx), "cuModuleLoadData (burn's PTX)");
	CK(b, b->cu.cuModuleGetFunction(&b->fill, b->mod, "gd_mem_fill"), "cuModuleGetFunction");
	CK(b, b->cu.cuModuleGetFunction(&b->check, b->mod, "gd_mem_check"), "cuModuleGetFunction");
	nn = (size_t)b->n * (size_t)b->n;
	gemm_bytes = nn * 2 * 2 + nn * 4 + (size_t)b->n * 8;
	CK(b, b->cu.cuMemAlloc(&b->a16, nn * 2), "cuMemAlloc (A)");
	CK(b, b->cu.cuMemAlloc(&b->b16, nn * 2), "cuMemAlloc (B)");
	CK(b, b->cu.cuMemAlloc(&b->c, nn * 4), "cuMemAlloc (C)");
	CK(b, b->cu.cuMemAlloc(&b->x, (size_t)b->n * 4), "cuMemAlloc (x)");
	CK(b, b->cu.cuMemAlloc(&b->y, (size_t)b->n * 4), "cuMemAlloc (y)");
	CK(b, b->cu.cuMemAlloc(&b->bad, 64), "cuMemAlloc (counters)");
	CK(b, b->cu.cuMemAlloc(&b->cbuf, BURN_COPY_BYTES), "cuMemAlloc (copy buffer)");
	b->ws_bytes = 32u << 20;
	if (b->cb.cublasSetWorkspace && b->cu.cuMemAlloc(&b->ws, b->ws_bytes) == GD_CUDA_SUCCESS)
		b->cb.cublasSetWorkspace(b->blas, (void *)(uintptr_t)b->ws, b->ws_bytes);
	CK(b, b->cu.cuMemAllocHost((void **)&b->yh, (size_t)b->n * 4), "cuMemAllocHost");
	CK(b, b->cu.cuMemAllocHost((void **)&b->badh, 64), "cuMemAllocHost");
	CK(b, b->cu.cuMemAllocHost((void **)&b->h2d, BURN_COPY_BYTES), "cuMemAllocHost");
	CK(b, b->cu.cuMemAllocHost((void **)&b->d2h, BURN_COPY_BYTES), "cuMemAllocHost");
	/* The memory test takes what is left but a margin for the driver and
	 * cuBLAS (1 GiB, or a tenth of a small GPU). */
	CK(b, b->cu.cuMemGetInfo(&fr, &tot), "cuMemGetInfo");
	{
		double margin = fmin(1024.0 * MIB, (double)tot / 10.0);
		double want = (double)fr - margin;

		if (o->mem_mib > 0 && want > o->mem_mib * MIB)
			want = o->mem_mib * MIB;
		if (want < (double)BURN_COPY_BYTES)
			want = (double)BURN_COPY_BYTES;
		b->mem_words = (size_t)(want / 4.0) & ~(size_t)1023;
		if (b->cu.cuMemAlloc(&b->mem, b->mem_words * 4) != GD_CUDA_SUCCESS) {
			b->mem = 0;
			b->mem_words = 0;
			kv_emit("memtest_note", "the memory test could not allocate %.0f MiB: it did not run",
				want / MIB);
		}
	}
	kv_emit("gemm_n", "%d", b->n);
	kv_emit("gemm_bytes", "%zu", gemm_bytes);
	kv_emit("memtest_bytes", "%zu", b->mem_words * 4);
	return burn_setup_gemm(b);
}

static void burn_cleanup(struct bc *b)
{
	if (b->blas)
		b->cb.cublasDestroy(b->blas);
	if (b->stream)
		b->cu.cuStreamSynchronize(b->stream);
	CUdeviceptr *ptrs[] = { &b->a16, &b->b16, &b->c, &b->x, &b->y, &b->mem, &b->bad, &b->ws, &b->cbuf };

	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
		if (*ptrs[i])
			b->cu.cuMemFree(*ptrs[i]);
	if (b->yh)
		b->cu.cuMemFreeHost(b->yh);
	if (b->badh)
		b->cu.cuMemFreeHost(b->badh);
	if (b->h2d)
		b->cu.cuMemFreeHost(b->h2d);
	if (b->d2h)
		b->cu.cuMemFreeHost(b->d2h);
	if (b->mod && b->cu.cuModuleUnload)
		b->cu.cuModuleUnload(b->mod);
	if (b->ev0)
		b->cu.cuEventDestroy(b->ev0);
	if (b->ev1)
		b->cu.cuEventDestroy(b->ev1);
	if (b->stream)
		b->cu.cuStreamDestroy(b->stream);
	if (b->ctx_retained)
		b->cu.cuDevicePrimaryCtxRelease(b->dev);
	free(b->ref);
	free(b->yfirst);
	bench_cublas_unload(&b->cb);
	bench_cuda_unload(&b->cu);
}

/* The loop: ticks of about a second until the time is up or a signal. */
static void burn_loop(struct bc *b, const struct burn_child_opts *o)
{
	double start = child_now(), tick_len = o->tick > 0 ? o->tick : 1.0;
	uint64_t seed = 0x2545f4914f6cdd1dull;

	for (int k = 0; !burn_stop && child_now() - start < o->seconds; k++) {
		double t0 = child_now(), tg, tm, worst = 0, mem_bytes;
		unsigned long long g0 = b->gemms, bad0 = b->bad_gemms, mb0 = b->mem_bad;
		char key[48];
		int cbad;

		float ms = 0;

		/* The phase's time on the GPU's own clock (CUDA events), as bench
		 * times its GEMMs; the wall clock only if the events measured none. */
		b->cu.cuEventRecord(b->ev0, b->stream);
		while (!burn_stop && child_now() - t0 < 0.8 * tick_len)
			if (burn_gemm_once(b, t0 - start, &worst) < 0)
				return;
		b->cu.cuEventRecord(b->ev1, b->stream);
		tg = child_now() - t0;
		if (b->cu.cuEventSynchronize(b->ev1) == GD_CUDA_SUCCESS &&
		    b->cu.cuEventElapsedTime(&ms, b->ev0, b->ev1) == GD_CUDA_SUCCESS && ms > 0)
			tg = ms / 1000.0;
		tm = child_now();
		if ((mem_bytes = burn_memtest(b, tm - start)) < 0)
			return;
		tm = child_now() - tm;
		if ((cbad = burn_copies(b, &seed)) < 0)
			return;
#define TK(field, fmt, ...) do { snprintf(key, sizeof(key), "tick.%d." field, k); \
		kv_emit(key, fmt, __VA_ARGS__); } while (0)
		TK("t", "%.3f", child_now() - start);
		TK("gemms", "%llu", b->gemms - g0);
		TK("tflops", "%.6g", tg > 0 ? 2.0 * pow((double)b->n, 3) * (double)(b->gemms - g0) / tg / 1e12 : 0.0);
		TK("bad_gemms", "%llu", b->bad_gemms - bad0);
		TK("max_error", "%.6g", worst);
		TK("mem_gbs", "%.1f", tm > 0 ? mem_bytes / tm / 1e9 : 0.0);
		TK("mem_bad", "%llu", b->mem_bad - mb0);
		TK("copy_bad", "%d", cbad);
#undef TK
	}
}

/* "__probe burn count LIBCUDA": the GPUs CUDA sees (CUDA_VISIBLE_DEVICES
 * applied), for the parent, whose GPUs are CUDA ordinals. */
static int burn_count(const char *libcuda)
{
	struct cu_api cu;
	struct err e = ERR_INIT;
	int count = 0;

	if (bench_cuda_load(libcuda, &cu, &e) < 0) {
		kv_emit("count_error", "%s", e.msg);
	} else if (cu.cuInit(0) != GD_CUDA_SUCCESS || cu.cuDeviceGetCount(&count) != GD_CUDA_SUCCESS) {
		kv_emit("count_error", "cuInit or cuDeviceGetCount failed");
		bench_cuda_unload(&cu);
	} else {
		kv_emit("count", "%d", count);
		bench_cuda_unload(&cu);
	}
	kv_end();
	return 0;
}

int probe_main_burn(int argc, char **argv)
{
	struct burn_child_opts o = { .index = -1, .seconds = 60, .n = 8192, .tick = 1.0 };
	const char *cublas[BURN_MAX_CUBLAS + 1];
	size_t ncublas = 0;
	struct bc b;
	struct sigaction sa;

	if (argc == 3 && !strcmp(argv[1], "count"))
		return burn_count(argv[2]);
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--seconds") && v)
			o.seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--n") && v)
			o.n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tick") && v)
			o.tick = atof(argv[++i]);
		else if (!strcmp(argv[i], "--mem-mib") && v)
			o.mem_mib = atof(argv[++i]);
		else if (!strcmp(argv[i], "--libcuda") && v)
			o.libcuda = argv[++i];
		else if (!strcmp(argv[i], "--cublas") && v) {
			if (ncublas < BURN_MAX_CUBLAS)
				cublas[ncublas++] = argv[i + 1];
			i++;
		} else if (o.index < 0 && argv[i][0] >= '0' && argv[i][0] <= '9')
			o.index = atoi(argv[i]);
		else {
			kv_emit("error", "unknown argument '%s'", argv[i]);
			kv_end();
			return 2;
		}
	}
	cublas[ncublas] = NULL;
	o.cublas = cublas;
	if (o.index < 0 || o.n < 16 || o.n > 32768 || !(o.seconds > 0)) {
		kv_emit("error", "usage: __probe burn INDEX --seconds S [--n N] [--mem-mib M] [--libcuda P] [--cublas P]...");
		kv_end();
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = burn_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	memset(&b, 0, sizeof(b));
	b.n = o.n;
	kv_emit("index", "%d", o.index);
	if (burn_init(&b, &o) == 0 && !burn_stop)
		burn_loop(&b, &o);
	kv_emit("gemms", "%llu", b.gemms);
	kv_emit("bad_gemms", "%llu", b.bad_gemms);
	kv_emit("mem_passes", "%llu", b.pass);
	kv_emit("mem_bad", "%llu", b.mem_bad);
	kv_emit("copy_bad", "%llu", b.copy_bad);
	kv_emit("stopped", "%d", (int)burn_stop);
	burn_cleanup(&b);
	kv_end();
	return 0;
}
