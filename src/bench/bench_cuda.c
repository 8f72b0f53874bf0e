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

/* In the order bench has always resolved them, so that the first missing
 * one is the one named. */
static const struct cuda_sym_want bench_cuda_want[] = {
	{ CUDA_FN_cuInit, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDriverGetVersion, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuGetErrorName, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDeviceGetCount, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDeviceGet, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDeviceGetName, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDeviceGetPCIBusId, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDeviceGetAttribute, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDevicePrimaryCtxRetain, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuDevicePrimaryCtxRelease, CUDA_SYM_REQUIRED, 1 },
	{ CUDA_FN_cuCtxSetCurrent, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuCtxSynchronize, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemGetInfo, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemAlloc, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemFree, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemAllocHost, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemFreeHost, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemcpyHtoD, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemcpyDtoH, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemcpyHtoDAsync, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemcpyDtoHAsync, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemcpyDtoDAsync, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemsetD8, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuMemsetD32, CUDA_SYM_OPTIONAL, 0 },
	{ CUDA_FN_cuStreamCreate, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuStreamDestroy, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuStreamSynchronize, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuEventCreate, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuEventRecord, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuEventSynchronize, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuEventDestroy, CUDA_SYM_REQUIRED, 0 },
	{ CUDA_FN_cuEventElapsedTime, CUDA_SYM_REQUIRED, 0 },
	/* burn's kernels; bench runs without them */
	{ CUDA_FN_cuModuleLoadData, CUDA_SYM_OPTIONAL, 0 },
	{ CUDA_FN_cuModuleGetFunction, CUDA_SYM_OPTIONAL, 0 },
	{ CUDA_FN_cuModuleUnload, CUDA_SYM_OPTIONAL, 0 },
	{ CUDA_FN_cuLaunchKernel, CUDA_SYM_OPTIONAL, 0 },
};

int bench_cuda_load(const char *libname, struct cu_api *cu, struct err *e)
{
	struct cuda_symtab_missing miss = CUDA_SYMTAB_MISSING_INIT;

	memset(cu, 0, sizeof(*cu));
	cu->handle = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!cu->handle) {
		const char *why = dlerror();

		return err_set(e, "cannot load %s: %s", libname, why ? why : "unknown error");
	}
	cu->path = bench_dl_path(cu->handle);
	if (cuda_api_bind(cu->handle, cu, bench_cuda_want,
			  sizeof(bench_cuda_want) / sizeof(bench_cuda_want[0]), &miss) < 0) {
		/* the first missing one, as a single name */
		err_set(e, "%s has no symbol %.*s", cu->path ? cu->path : libname,
			(int)strcspn(miss.required.s, ","), miss.required.s);
		cuda_symtab_missing_release(&miss);
		bench_cuda_unload(cu);
		return -1;
	}
	cuda_symtab_missing_release(&miss);
	/* all four or none: burn's kernels need every one */
	if (!cu->cuModuleGetFunction || !cu->cuModuleUnload || !cu->cuLaunchKernel)
		cu->cuModuleLoadData = NULL;
	return 0;
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
