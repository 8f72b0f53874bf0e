/* bench_cudnn.c - dlopen and dlsym of cuDNN for bench; see bench_cudnn.h. */
#include "bench/bench_cudnn.h"
#include "bench/bench_dl.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYM(field) do { \
	if (bench_dl_sym(dn->handle, #field, &dn->field) < 0) { \
		err_set(e, "%s has no symbol %s", dn->path ? dn->path : name, #field); \
		goto fail; \
	} \
} while (0)

static int bench_cudnn_try(const char *name, struct cudnn_api *dn, struct err *e)
{
	memset(dn, 0, sizeof(*dn));
	if (bench_dl_open(name, &dn->handle, &dn->path, e) < 0)
		return -1;
	SYM(cudnnGetVersion);
	SYM(cudnnGetErrorString);
	SYM(cudnnCreate);
	SYM(cudnnDestroy);
	SYM(cudnnSetStream);
	SYM(cudnnCreateTensorDescriptor);
	SYM(cudnnDestroyTensorDescriptor);
	SYM(cudnnSetTensor4dDescriptor);
	SYM(cudnnCreateFilterDescriptor);
	SYM(cudnnDestroyFilterDescriptor);
	SYM(cudnnSetFilter4dDescriptor);
	SYM(cudnnCreateConvolutionDescriptor);
	SYM(cudnnDestroyConvolutionDescriptor);
	SYM(cudnnSetConvolution2dDescriptor);
	SYM(cudnnSetConvolutionMathType);
	SYM(cudnnGetConvolutionForwardWorkspaceSize);
	SYM(cudnnFindConvolutionForwardAlgorithmEx);
	SYM(cudnnFindConvolutionBackwardDataAlgorithmEx);
	SYM(cudnnFindConvolutionBackwardFilterAlgorithmEx);
	SYM(cudnnConvolutionForward);
	SYM(cudnnConvolutionBackwardData);
	SYM(cudnnConvolutionBackwardFilter);
	cudnn_api_bind_optional(dn->handle, dn);
	return 0;
fail:
	bench_cudnn_unload(dn);
	return -1;
}

int bench_cudnn_load(const char *const *names, struct cudnn_api *dn, struct err *e)
{
	struct buf why = BUF_INIT;
	struct err one = ERR_INIT;

	for (; names && *names; names++) {
		if (bench_cudnn_try(*names, dn, &one) == 0) {
			buf_release(&why);
			return 0;
		}
		buf_printf(&why, "%s%s", why.len ? "; " : "", one.msg);
	}
	err_set(e, "no cuDNN could be loaded: %s", why.len ? why.s : "no candidates");
	buf_release(&why);
	return -1;
}

/* Stays loaded: the child exits right after, and cuDNN's static state
 * may not survive a dlclose. */
void bench_cudnn_unload(struct cudnn_api *dn)
{
	free(dn->path);
	memset(dn, 0, sizeof(*dn));
}

const char *bench_cudnn_errname(const struct cudnn_api *dn, cudnnStatus_t st, char *buf, size_t n)
{
	const char *s = dn && dn->cudnnGetErrorString ? dn->cudnnGetErrorString(st) : NULL;
	char last[256] = "";

	if (dn && dn->cudnnGetLastErrorString) {
		dn->cudnnGetLastErrorString(last, sizeof(last));
		last[sizeof(last) - 1] = '\0';
	}
	snprintf(buf, n, "%s (%d)%s%.200s", s && *s ? s : "cuDNN error", st, last[0] ? ": " : "", last);
	return buf;
}
