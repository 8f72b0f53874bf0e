/*
 * bench_cuda.h - loading the CUDA driver API and cuBLAS for bench and burn
 * (child side only).  The driver API is declared once, in
 * probes/cuda/cuda_api.h; the cuBLAS entry points bench uses are declared
 * here by hand and resolved with dlsym.
 *
 * Signatures, versioned symbol names (cublasCreate_v2 ...) and enum values
 * are those of NVIDIA's cublas_api.h and library_types.h (CUDA 13.0); only
 * what bench calls is declared.
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
#include "probes/cuda/cuda_api.h"

typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;

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
