/*
 * fake_cublas.c - a fake libcublas.so.13 for the bench tests (no GPU).
 *
 * Works with fake_bench_cuda.c: device pointers are host pointers, and
 * each product advances the fake libcuda's virtual clock by 2n^3 / rate.
 * Only a product whose C starts poisoned (0xff bytes, as the bench child
 * leaves it before its checked run) is computed, so timed runs stay cheap.
 *
 * Environment: FAKE_CUBLAS_TFLOPS_FP32 / _TF32 / _FP16 / _BF16 (50, 400,
 * 800, 800); FAKE_CUBLAS_WRONG=1 makes every computed entry wrong;
 * FAKE_CUBLAS_CREATE_RC makes cublasCreate_v2 fail.
 * For burn: FAKE_CUBLAS_COMPUTE=1 computes every product (not only poisoned
 * ones); FAKE_CUBLAS_CORRUPT_AT=N adds 0.5 to one element of the Nth
 * product's C, silently (a GPU computing a wrong value without an error);
 * cublasSgemv_v2 computes y = alpha A x + beta y (no transpose); built with
 * -DFAKE_NO_SGEMV it is left out (a cuBLAS burn cannot use).
 * FAKE_CUBLAS_SLOW="GPU:AFTER:FACTOR,...": in the burn child of GPU (its index
 * in the child's argv; "*" any), every product after AFTER seconds takes
 * FACTOR times as long on the virtual clock (the first entry that applies):
 * throughput that falls, or one slow GPU of a node, timed exactly by CUDA
 * events whatever the machine's load.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double env_d(const char *name, double def)
{
	const char *s = getenv(name);

	return s && *s ? atof(s) : def;
}

static float h2f(uint16_t h)
{
	_Float16 f;

	memcpy(&f, &h, 2);
	return (float)f;
}

static uint16_t f2h(float x)
{
	_Float16 f = (_Float16)x;
	uint16_t h;

	memcpy(&h, &f, 2);
	return h;
}

static float b2f(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint16_t f2b(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

static float get(const void *p, int type, size_t i)
{
	if (type == 2)
		return h2f(((const uint16_t *)p)[i]);
	if (type == 14)
		return b2f(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static void put(void *p, int type, size_t i, float v)
{
	if (type == 2)
		((uint16_t *)p)[i] = f2h(v);
	else if (type == 14)
		((uint16_t *)p)[i] = f2b(v);
	else
		((float *)p)[i] = v;
}

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* The GPU index of a burn child: "gpudoctor __probe burn INDEX ..." */
static int fake_burn_gpu(void)
{
	static int idx = -2;
	char buf[4096];
	FILE *f;
	size_t n;

	if (idx != -2)
		return idx;
	idx = -1;
	if (!(f = fopen("/proc/self/cmdline", "r")))
		return idx;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i + 1 < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, "burn") && i + strlen(buf + i) + 1 < n) {
			idx = atoi(buf + i + strlen(buf + i) + 1);
			break;
		}
	return idx;
}

/* FAKE_CUBLAS_SLOW: the factor by which this product is slower (1: not). */
static double fake_slow(void)
{
	static double t0;
	const char *spec = getenv("FAKE_CUBLAS_SLOW");
	struct timespec ts;
	double now;

	if (!spec)
		return 1.0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	if (!t0)
		t0 = now;
	for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		int gpu = *p == '*' ? -1 : atoi(p);
		const char *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			return 1.0;
		if ((gpu < 0 || gpu == fake_burn_gpu()) && now - t0 > atof(c1 + 1))
			return atof(c2 + 1) > 0 ? atof(c2 + 1) : 1.0;
	}
	return 1.0;
}

int cublasCreate_v2(void **h) { *h = malloc(1); return (int)env_d("FAKE_CUBLAS_CREATE_RC", 0); }
int cublasDestroy_v2(void *h) { free(h); return 0; }
int cublasGetVersion_v2(void *h, int *v) { (void)h; *v = 130000; return 0; }
int cublasSetStream_v2(void *h, void *s) { (void)h; (void)s; return 0; }
int cublasSetWorkspace_v2(void *h, void *w, size_t n) { (void)h; (void)w; (void)n; return 0; }
int cublasSetMathMode(void *h, int m) { (void)h; (void)m; return 0; }

int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha,
		 const void *a, int atype, int lda, const void *b, int btype, int ldb,
		 const void *beta, void *c, int ctype, int ldc, int compute, int algo)
{
	void (*advance)(double);
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *sym = cuda ? dlsym(cuda, "fake_cuda_advance") : NULL;
	const char *rate = "FAKE_CUBLAS_TFLOPS_FP32";
	double def = 50;

	(void)h; (void)alpha; (void)beta; (void)algo; (void)btype;
	if (ta || tb)
		return 7;
	static long calls;
	double slow;

	calls++;
	slow = fake_slow();
	if (((const unsigned char *)c)[0] == 0xff || getenv("FAKE_CUBLAS_COMPUTE")) {
		float wrong = getenv("FAKE_CUBLAS_WRONG") ? 1000.0f : 0.0f;

		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				float s = 0;

				for (int p = 0; p < k; p++)
					s += get(a, atype, (size_t)i + (size_t)p * lda) *
					     get(b, atype, (size_t)p + (size_t)j * ldb);
				put(c, ctype, (size_t)i + (size_t)j * ldc, s + wrong);
			}
		if (calls == (long)env_d("FAKE_CUBLAS_CORRUPT_AT", -1))
			put(c, ctype, 3 + (size_t)2 * ldc, get(c, ctype, 3 + (size_t)2 * ldc) + 0.5f);
	}
	if (compute == 77) { rate = "FAKE_CUBLAS_TFLOPS_TF32"; def = 400; }
	else if (atype == 2) { rate = "FAKE_CUBLAS_TFLOPS_FP16"; def = 800; }
	else if (atype == 14) { rate = "FAKE_CUBLAS_TFLOPS_BF16"; def = 800; }
	if (sym) {
		memcpy(&advance, &sym, sizeof(sym));
		advance(2.0 * m * (double)n * k / (env_d(rate, def) * 1e12) * slow);
	}
	if (cuda)
		dlclose(cuda);
	return 0;
}

#ifndef FAKE_NO_SGEMV
int cublasSgemv_v2(void *h, int trans, int m, int n, const float *alpha, const float *a, int lda,
		   const float *x, int incx, const float *beta, float *y, int incy)
{
	(void)h;
	if (trans)
		return 7;
	for (int i = 0; i < m; i++) {
		float s = 0;

		for (int j = 0; j < n; j++)
			s += a[(size_t)i + (size_t)j * lda] * x[(size_t)j * incx];
		y[(size_t)i * incy] = *alpha * s + (*beta != 0 ? *beta * y[(size_t)i * incy] : 0);
	}
	return 0;
}
#endif
