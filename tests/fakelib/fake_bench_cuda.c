/*
 * fake_bench_cuda.c - a fake libcuda.so.1 for the bench tests (no GPU).
 *
 * Built by tests/e2e/test_bench.py as libcuda.so.1 and found through
 * LD_LIBRARY_PATH.  "Device" memory is host memory; time is a virtual
 * clock that each operation advances by bytes / the configured bandwidth,
 * so the parent's figures and percentages are exact and predictable.
 *
 * Environment (all optional):
 *   FAKE_CUDA_INIT_RC      cuInit's result (default 0; 100 = no device, 34 = stub)
 *   FAKE_CUDA_DEVICES      device count (1)
 *   FAKE_CUDA_NAME, FAKE_CUDA_PCI   ("NVIDIA H200", "0000:65:00.0")
 *   FAKE_CUDA_TOTAL_MIB, FAKE_CUDA_FREE_MIB   memory (16, total - 1)
 *   FAKE_CUDA_OOM_AFTER    cuMemAlloc calls that succeed before OUT_OF_MEMORY (never)
 *   FAKE_CUDA_H2D_GBS, FAKE_CUDA_D2H_GBS, FAKE_CUDA_PAGEABLE_GBS, FAKE_CUDA_D2D_GBS
 *                          (50, 50, 10, 4000; D2D counts read + write)
 *   FAKE_CUDA_REPORT       file written at exit: "allocs=A frees=F host_allocs=.. ..."
 * burn's kernels (cuModuleLoadData of its PTX, cuLaunchKernel) run here on
 * the host, with the same arithmetic as burn_kernels.cu:
 *   FAKE_CUDA_MEM_STUCK    a word index whose bit 3 reads as 1 (a stuck bit)
 *   FAKE_CUDA_HANG_LAUNCH  the Nth kernel launch never returns (a hung GPU)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct fake_event { double t; int recorded; };

static double clock_s;
static long allocs, frees, host_allocs, host_frees, streams, stream_frees, events, event_frees;
static long ctx_retains, ctx_releases, alloc_calls;
static void *pinned[64];

static double env_d(const char *name, double def)
{
	const char *s = getenv(name);

	return s && *s ? atof(s) : def;
}

void fake_cuda_advance(double seconds);
void fake_cuda_advance(double seconds)
{
	clock_s += seconds;
}

__attribute__((destructor)) static void fake_report(void)
{
	const char *path = getenv("FAKE_CUDA_REPORT");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "allocs=%ld frees=%ld host_allocs=%ld host_frees=%ld streams=%ld stream_frees=%ld events=%ld event_frees=%ld ctx_retains=%ld ctx_releases=%ld\n",
		allocs, frees, host_allocs, host_frees, streams, stream_frees, events, event_frees,
		ctx_retains, ctx_releases);
	fclose(f);
}

CUresult cuInit(unsigned flags) { (void)flags; return (int)env_d("FAKE_CUDA_INIT_RC", 0); }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s)
{
	switch (e) {
	case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 34: *s = "CUDA_ERROR_STUB_LIBRARY"; return 0;
	case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
	default: *s = "CUDA_ERROR_UNKNOWN"; return 0;
	}
}
CUresult cuDeviceGetCount(int *n) { *n = (int)env_d("FAKE_CUDA_DEVICES", 1); return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetName(char *name, int len, int d)
{
	const char *s = getenv("FAKE_CUDA_NAME");

	(void)d;
	snprintf(name, (size_t)len, "%s", s ? s : "NVIDIA H200");
	return 0;
}
CUresult cuDeviceGetPCIBusId(char *bus, int len, int d)
{
	const char *s = getenv("FAKE_CUDA_PCI");

	/* the driver's own format: upper-case hex */
	if (s && *s)
		snprintf(bus, (size_t)len, "%s", s);
	else
		snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x65 + d);
	return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
	(void)d;
	switch (attr) {
	case 13: *v = 1980000; return 0;
	case 16: *v = 132; return 0;
	case 36: *v = 3201000; return 0;
	case 75: *v = 9; return 0;
	case 76: *v = 0; return 0;
	default: return 1;
	}
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { (void)d; *ctx = (void *)0x1; ctx_retains++; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; ctx_releases++; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { (void)ctx; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }

static size_t in_use;

CUresult cuMemGetInfo_v2(size_t *fr, size_t *tot)
{
	size_t total = (size_t)(env_d("FAKE_CUDA_TOTAL_MIB", 16) * 1048576.0);
	size_t free0 = (size_t)(env_d("FAKE_CUDA_FREE_MIB", env_d("FAKE_CUDA_TOTAL_MIB", 16) - 1) * 1048576.0);

	*tot = total;
	*fr = free0 > in_use ? free0 - in_use : 0;
	return 0;
}

/* Sizes are kept in a header before the block, to count memory in use. */
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	size_t fr, tot;
	char *b;

	alloc_calls++;
	cuMemGetInfo_v2(&fr, &tot);
	if ((getenv("FAKE_CUDA_OOM_AFTER") && alloc_calls > (long)env_d("FAKE_CUDA_OOM_AFTER", 0)) || n > fr)
		return 2;
	b = malloc(n + 16);
	if (!b)
		return 2;
	memcpy(b, &n, sizeof(n));
	in_use += n;
	allocs++;
	*p = (CUdeviceptr)(uintptr_t)(b + 16);
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p)
{
	char *b = (char *)(uintptr_t)p - 16;
	size_t n;

	memcpy(&n, b, sizeof(n));
	in_use -= n;
	frees++;
	free(b);
	return 0;
}
CUresult cuMemAllocHost_v2(void **p, size_t n)
{
	*p = malloc(n);
	if (!*p)
		return 2;
	for (int i = 0; i < 64; i++)
		if (!pinned[i]) {
			pinned[i] = *p;
			break;
		}
	host_allocs++;
	return 0;
}
CUresult cuMemFreeHost(void *p)
{
	for (int i = 0; i < 64; i++)
		if (pinned[i] == p)
			pinned[i] = NULL;
	host_frees++;
	free(p);
	return 0;
}
static int is_pinned(const void *p)
{
	for (int i = 0; i < 64; i++)
		if (pinned[i] && pinned[i] == p)
			return 1;
	return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st)
{
	(void)st;
	memcpy((void *)(uintptr_t)d, s, n);
	clock_s += (double)n / (env_d(is_pinned(s) ? "FAKE_CUDA_H2D_GBS" : "FAKE_CUDA_PAGEABLE_GBS",
				      is_pinned(s) ? 50 : 10) * 1e9);
	return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st)
{
	(void)st;
	memcpy(d, (void *)(uintptr_t)s, n);
	clock_s += (double)n / (env_d(is_pinned(d) ? "FAKE_CUDA_D2H_GBS" : "FAKE_CUDA_PAGEABLE_GBS",
				      is_pinned(d) ? 50 : 10) * 1e9);
	return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
	(void)st;
	memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	clock_s += 2.0 * (double)n / (env_d("FAKE_CUDA_D2D_GBS", 4000) * 1e9);
	return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n)
{
	unsigned *p = (unsigned *)(uintptr_t)d;

	for (size_t i = 0; i < n; i++)
		p[i] = v;
	return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = malloc(1); streams++; return 0; }
