/* bench_cuda.c - dlopen and dlsym of libcuda and cuBLAS for bench; see bench_cuda.h. */
#include "bench/bench_cuda.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym into a function pointer without the object/function pointer cast
 * that ISO C leaves undefined. */
static int bench_sym(void *h, const char *name, void *fnptr)
{
	void *p = dlsym(h, name);

	if (!p)
		return -1;
	memcpy(fnptr, &p, sizeof(p));
	return 0;
}

static char *bench_dl_path(void *h)
{
	struct link_map *lm = NULL;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name)
		return xstrdup(lm->l_name);
	return NULL;
}

#define SYM(api, field, name) do { \
	if (bench_sym((api)->handle, name, &(api)->field) < 0) { \
		err_set(e, "%s has no symbol %s", (api)->path ? (api)->path : libname, name); \
		goto fail; \
	} \
} while (0)

int bench_cuda_load(const char *libname, struct cu_api *cu, struct err *e)
{
	memset(cu, 0, sizeof(*cu));
	cu->handle = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!cu->handle) {
		const char *why = dlerror();

		return err_set(e, "cannot load %s: %s", libname, why ? why : "unknown error");
	}
	cu->path = bench_dl_path(cu->handle);
	SYM(cu, cuInit, "cuInit");
	SYM(cu, cuDriverGetVersion, "cuDriverGetVersion");
	SYM(cu, cuGetErrorName, "cuGetErrorName");
	SYM(cu, cuDeviceGetCount, "cuDeviceGetCount");
	SYM(cu, cuDeviceGet, "cuDeviceGet");
	SYM(cu, cuDeviceGetName, "cuDeviceGetName");
	SYM(cu, cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
	SYM(cu, cuDeviceGetAttribute, "cuDeviceGetAttribute");
	SYM(cu, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM(cu, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	SYM(cu, cuCtxSetCurrent, "cuCtxSetCurrent");
	SYM(cu, cuCtxSynchronize, "cuCtxSynchronize");
	SYM(cu, cuMemGetInfo, "cuMemGetInfo_v2");
	SYM(cu, cuMemAlloc, "cuMemAlloc_v2");
	SYM(cu, cuMemFree, "cuMemFree_v2");
	SYM(cu, cuMemAllocHost, "cuMemAllocHost_v2");
	SYM(cu, cuMemFreeHost, "cuMemFreeHost");
	SYM(cu, cuMemcpyHtoD, "cuMemcpyHtoD_v2");
	SYM(cu, cuMemcpyDtoH, "cuMemcpyDtoH_v2");
	SYM(cu, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
	SYM(cu, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
	SYM(cu, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
	SYM(cu, cuMemsetD8, "cuMemsetD8_v2");
	if (bench_sym(cu->handle, "cuMemsetD32_v2", &cu->cuMemsetD32) < 0)
		cu->cuMemsetD32 = NULL;
	SYM(cu, cuStreamCreate, "cuStreamCreate");
	SYM(cu, cuStreamDestroy, "cuStreamDestroy_v2");
	SYM(cu, cuStreamSynchronize, "cuStreamSynchronize");
	SYM(cu, cuEventCreate, "cuEventCreate");
	SYM(cu, cuEventRecord, "cuEventRecord");
	SYM(cu, cuEventSynchronize, "cuEventSynchronize");
	SYM(cu, cuEventDestroy, "cuEventDestroy_v2");
	/* cuda.h maps cuEventElapsedTime to _v2 from CUDA 12.8; older drivers
	 * have only the plain name, with the same signature. */
	if (bench_sym(cu->handle, "cuEventElapsedTime_v2", &cu->cuEventElapsedTime) < 0)
		SYM(cu, cuEventElapsedTime, "cuEventElapsedTime");
	/* burn's kernels; bench runs without them */
	if (bench_sym(cu->handle, "cuModuleLoadData", &cu->cuModuleLoadData) < 0 ||
	    bench_sym(cu->handle, "cuModuleGetFunction", &cu->cuModuleGetFunction) < 0 ||
	    bench_sym(cu->handle, "cuModuleUnload", &cu->cuModuleUnload) < 0 ||
	    bench_sym(cu->handle, "cuLaunchKernel", &cu->cuLaunchKernel) < 0)
		cu->cuModuleLoadData = NULL;
	return 0;
fail:
	bench_cuda_unload(cu);
	return -1;
}

/* The libraries stay loaded: dlclose of libcuda or cuBLAS while their
 * static state lives can crash at exit, and the child exits right after. */
void bench_cuda_unload(struct cu_api *cu)
{
	free(cu->path);
	memset(cu, 0, sizeof(*cu));
}

const char *bench_cuda_errname(const struct cu_api *cu, CUresult rc, char *buf, size_t n)
{
	const char *s = NULL;

	if (cu && cu->cuGetErrorName && cu->cuGetErrorName(rc, &s) != GD_CUDA_SUCCESS)
		s = NULL;
	snprintf(buf, n, "%s (%d)", s ? s : "CUDA error", rc);
	return buf;
}

static int bench_cublas_try(const char *libname, struct cublas_api *cb, struct err *e)
{
	memset(cb, 0, sizeof(*cb));
	cb->handle = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!cb->handle) {
		const char *why = dlerror();

		return err_set(e, "cannot load %s: %s", libname, why ? why : "unknown error");
	}
	cb->path = bench_dl_path(cb->handle);
	SYM(cb, cublasCreate, "cublasCreate_v2");
	SYM(cb, cublasDestroy, "cublasDestroy_v2");
	SYM(cb, cublasGetVersion, "cublasGetVersion_v2");
	SYM(cb, cublasSetStream, "cublasSetStream_v2");
	SYM(cb, cublasSetMathMode, "cublasSetMathMode");
	SYM(cb, cublasGemmEx, "cublasGemmEx");
	if (bench_sym(cb->handle, "cublasSetWorkspace_v2", &cb->cublasSetWorkspace) < 0)
		cb->cublasSetWorkspace = NULL;
	if (bench_sym(cb->handle, "cublasSgemv_v2", &cb->cublasSgemv) < 0)
		cb->cublasSgemv = NULL;
	return 0;
fail:
	bench_cublas_unload(cb);
	return -1;
}

int bench_cublas_load(const char *const *names, struct cublas_api *cb, struct err *e)
{
	struct buf why = BUF_INIT;
	struct err one = ERR_INIT;

	for (; names && *names; names++) {
		if (bench_cublas_try(*names, cb, &one) == 0) {
			buf_release(&why);
			return 0;
		}
		buf_printf(&why, "%s%s", why.len ? "; " : "", one.msg);
	}
	err_set(e, "no cuBLAS could be loaded: %s", why.len ? why.s : "no candidates");
	buf_release(&why);
	return -1;
}

void bench_cublas_unload(struct cublas_api *cb)
{
	free(cb->path);
	memset(cb, 0, sizeof(*cb));
}
