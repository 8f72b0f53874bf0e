/*
 * cuda_api.h - the one declaration of the CUDA driver API (libcuda.so.1) in
 * gpudoctor: its types, the constants we use and one table of entry points,
 * with the function that binds it.  Used by the child sides only, never by
 * the gpudoctor process itself: check's cuda probe (probes/cuda/cuda_child.c)
 * and bench's and burn's CUDA children (bench/bench_cuda.c, which they share).
 *
 * Signatures, versioned symbol names (cuMemAlloc_v2 ...) and enum values are
 * those of NVIDIA's cuda.h (CUDA 13.0; CUDA Driver API reference,
 * https://docs.nvidia.com/cuda/cuda-driver-api/), declared by hand, only what
 * we call; no NVIDIA header is vendored.  CUdeviceptr is an unsigned 64-bit
 * integer (CUdeviceptr_v2), handles are opaque pointers, cudaStream_t ==
 * CUstream.  The slots carry cuda.h's names without the version suffix.  Each
 * user names the entry points it calls and whether it can do without them:
 *
 *	static struct cu_api cu;
 *	static const struct cuda_sym_want want[] = {
 *		{ CUDA_FN_cuInit, CUDA_SYM_REQUIRED, 0 },
 *	};
 *	struct cuda_symtab_missing m = CUDA_SYMTAB_MISSING_INIT;
 *	if (cuda_api_bind(handle, &cu, want, 1, &m) < 0)
 *		report(m.required.s);
 */
#ifndef GD_CUDA_API_H
#define GD_CUDA_API_H

#include <stddef.h>

#include "probes/cuda/cuda_symtab.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;	/* 64-bit: CUdeviceptr_v2 */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

/* CUresult values */
#define GD_CUDA_SUCCESS 0
#define GD_CUDA_ERROR_OUT_OF_MEMORY 2
#define GD_CUDA_ERROR_NOT_INITIALIZED 3
#define GD_CUDA_ERROR_STUB_LIBRARY 34
#define GD_CUDA_ERROR_NO_DEVICE 100
/* flags */
#define GD_CU_STREAM_NON_BLOCKING 0x1
#define GD_CU_EVENT_DEFAULT 0x0
/* CUdevice_attribute values */
#define GD_CU_ATTR_CLOCK_RATE 13		/* kHz */
#define GD_CU_ATTR_MULTIPROCESSOR_COUNT 16
#define GD_CU_ATTR_PCI_BUS_ID 33
#define GD_CU_ATTR_PCI_DEVICE_ID 34
#define GD_CU_ATTR_MEMORY_CLOCK_RATE 36	/* kHz */
#define GD_CU_ATTR_PCI_DOMAIN_ID 50
#define GD_CU_ATTR_CC_MAJOR 75
#define GD_CU_ATTR_CC_MINOR 76

/*
 * X(slot, parameters, newest symbol, older fallback with the same signature
 * or NULL); every entry point returns CUresult.
 */
