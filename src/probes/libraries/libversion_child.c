/*
 * libversion_child.c - child side of the isolated 'libversion' probe:
 * "gpudoctor __probe libversion PATH KIND", KIND one of cudart, cudnn,
 * nccl, cublas.
 *
 * dlopen()s PATH (RTLD_NOW | RTLD_LOCAL) and asks the library its version
 * with a call that needs no GPU and no driver:
 *   cudart  cudaError_t cudaRuntimeGetVersion(int *)      1000*major + 10*minor
 *   cudnn   size_t cudnnGetVersion(void)                   (kb_cudnn_decode rules)
 *           size_t cudnnGetCudartVersion(void)             CUDA runtime it was built for
 *   nccl    ncclResult_t ncclGetVersion(int *)             X*10000+Y*100+Z (2.9+),
 *                                                          X*1000+Y*100+Z before
 *   cublas  cublasStatus_t cublasGetProperty(int type, int *)  MAJOR_VERSION=0,
 *           MINOR_VERSION=1, PATCH_LEVEL=2 (cublasGetVersion_v2 needs a handle)
 * Symbol names checked with nm -D on the CUDA 13.0 libraries; cuDNN's and
 * NCCL's calls are declared in their one home (cudnn_api.h, nccl_api.h).  Prints
 * "raw=", "version=" (dotted), "loaded=" (dladdr of the symbol: the file the
 * loader really mapped), "cudart_version=" for cuDNN, or "error=" with
 * dlerror(); then "end".  A crash or hang is contained by the parent.
 */
#include "probes/children.h"
#include "probes/libraries/cudnn_api.h"
#include "probes/libraries/nccl_api.h"
#include "core/kv.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int (*int_ptr_fn)(int *);
typedef int (*prop_fn)(int, int *);

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p)
		kv_emit("error", "%s: %s", name, dlerror());
	return p;
}

static void emit_loaded(void *fn)
{
	Dl_info info;

	if (fn && dladdr(fn, &info) && info.dli_fname)
		kv_emit("loaded", "%s", info.dli_fname);
}

static void cudnn_decode(size_t v, char *out, size_t n)
{
	/* cuDNN 9: major*10000 + minor*100 + patch; before: major*1000 + minor*100 + patch */
	if (v >= 90000)
		snprintf(out, n, "%zu.%zu.%zu", v / 10000, (v % 10000) / 100, v % 100);
	else
		snprintf(out, n, "%zu.%zu.%zu", v / 1000, (v % 1000) / 100, v % 100);
}

/* The int (*)(int *) version calls (cudart, NCCL): emit where it loaded from
 * and the raw value.  f is the bound entry point (NULL when absent). */
static int int_version_run(int_ptr_fn f, const char *name, int *v)
{
	int rc;

	if (!f)
		return -1;
	emit_loaded((void *)f);
	*v = -1;
	rc = f(v);
	if (rc != 0) {
		kv_emit("error", "%s returned %d", name, rc);
		return -1;
	}
	kv_emit("raw", "%d", *v);
	return 0;
}

static int int_version_call(void *h, const char *name, int *v)
{
	return int_version_run((int_ptr_fn)sym(h, name), name, v);
}

static int do_cudart(void *h)
{
	int v;

	if (int_version_call(h, "cudaRuntimeGetVersion", &v) < 0)
		return -1;
	kv_emit("version", "%d.%d", v / 1000, (v % 1000) / 10);
	return 0;
}

static int do_cudnn(void *h)
{
	struct cudnn_api dn = { 0 };
	const char *missing = NULL;
	char s[64];
	size_t v;

	if (cudnn_api_bind_version(h, &dn, &missing) < 0) {
		kv_emit("error", "%s: %s", missing, dlerror());
		return -1;
	}
	emit_loaded((void *)dn.cudnnGetVersion);
	v = dn.cudnnGetVersion();
	kv_emit("raw", "%zu", v);
	cudnn_decode(v, s, sizeof(s));
	kv_emit("version", "%s", s);
	cudnn_api_bind_optional(h, &dn);
	if (dn.cudnnGetCudartVersion) {
		size_t c = dn.cudnnGetCudartVersion();

		kv_emit("cudart_raw", "%zu", c);
		kv_emit("cudart_version", "%zu.%zu", c / 1000, (c % 1000) / 10);
	}
	return 0;
}

static int do_nccl(void *h)
{
	struct nccl_api nc = { 0 };
	const char *missing = NULL;
	int v = -1;

	if (nccl_api_bind_version(h, &nc, &missing) < 0) {
		kv_emit("error", "%s: %s", missing, dlerror());
		return -1;
	}
	if (int_version_run((int_ptr_fn)nc.ncclGetVersion, "ncclGetVersion", &v) < 0)
		return -1;
	if (v >= 10000)
		kv_emit("version", "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
	else
		kv_emit("version", "%d.%d.%d", v / 1000, (v % 1000) / 100, v % 100);
	return 0;
}

static int do_cublas(void *h)
{
	prop_fn f = (prop_fn)sym(h, "cublasGetProperty");
	int part[3] = { -1, -1, -1 };

	if (!f)
		return -1;
	emit_loaded((void *)f);
	for (int i = 0; i < 3; i++) {
		int rc = f(i, &part[i]);

		if (rc != 0) {
			kv_emit("error", "cublasGetProperty(%d) returned %d", i, rc);
			return -1;
		}
	}
	kv_emit("raw", "%d.%d.%d", part[0], part[1], part[2]);
	kv_emit("version", "%d.%d.%d", part[0], part[1], part[2]);
	return 0;
}

int probe_main_libversion(int argc, char **argv)
{
	static const struct {
		const char *kind;
		int (*fn)(void *);
	} kinds[] = {
		{ "cudart", do_cudart }, { "cudnn", do_cudnn },
		{ "nccl", do_nccl }, { "cublas", do_cublas },
	};
	void *h;
	int (*fn)(void *) = NULL;

	if (argc < 3) {
		kv_emit("error", "usage: __probe libversion PATH cudart|cudnn|nccl|cublas");
		kv_end();
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, argv[2]) == 0)
			fn = kinds[i].fn;
	if (!fn) {
		kv_emit("error", "unknown kind '%s'", argv[2]);
		kv_end();
		return 2;
	}
	kv_emit("path", "%s", argv[1]);
	/* "" is what the parent passes for a path that cannot be resolved
	 * inside --root; dlopen("") would answer with gpudoctor itself */
	h = argv[1][0] ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!h) {
		const char *de = argv[1][0] ? dlerror() : NULL;

		kv_emit("dlopen_error", "%s", de ? de : "the path cannot be resolved inside the root");
		kv_end();
		return 0;
	}
	fn(h);
	/* no dlclose: some libraries crash in their destructors; the process ends */
	kv_end();
	return 0;
}
