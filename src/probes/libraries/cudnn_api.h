/*
 * cudnn_api.h - the one declaration of cuDNN (libcudnn.so.8/9) in
 * gpudoctor: its types, the constants we use and one struct of entry
 * points.  Used by child sides only: the libversion probe's child
 * (probes/libraries/libversion_child.c asks cudnnGetVersion) and bench's
 * convolution child (bench/bench_cudnn.c binds the rest).
 *
 * Prototypes and values are those of cudnn_graph.h, cudnn_ops.h and
 * cudnn_cnn.h of cuDNN 9.19 (/usr/local/cuda/include); handles are opaque
 * pointers; cudaStream_t is CUstream.  The three *AlgoPerf_t structs share
 * one layout.  No NVIDIA header is vendored.
 *
 *	struct cudnn_api dn = { 0 };
 *	if (cudnn_api_bind_version(handle, &dn, &missing) < 0) ...;
 *	v = dn.cudnnGetVersion();
 *	cudnn_api_bind_optional(handle, &dn);	// the calls a release may lack
 */
#ifndef GD_CUDNN_API_H
#define GD_CUDNN_API_H

#include <stddef.h>

#include "probes/cuda/cuda_api.h"

typedef int cudnnStatus_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

#define GD_CUDNN_STATUS_SUCCESS 0
#define GD_CUDNN_STATUS_NOT_INITIALIZED 1001
#define GD_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED 1008
#define GD_CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH 3007
#define GD_CUDNN_STATUS_EXECUTION_FAILED 5000
#define GD_CUDNN_DATA_FLOAT 0
#define GD_CUDNN_DATA_HALF 2
#define GD_CUDNN_DATA_BFLOAT16 9
#define GD_CUDNN_DEFAULT_MATH 0
#define GD_CUDNN_TENSOR_OP_MATH 1
#define GD_CUDNN_TENSOR_NHWC 1
#define GD_CUDNN_CROSS_CORRELATION 1
#define GD_CUDNN_FWD_ALGO_IMPLICIT_PRECOMP_GEMM 1
#define GD_CUDNN_FWD_ALGO_COUNT 8
#define GD_CUDNN_BWD_DATA_ALGO_COUNT 6
#define GD_CUDNN_BWD_FILTER_ALGO_COUNT 7

/* cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t */
struct cudnn_perf {
	int algo;
	cudnnStatus_t status;
	float time;		/* ms */
	size_t memory;		/* workspace bytes */
	int determinism;
	int math_type;
	int reserved[3];
};

struct cudnn_api {
	void *handle;
	char *path;		/* the file the loader picked */
	size_t (*cudnnGetVersion)(void);
	const char *(*cudnnGetErrorString)(cudnnStatus_t st);
	void (*cudnnGetLastErrorString)(char *msg, size_t n);	/* optional (9.0+) */
	size_t (*cudnnGetCudartVersion)(void);			/* optional: the CUDA runtime it was built for */
	cudnnStatus_t (*cudnnCreate)(cudnnHandle_t *h);
	cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t h);
	cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t h, CUstream s);
	cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t *d);
	cudnnStatus_t (*cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t d);
	cudnnStatus_t (*cudnnSetTensor4dDescriptor)(cudnnTensorDescriptor_t d, int format, int dtype,
						    int n, int c, int h, int w);
	cudnnStatus_t (*cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t *d);
	cudnnStatus_t (*cudnnDestroyFilterDescriptor)(cudnnFilterDescriptor_t d);
	cudnnStatus_t (*cudnnSetFilter4dDescriptor)(cudnnFilterDescriptor_t d, int dtype, int format,
						    int k, int c, int h, int w);
	cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *d);
	cudnnStatus_t (*cudnnDestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t d);
	cudnnStatus_t (*cudnnSetConvolution2dDescriptor)(cudnnConvolutionDescriptor_t d, int pad_h, int pad_w,
							 int u, int v, int dil_h, int dil_w, int mode,
							 int compute_type);
	cudnnStatus_t (*cudnnSetConvolutionMathType)(cudnnConvolutionDescriptor_t d, int math);
	cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t h, cudnnTensorDescriptor_t x,
								 cudnnFilterDescriptor_t w,
								 cudnnConvolutionDescriptor_t conv,
								 cudnnTensorDescriptor_t y, int algo, size_t *bytes);
	cudnnStatus_t (*cudnnFindConvolutionForwardAlgorithmEx)(
		cudnnHandle_t h, cudnnTensorDescriptor_t xd, const void *x, cudnnFilterDescriptor_t wd,
		const void *w, cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t yd, void *y,
		int requested, int *returned, struct cudnn_perf *perf, void *ws, size_t ws_bytes);
	cudnnStatus_t (*cudnnFindConvolutionBackwardDataAlgorithmEx)(
		cudnnHandle_t h, cudnnFilterDescriptor_t wd, const void *w, cudnnTensorDescriptor_t dyd,
		const void *dy, cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dxd, void *dx,
		int requested, int *returned, struct cudnn_perf *perf, void *ws, size_t ws_bytes);
	cudnnStatus_t (*cudnnFindConvolutionBackwardFilterAlgorithmEx)(
		cudnnHandle_t h, cudnnTensorDescriptor_t xd, const void *x, cudnnTensorDescriptor_t dyd,
		const void *dy, cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dwd, void *dw,
		int requested, int *returned, struct cudnn_perf *perf, void *ws, size_t ws_bytes);
	cudnnStatus_t (*cudnnConvolutionForward)(
		cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t xd, const void *x,
		cudnnFilterDescriptor_t wd, const void *w, cudnnConvolutionDescriptor_t conv, int algo,
		void *ws, size_t ws_bytes, const void *beta, cudnnTensorDescriptor_t yd, void *y);
	cudnnStatus_t (*cudnnConvolutionBackwardData)(
		cudnnHandle_t h, const void *alpha, cudnnFilterDescriptor_t wd, const void *w,
		cudnnTensorDescriptor_t dyd, const void *dy, cudnnConvolutionDescriptor_t conv, int algo,
		void *ws, size_t ws_bytes, const void *beta, cudnnTensorDescriptor_t dxd, void *dx);
	cudnnStatus_t (*cudnnConvolutionBackwardFilter)(
		cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t xd, const void *x,
		cudnnTensorDescriptor_t dyd, const void *dy, cudnnConvolutionDescriptor_t conv, int algo,
		void *ws, size_t ws_bytes, const void *beta, cudnnFilterDescriptor_t dwd, void *dw);
};

/*
 * Binds cudnnGetVersion, the one call every cuDNN has and that needs no
 * GPU; on failure *missing names it and the result is -1.
 */
int cudnn_api_bind_version(void *handle, struct cudnn_api *api, const char **missing);
/* Binds the calls a release may lack (cudnnGetLastErrorString: 9.0+,
   cudnnGetCudartVersion); each missing one stays NULL. */
void cudnn_api_bind_optional(void *handle, struct cudnn_api *api);

#endif
