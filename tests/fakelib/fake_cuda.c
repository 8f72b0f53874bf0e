/*
 * fake_cuda.c - a fake libcuda.so.1 for the end-to-end tests.
 *
 * Built by tests/e2e/fixtures_driver.py with
 *   gcc -shared -fPIC -Wl,-soname,libcuda.so.1
 * It exports the driver-API entry points gpudoctor's probe binds.  The PTX
 * cannot run on the CPU, so cuModuleLoadData checks that the image is PTX
 * declaring the gd_axpb entry, and cuLaunchKernel computes, in C, what that
 * kernel computes (out[i] = in[i] * a + b over uint32) on every thread of the
 * grid; "wrong-result" corrupts one element so that the probe's exact check
 * is proven.  Device pointers are host pointers.
 *   FAKE_CUDA_MODE     healthy (default) | init-error:N | crash-on-load |
 *                      crash (SIGSEGV in cuInit) | hang | wrong-result |
 *                      ctx-error:N | ptx-error:N | launch-error:N | alloc-error:N
 *   FAKE_CUDA_DEVICES  number of devices (default 1)
 *   FAKE_CUDA_INIT_MS  cuInit sleeps this long first (default 0), so that tests
 *                      can see the CUDA probe overlap the NVML probe
 *   FAKE_CUDA_CTX_LOG  a file: cuDevicePrimaryCtxRetain appends "ctx DEV\n" to it,
 *                      so that tests can see when (and whether) a context was made
 * -DFAKE_DEFAULT_MODE='"init-error:34"' builds a toolkit-stub look-alike.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_DEFAULT_MODE
#define FAKE_DEFAULT_MODE "healthy"
#endif

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct fake_ctx { int dev; } *CUcontext;
typedef struct fake_mod { int ok; } *CUmodule;
typedef struct fake_fn { int ok; } *CUfunction;
typedef void *CUstream;

static struct fake_ctx ctxs[64];
static struct fake_mod mod_storage;
static struct fake_fn fn_storage;
static int initialised;

static const char *mode(void)
{
	const char *m = getenv("FAKE_CUDA_MODE");

	return m && *m ? m : FAKE_DEFAULT_MODE;
}

/* "ctx-error:201" -> 201 when the mode is that kind, else 0. */
static int mode_error(const char *kind)
{
	size_t n = strlen(kind);

	if (!strncmp(mode(), kind, n) && mode()[n] == ':')
		return atoi(mode() + n + 1);
	return 0;
}

static int ndev(void)
{
	const char *v = getenv("FAKE_CUDA_DEVICES");

	return v && *v ? atoi(v) : 1;
}

__attribute__((constructor)) static void fake_cuda_load(void)
{
	if (!strcmp(mode(), "crash-on-load"))
		raise(SIGSEGV);
}

CUresult cuInit(unsigned int flags)
{
	const char *ms = getenv("FAKE_CUDA_INIT_MS");

	(void)flags;
	if (ms && atoi(ms) > 0)
		usleep((useconds_t)atoi(ms) * 1000);
	if (!strcmp(mode(), "crash"))
		raise(SIGSEGV);
	if (!strcmp(mode(), "hang"))
		for (;;)
			pause();
	if (mode_error("init-error"))
		return mode_error("init-error");
	initialised = 1;
	return 0;
}

CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }

CUresult cuDeviceGetCount(int *n)
{
	if (!initialised)
		return 3;
	*n = ndev();
	return 0;
}

CUresult cuDeviceGet(CUdevice *d, int i)
{
	if (i < 0 || i >= ndev())
		return 101;
	*d = i;
	return 0;
}

CUresult cuDeviceGetName(char *s, int n, CUdevice d)
{
	(void)d;
	snprintf(s, (size_t)n, "NVIDIA H200");
	return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	switch (attr) {
	case 16: *v = 132; return 0;		/* SM count */
	case 33: *v = 0x18 + d; return 0;	/* PCI bus */
	case 34: *v = 0; return 0;		/* PCI device */
	case 50: *v = 0; return 0;		/* PCI domain */
	case 75: *v = 9; return 0;		/* CC major */
	case 76: *v = 0; return 0;		/* CC minor */
	default: return 1;
	}
}

CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d)
{
	(void)d;
	*b = (size_t)143771 << 20;
	return 0;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	const char *log = getenv("FAKE_CUDA_CTX_LOG");

	if (log && *log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "ctx %d\n", d);
			fclose(f);
		}
	}
	if (mode_error("ctx-error"))
		return mode_error("ctx-error");
	ctxs[d].dev = d;
	*c = &ctxs[d];
	return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	const char *ptx = image;

	if (mode_error("ptx-error"))
		return mode_error("ptx-error");
	/* What the driver's JIT would reject outright. */
	if (!strstr(ptx, ".version") || !strstr(ptx, ".target") || !strstr(ptx, ".entry gd_axpb"))
		return 218;
	mod_storage.ok = 1;
	*m = &mod_storage;
	return 0;
}

CUresult cuModuleUnload(CUmodule m) { (void)m; return 0; }

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	(void)m;
	if (strcmp(name, "gd_axpb") != 0)
		return 500;
	fn_storage.ok = 1;
	*f = &fn_storage;
	return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *q;

	if (mode_error("alloc-error"))
		return mode_error("alloc-error");
	q = calloc(1, n);
	if (!q)
		return 2;
	*p = (CUdeviceptr)(uintptr_t)q;
	return 0;
}

CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return 0; }

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params,
			void **extra)
{
	uint32_t *out, *in, a, b, n;
	unsigned long threads = (unsigned long)gx * gy * gz * bx * by * bz;

	(void)shmem; (void)s; (void)extra;
	if (mode_error("launch-error"))
		return mode_error("launch-error");
	if (!f || !params)
		return 1;
	/* gd_axpb(out, in, a, b, n) */
	out = (uint32_t *)(uintptr_t)*(CUdeviceptr *)params[0];
	in = (uint32_t *)(uintptr_t)*(CUdeviceptr *)params[1];
	a = *(uint32_t *)params[2];
	b = *(uint32_t *)params[3];
	n = *(uint32_t *)params[4];
	for (unsigned long i = 0; i < threads && i < n; i++)
		out[i] = in[i] * a + b;
	if (!strcmp(mode(), "wrong-result") && n > 7)
		out[7] ^= 0x100;
	return 0;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	(void)r;
	*s = "CUDA_ERROR_FAKE";
	return 0;
}

/*
 * What the bench children of `check --deep` also bind (bench/bench_cuda.c):
 * host memory, a stream that does nothing, events that measure nothing.
 * The convolution and the all-reduce themselves are fake_cudnn.c's and
 * fake_nccl.c's.
 */
struct fake_event { int recorded; };

CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
	snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x18 + d);
	return 0;
}
CUresult cuMemGetInfo_v2(size_t *fr, size_t *tot) { *tot = (size_t)80 << 30; *fr = (size_t)79 << 30; return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { (void)st; return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	(void)st;
	memcpy((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
	return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((unsigned *)(uintptr_t)d)[i] = v;
	return 0;
}
CUresult cuStreamCreate(CUstream *s, unsigned f) { (void)f; *s = malloc(1); return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { free(s); return 0; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; return 0; }
CUresult cuEventCreate(struct fake_event **e, unsigned f) { (void)f; *e = calloc(1, sizeof(**e)); return 0; }
CUresult cuEventDestroy_v2(struct fake_event *e) { free(e); return 0; }
CUresult cuEventRecord(struct fake_event *e, CUstream s) { (void)s; e->recorded = 1; return 0; }
CUresult cuEventSynchronize(struct fake_event *e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, struct fake_event *a, struct fake_event *b)
{
	(void)a; (void)b;
	*ms = 0.001f;
	return 0;
}
