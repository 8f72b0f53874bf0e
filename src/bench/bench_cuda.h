/*
 * bench_cuda.h - the CUDA driver API and cuBLAS entry points bench uses,
 * declared by hand and resolved with dlsym (child side only).
 *
 * Signatures, versioned symbol names (cuMemAlloc_v2 ...) and enum values
 * are those of NVIDIA's cuda.h, cublas_api.h and library_types.h (CUDA
 * 13.0); only what bench calls is declared.  CUdeviceptr is an unsigned
 * 64-bit integer, handles are opaque pointers, cudaStream_t == CUstream.
 *
 *	struct cu_api cu;
 *	if (bench_cuda_load("libcuda.so.1", &cu, &e) < 0) refuse(e.msg);
 *	cu.cuInit(0);
 *	...
 *	bench_cuda_unload(&cu);
 */
#ifndef GD_BENCH_CUDA_H
#define GD_BENCH_CUDA_H

#include <stddef.h>

#include "core/err.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;

/* cuda.h */
#define GD_CUDA_SUCCESS 0
#define GD_CUDA_ERROR_OUT_OF_MEMORY 2
#define GD_CUDA_ERROR_NOT_INITIALIZED 3
#define GD_CUDA_ERROR_STUB_LIBRARY 34
#define GD_CUDA_ERROR_NO_DEVICE 100
#define GD_CU_STREAM_NON_BLOCKING 0x1
#define GD_CU_EVENT_DEFAULT 0x0
#define GD_CU_ATTR_CLOCK_RATE 13		/* kHz */
#define GD_CU_ATTR_MULTIPROCESSOR_COUNT 16
#define GD_CU_ATTR_MEMORY_CLOCK_RATE 36	/* kHz */
#define GD_CU_ATTR_CC_MAJOR 75
#define GD_CU_ATTR_CC_MINOR 76

/* cublas_api.h, library_types.h */
#define GD_CUBLAS_STATUS_SUCCESS 0
#define GD_CUBLAS_STATUS_ALLOC_FAILED 3
#define GD_CUBLAS_OP_N 0
#define GD_CUBLAS_DEFAULT_MATH 0
#define GD_CUBLAS_COMPUTE_32F 68
#define GD_CUBLAS_COMPUTE_32F_FAST_TF32 77
#define GD_CUBLAS_GEMM_DEFAULT (-1)
#define GD_CUDA_R_32F 0
#define GD_CUDA_R_16F 2
#define GD_CUDA_R_16BF 14

struct cu_api {
	void *handle;
	char *path;		/* the file the loader picked, or NULL */
	CUresult (*cuInit)(unsigned int flags);
	CUresult (*cuDriverGetVersion)(int *v);
	CUresult (*cuGetErrorName)(CUresult err, const char **s);
	CUresult (*cuDeviceGetCount)(int *count);
	CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*cuDeviceGetPCIBusId)(char *bus, int len, CUdevice dev);
	CUresult (*cuDeviceGetAttribute)(int *v, int attr, CUdevice dev);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);		/* _v2 */
	CUresult (*cuCtxSetCurrent)(CUcontext ctx);
	CUresult (*cuCtxSynchronize)(void);
	CUresult (*cuMemGetInfo)(size_t *free_b, size_t *total_b);	/* _v2 */
	CUresult (*cuMemAlloc)(CUdeviceptr *p, size_t n);		/* _v2 */
	CUresult (*cuMemFree)(CUdeviceptr p);				/* _v2 */
	CUresult (*cuMemAllocHost)(void **p, size_t n);			/* _v2 */
	CUresult (*cuMemFreeHost)(void *p);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t n);	/* _v2 */
	CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t n);		/* _v2 */
	CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t n, CUstream s);	/* _v2 */
	CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t n, CUstream s);	/* _v2 */
	CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);	/* _v2 */
	CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char v, size_t n);	/* _v2 */
	CUresult (*cuMemsetD32)(CUdeviceptr dst, unsigned int v, size_t n);	/* _v2, optional */
	CUresult (*cuStreamCreate)(CUstream *s, unsigned int flags);
	CUresult (*cuStreamDestroy)(CUstream s);			/* _v2 */
	CUresult (*cuStreamSynchronize)(CUstream s);
	CUresult (*cuEventCreate)(CUevent *ev, unsigned int flags);
	CUresult (*cuEventRecord)(CUevent ev, CUstream s);
	CUresult (*cuEventSynchronize)(CUevent ev);
	CUresult (*cuEventElapsedTime)(float *ms, CUevent a, CUevent b);	/* _v2 from 12.8 */
	CUresult (*cuEventDestroy)(CUevent ev);				/* _v2 */
	/* optional (NULL when absent): burn's own kernels */
	CUresult (*cuModuleLoadData)(CUmodule *m, const void *image);
	CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule m, const char *name);
	CUresult (*cuModuleUnload)(CUmodule m);
	CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
				   unsigned bx, unsigned by, unsigned bz, unsigned shared,
				   CUstream s, void **params, void **extra);
};

struct cublas_api {
	void *handle;
	char *path;
	cublasStatus_t (*cublasCreate)(cublasHandle_t *h);		/* _v2 */
	cublasStatus_t (*cublasDestroy)(cublasHandle_t h);		/* _v2 */
	cublasStatus_t (*cublasGetVersion)(cublasHandle_t h, int *v);	/* _v2 */
	cublasStatus_t (*cublasSetStream)(cublasHandle_t h, CUstream s);	/* _v2 */
	cublasStatus_t (*cublasSetWorkspace)(cublasHandle_t h, void *ws, size_t n);	/* _v2, optional */
	cublasStatus_t (*cublasSetMathMode)(cublasHandle_t h, int mode);
	cublasStatus_t (*cublasGemmEx)(cublasHandle_t h, int transa, int transb,
				       int m, int n, int k, const void *alpha,
				       const void *a, int atype, int lda,
				       const void *b, int btype, int ldb,
				       const void *beta, void *c, int ctype, int ldc,
				       int compute, int algo);
	/* optional (NULL when absent): burn's checksum of each product */
	cublasStatus_t (*cublasSgemv)(cublasHandle_t h, int trans, int m, int n,
				      const float *alpha, const float *a, int lda,
				      const float *x, int incx, const float *beta,
				      float *y, int incy);			/* _v2 */
};

/* dlopen name (a soname or a path) and resolve every entry point. */
int bench_cuda_load(const char *name, struct cu_api *cu, struct err *e);
void bench_cuda_unload(struct cu_api *cu);
/* "CUDA_ERROR_OUT_OF_MEMORY (2)" into buf. */
const char *bench_cuda_errname(const struct cu_api *cu, CUresult rc, char *buf, size_t n);

/* Try each name in turn (NULL-terminated); the first that loads wins. */
int bench_cublas_load(const char *const *names, struct cublas_api *cb, struct err *e);
void bench_cublas_unload(struct cublas_api *cb);

#endif