#define CUDA_API_FUNCS(X) \
	X(cuInit, (unsigned int flags), "cuInit", NULL) \
	X(cuDriverGetVersion, (int *v), "cuDriverGetVersion", NULL) \
	X(cuGetErrorName, (CUresult err, const char **s), "cuGetErrorName", NULL) \
	X(cuDeviceGetCount, (int *count), "cuDeviceGetCount", NULL) \
	X(cuDeviceGet, (CUdevice *dev, int ordinal), "cuDeviceGet", NULL) \
	X(cuDeviceGetName, (char *name, int len, CUdevice dev), "cuDeviceGetName", NULL) \
	X(cuDeviceGetPCIBusId, (char *bus, int len, CUdevice dev), "cuDeviceGetPCIBusId", NULL) \
	X(cuDeviceGetAttribute, (int *v, int attr, CUdevice dev), "cuDeviceGetAttribute", NULL) \
	X(cuDeviceTotalMem, (size_t *bytes, CUdevice dev), "cuDeviceTotalMem_v2", NULL) \
	X(cuDevicePrimaryCtxRetain, (CUcontext *ctx, CUdevice dev), "cuDevicePrimaryCtxRetain", NULL) \
	X(cuDevicePrimaryCtxRelease, (CUdevice dev), "cuDevicePrimaryCtxRelease_v2", \
	  "cuDevicePrimaryCtxRelease") \
	X(cuCtxSetCurrent, (CUcontext ctx), "cuCtxSetCurrent", NULL) \
	X(cuCtxSynchronize, (void), "cuCtxSynchronize", NULL) \
	X(cuMemGetInfo, (size_t *free_b, size_t *total_b), "cuMemGetInfo_v2", NULL) \
	X(cuMemAlloc, (CUdeviceptr *p, size_t n), "cuMemAlloc_v2", NULL) \
	X(cuMemFree, (CUdeviceptr p), "cuMemFree_v2", NULL) \
	X(cuMemAllocHost, (void **p, size_t n), "cuMemAllocHost_v2", NULL) \
	X(cuMemFreeHost, (void *p), "cuMemFreeHost", NULL) \
	X(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t n), "cuMemcpyHtoD_v2", NULL) \
	X(cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t n), "cuMemcpyDtoH_v2", NULL) \
	X(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t n, CUstream s), \
	  "cuMemcpyHtoDAsync_v2", NULL) \
	X(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t n, CUstream s), \
	  "cuMemcpyDtoHAsync_v2", NULL) \
	X(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), \
	  "cuMemcpyDtoDAsync_v2", NULL) \
	X(cuMemsetD8, (CUdeviceptr dst, unsigned char v, size_t n), "cuMemsetD8_v2", NULL) \
	X(cuMemsetD32, (CUdeviceptr dst, unsigned int v, size_t n), "cuMemsetD32_v2", NULL) \
	X(cuStreamCreate, (CUstream *s, unsigned int flags), "cuStreamCreate", NULL) \
	X(cuStreamDestroy, (CUstream s), "cuStreamDestroy_v2", NULL) \
	X(cuStreamSynchronize, (CUstream s), "cuStreamSynchronize", NULL) \
	X(cuEventCreate, (CUevent *ev, unsigned int flags), "cuEventCreate", NULL) \
	X(cuEventRecord, (CUevent ev, CUstream s), "cuEventRecord", NULL) \
	X(cuEventSynchronize, (CUevent ev), "cuEventSynchronize", NULL) \
	/* cuda.h maps it to _v2 from CUDA 12.8; older drivers have the plain name */ \
	X(cuEventElapsedTime, (float *ms, CUevent a, CUevent b), "cuEventElapsedTime_v2", \
	  "cuEventElapsedTime") \
	X(cuEventDestroy, (CUevent ev), "cuEventDestroy_v2", NULL) \
	X(cuModuleLoadData, (CUmodule *m, const void *image), "cuModuleLoadData", NULL) \
	X(cuModuleGetFunction, (CUfunction *f, CUmodule m, const char *name), "cuModuleGetFunction", NULL) \
	X(cuModuleUnload, (CUmodule m), "cuModuleUnload", NULL) \
	X(cuLaunchKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, \
	  unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, void **extra), \
	  "cuLaunchKernel", NULL)

#define CUDA_API_SLOT(slot, params, name, fallback) CUresult (*slot) params;
struct cu_api {
	void *handle;
	char *path;		/* the file the loader picked, or NULL */
	CUDA_API_FUNCS(CUDA_API_SLOT)
};
#undef CUDA_API_SLOT

#define CUDA_API_ENUM(slot, params, name, fallback) CUDA_FN_##slot,
enum cuda_fn { CUDA_API_FUNCS(CUDA_API_ENUM) CUDA_FN_COUNT };
#undef CUDA_API_ENUM

/* One entry point a user calls, and whether it can do without it. */
/*
 * Fill cu's slots named in want (every other slot NULL; handle and path are
 * left alone), in want's order, so that m lists the missing ones in that
 * order; -1 when a required one is missing.
 */
int cuda_api_bind(void *handle, struct cu_api *cu, const struct cuda_sym_want *want, size_t n,
		  struct cuda_symtab_missing *m);

#endif