CUresult cuStreamDestroy_v2(void *s) { free(s); stream_frees++; return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
CUresult cuEventCreate(struct fake_event **e, unsigned flags) { (void)flags; *e = calloc(1, sizeof(**e)); events++; return 0; }
CUresult cuEventDestroy_v2(struct fake_event *e) { free(e); event_frees++; return 0; }
CUresult cuEventRecord(struct fake_event *e, void *s) { (void)s; e->t = clock_s; e->recorded = 1; return 0; }
CUresult cuEventSynchronize(struct fake_event *e) { (void)e; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, struct fake_event *a, struct fake_event *b)
{
	if (!a->recorded || !b->recorded)
		return 400;
	*ms = (float)((b->t - a->t) * 1e3);
	return 0;
}

/* ---- burn's kernels, emulated (same arithmetic as burn_kernels.cu) ---- */
static unsigned fake_mix(unsigned long long i, unsigned seed)
{
	unsigned x = (unsigned)i ^ (unsigned)(i >> 32) * 0x9e3779b9u ^ seed;

	x ^= x >> 16; x *= 0x7feb352du;
	x ^= x >> 15; x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static unsigned fake_expect(unsigned long long i, unsigned seed, unsigned mode, unsigned inv)
{
	unsigned r = (unsigned)(i & 31u);

	return (mode ? (r ? (seed << r) | (seed >> (32u - r)) : seed) : fake_mix(i, seed)) ^ inv;
}

static long launches;

CUresult cuModuleLoadData(void **m, const void *image) { (void)image; *m = malloc(1); return 0; }
CUresult cuModuleUnload(void *m) { free(m); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
	(void)m;
	if (!strcmp(name, "gd_mem_fill"))
		*f = (void *)1;
	else if (!strcmp(name, "gd_mem_check"))
		*f = (void *)2;
	else
		return 500;	/* CUDA_ERROR_NOT_FOUND */
	return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned shared, void *st, void **params, void **extra)
{
	unsigned *p = *(unsigned **)params[0];
	unsigned long long n = *(unsigned long long *)params[1];
	unsigned seed = *(unsigned *)params[2], mode = *(unsigned *)params[3], inv = *(unsigned *)params[4];
	long stuck = getenv("FAKE_CUDA_MEM_STUCK") ? (long)env_d("FAKE_CUDA_MEM_STUCK", -1) : -1;

	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)st; (void)extra;
	if (++launches == (long)env_d("FAKE_CUDA_HANG_LAUNCH", -1))
		for (;;)
			pause();
	if (f == (void *)1) {
		for (unsigned long long i = 0; i < n; i++)
			p[i] = fake_expect(i, seed, mode, inv);
	} else {
		unsigned newinv = *(unsigned *)params[5];
		unsigned long long *bad = *(unsigned long long **)params[6];

		for (unsigned long long i = 0; i < n; i++) {
			unsigned e = fake_expect(i, seed, mode, inv), v = p[i];

			if ((long)i == stuck)
				v |= 8u;
			if (v != e) {
				bad[0]++;
				if (i < bad[1])
					bad[1] = i;
				if (i > bad[2])
					bad[2] = i;
				bad[3] |= (unsigned long long)(v ^ e);
			}
			p[i] = e ^ inv ^ newinv;
		}
	}
	return 0;
}
