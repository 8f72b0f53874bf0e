/* bench_nccl.c - NCCL collectives in the child; see bench_nccl.h. */
#include "bench/bench_nccl.h"
#include "bench/bench_refusal.h"
#include "bench/bench_coll.h"
#include "bench/bench_cuda.h"
#include "bench/bench_dl.h"
#include "bench/bench_progress.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/kv.h"
#include "core/xalloc.h"
#include "probes/driver/nvml_api.h"
#include "probes/libraries/nccl_api.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NC_MAX_GPUS 16
#define NC_FLOAT32 7
#define NC_SUM 0
#define NC_MIN_BYTES 8
#define NC_MAX_BYTES ((size_t)1 << 30)
#define NC_QUICK_MAX_BYTES ((size_t)64 << 20)
#define NC_SMOKE_BYTES ((size_t)1 << 20)

struct nc {
	const struct bench_nccl_opts *o;
	struct cu_api cu;
	struct nccl_api nc;
	int n;
	CUdevice dev[NC_MAX_GPUS];
	CUcontext ctx[NC_MAX_GPUS];
	int retained[NC_MAX_GPUS];
	CUstream stream[NC_MAX_GPUS];
	CUdeviceptr send[NC_MAX_GPUS], recv[NC_MAX_GPUS];
	ncclComm_t comm[NC_MAX_GPUS];
	size_t max_bytes;
	struct bench_refusal refusal;
};

static int nc_cuda(struct nc *g, CUresult rc, const char *what)
{
	char name[96];

	if (rc == GD_CUDA_SUCCESS)
		return 0;
	bench_cuda_errname(&g->cu, rc, name, sizeof(name));
	return bench_refuse(&g->refusal, rc == GD_CUDA_ERROR_OUT_OF_MEMORY ? CAUSE_GPU_OUT_OF_MEMORY : CAUSE_GPU_COMPUTE_FAILED,
			 "%s failed with %s", what, name);
}

static int nc_nccl(struct nc *g, ncclResult_t r, const char *what)
{
	const char *s;

	if (r == 0)
		return 0;
	s = g->nc.ncclGetErrorString ? g->nc.ncclGetErrorString(r) : NULL;
	return bench_refuse(&g->refusal, CAUSE_NCCL_CALL_FAILED, "%s failed with NCCL error %d (%.200s)", what, r, s ? s : "?");
}

#define NSYM(field) do { \
	if (bench_dl_sym(g->nc.handle, #field, &g->nc.field) < 0) \
		return err_set(e, "%s has no symbol %s", g->nc.path ? g->nc.path : name, #field); \
} while (0)

static int nc_syms(struct nc *g, const char *name, struct err *e)
{
	NSYM(ncclGetVersion);
	NSYM(ncclGetErrorString);
	NSYM(ncclCommInitAll);
	NSYM(ncclCommDestroy);
	NSYM(ncclAllReduce);
	NSYM(ncclAllGather);
	NSYM(ncclReduceScatter);
	NSYM(ncclGroupStart);
	NSYM(ncclGroupEnd);
	return 0;
}

static int nc_load(struct nc *g)
{
	const char *names[40];
	size_t n = 0;
	struct buf why = BUF_INIT;
	struct err one = ERR_INIT;
	int ver = 0;

	/* As with cuDNN: a library named on the command line, or the loader's pick. */
	for (const char *const *c = g->o->nccl; c && *c && n < 38; c++)
		names[n++] = *c;
	if (n == 0)
		names[n++] = "libnccl.so.2";
	names[n] = NULL;
	bench_progress("gpudoctor bench: loading NCCL...");
	for (const char *const *c = names; *c; c++) {
		memset(&g->nc, 0, sizeof(g->nc));
		one.msg[0] = '\0';
		if (bench_dl_open(*c, &g->nc.handle, &g->nc.path, &one) == 0 && nc_syms(g, *c, &one) == 0) {
			buf_release(&why);
			if (g->nc.path)
				kv_emit("nccl.library", "%s", g->nc.path);
			if (g->nc.ncclGetVersion(&ver) == 0)
				kv_emit("nccl.version_code", "%d", ver);
			return 0;
		}
		buf_printf(&why, "%s%s", why.len ? "; " : "", one.msg);
		free(g->nc.path);
		g->nc.path = NULL;
	}
	bench_refuse(&g->refusal, CAUSE_NCCL_MISSING, "no NCCL could be loaded: %s", why.len ? why.s : "no candidates");
	buf_release(&why);
	return -1;
}

/* Each GPU's active NVLinks and their version, from NVML: the ceiling. */
static void nc_nvlinks(struct nc *g)
{
	void *h;
	char *path = NULL;
	struct err e = ERR_INIT;
	static const struct cuda_sym_want want[] = {
		{ NVML_FN_init, CUDA_SYM_REQUIRED, 1 }, { NVML_FN_by_bus, CUDA_SYM_REQUIRED, 1 },
		{ NVML_FN_nvlink_state, CUDA_SYM_REQUIRED, 1 }, { NVML_FN_nvlink_version, CUDA_SYM_REQUIRED, 1 },
	};
	struct nvml_api nv;
	struct cuda_symtab_missing miss = CUDA_SYMTAB_MISSING_INIT;
	int bound;

	if (bench_dl_open(g->o->libnvml ? g->o->libnvml : "libnvidia-ml.so.1", &h, &path, &e) < 0) {
		kv_emit("nccl.nvml_error", "%s", e.msg);
		return;
	}
	free(path);
	bound = nvml_api_bind(h, &nv, want, sizeof(want) / sizeof(want[0]), &miss);
	cuda_symtab_missing_release(&miss);
	if (bound < 0 || nv.init() != NVML_SUCCESS) {
		kv_emit("nccl.nvml_error", "NVML lacks the NVLink queries or did not initialise");
		return;
	}
	for (int i = 0; i < g->n; i++) {
		char bus[64] = "";
		nvmlDevice_t d;
		int active = 0, cc = -1;
		unsigned ver = 0;

		if (g->cu.cuDeviceGetPCIBusId(bus, sizeof(bus), g->dev[i]) != GD_CUDA_SUCCESS || nv.by_bus(bus, &d) != NVML_SUCCESS)
			continue;
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int on = 0;
			unsigned v = 0;

			if (nv.nvlink_state(d, l, &on) != NVML_SUCCESS || on != 1)
				continue;
			active++;
			if (nv.nvlink_version(d, l, &v) == NVML_SUCCESS && v > ver)
				ver = v;
		}
		{
			char key[64];

			snprintf(key, sizeof(key), "nccl.gpu.%d.pci", i);
			kv_emit(key, "%s", bus);
			snprintf(key, sizeof(key), "nccl.gpu.%d.nvlinks", i);
			kv_emit(key, "%d", active);
			snprintf(key, sizeof(key), "nccl.gpu.%d.nvlink_version", i);
			kv_emit(key, "%u", ver);
			if (g->cu.cuDeviceGetAttribute(&cc, GD_CU_ATTR_CC_MAJOR, g->dev[i]) == GD_CUDA_SUCCESS) {
				snprintf(key, sizeof(key), "nccl.gpu.%d.cc_major", i);
				kv_emit(key, "%d", cc);
			}
		}
	}
}

static int nc_cuda_init(struct nc *g)
{
	struct err e = ERR_INIT;
	CUresult rc;
	char name[96];
	int count = 0;

	if (bench_cuda_load(g->o->libcuda ? g->o->libcuda : "libcuda.so.1", &g->cu, &e) < 0)
		return bench_refuse(&g->refusal, CAUSE_LIBCUDA_MISSING, "no GPU can be used: %s", e.msg);
	rc = g->cu.cuInit(0);
	if (rc == GD_CUDA_ERROR_NO_DEVICE)
		return bench_refuse(&g->refusal, CAUSE_NO_NVIDIA_GPU, "cuInit found no CUDA device (%s)", bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (rc != GD_CUDA_SUCCESS)
		return bench_refuse(&g->refusal, rc == GD_CUDA_ERROR_STUB_LIBRARY ? CAUSE_LIBCUDA_STUB_ON_PATH : CAUSE_CUDA_INIT_FAILED,
				 "cuInit failed with %s", bench_cuda_errname(&g->cu, rc, name, sizeof(name)));
	if (nc_cuda(g, g->cu.cuDeviceGetCount(&count), "cuDeviceGetCount") < 0)
		return -1;
	kv_emit("nccl.gpus", "%d", count);
	g->n = count > NC_MAX_GPUS ? NC_MAX_GPUS : count;
	return 0;
}

static int nc_setup(struct nc *g)
{
	char what[64];

	for (int i = 0; i < g->n; i++) {
		snprintf(what, sizeof(what), "cuMemAlloc_v2 on GPU %d", i);
		if (nc_cuda(g, g->cu.cuDeviceGet(&g->dev[i], i), "cuDeviceGet") < 0 ||
		    nc_cuda(g, g->cu.cuDevicePrimaryCtxRetain(&g->ctx[i], g->dev[i]), "cuDevicePrimaryCtxRetain") < 0)
			return -1;
		g->retained[i] = 1;
		if (nc_cuda(g, g->cu.cuCtxSetCurrent(g->ctx[i]), "cuCtxSetCurrent") < 0)
			return -1;
		if (i == 0) {
			size_t fr = 0, tot = 0;

			/* Two buffers per GPU and NCCL's own: the sweep stops at the
			 * largest power of two that leaves most memory alone. */
			if (nc_cuda(g, g->cu.cuMemGetInfo(&fr, &tot), "cuMemGetInfo_v2") < 0)
				return -1;
			while (g->max_bytes > NC_SMOKE_BYTES && g->max_bytes > fr / 4)
				g->max_bytes /= 2;
			kv_emit("nccl.max_bytes", "%zu", g->max_bytes);
		}
		if (
		    nc_cuda(g, g->cu.cuStreamCreate(&g->stream[i], GD_CU_STREAM_NON_BLOCKING), "cuStreamCreate") < 0 ||
		    nc_cuda(g, g->cu.cuMemAlloc(&g->send[i], g->max_bytes), what) < 0 ||
		    nc_cuda(g, g->cu.cuMemAlloc(&g->recv[i], g->max_bytes), what) < 0 ||
		    nc_cuda(g, g->cu.cuMemsetD8(g->send[i], 0, g->max_bytes), "cuMemsetD8_v2") < 0)
			return -1;
	}
	bench_progress("gpudoctor bench: NCCL: creating the communicator over %d GPUs...", g->n);
	return nc_nccl(g, g->nc.ncclCommInitAll(g->comm, g->n, NULL), "ncclCommInitAll");
}

static int nc_issue(struct nc *g, enum bench_coll c, size_t count)
{
	ncclResult_t r = g->nc.ncclGroupStart();

	for (int i = 0; i < g->n && r == 0; i++) {
		const void *s = (const void *)(uintptr_t)g->send[i];
		void *d = (void *)(uintptr_t)g->recv[i];

		if (c == BENCH_ALL_REDUCE)
			r = g->nc.ncclAllReduce(s, d, count, NC_FLOAT32, NC_SUM, g->comm[i], g->stream[i]);
		else if (c == BENCH_ALL_GATHER)
			r = g->nc.ncclAllGather(s, d, count, NC_FLOAT32, g->comm[i], g->stream[i]);
		else
			r = g->nc.ncclReduceScatter(s, d, count, NC_FLOAT32, NC_SUM, g->comm[i], g->stream[i]);
	}
	if (r == 0)
		r = g->nc.ncclGroupEnd();
	else
		g->nc.ncclGroupEnd();
	return nc_nccl(g, r, bench_coll_label(c));
}

static int nc_sync(struct nc *g)
{
	for (int i = 0; i < g->n; i++)
		if (nc_cuda(g, g->cu.cuStreamSynchronize(g->stream[i]), "cuStreamSynchronize") < 0)
			return -1;
	return 0;
}

/* Seconds per operation: a host clock around iters groups, as nccl-tests. */
static int nc_time(struct nc *g, enum bench_coll c, size_t count, int warmup, int iters, double *sec)
{
	double t0;

	for (int i = 0; i < warmup; i++)
		if (nc_issue(g, c, count) < 0)
			return -1;
	if (nc_sync(g) < 0)
		return -1;
	t0 = child_now();
	for (int i = 0; i < iters; i++)
		if (nc_issue(g, c, count) < 0)
			return -1;
	if (nc_sync(g) < 0)
		return -1;
	*sec = (child_now() - t0) / iters;
	return 0;
}

static int nc_sweep(struct nc *g)
{
	size_t step = g->o->quick ? 8 : 2;

	for (int c = 0; c < BENCH_NCOLLS; c++) {
		int idx = 0;

		bench_progress("gpudoctor bench: NCCL %s, 8 B to %zu MiB...", bench_coll_label(c), g->max_bytes >> 20);
		for (size_t bytes = NC_MIN_BYTES; bytes <= g->max_bytes; bytes *= step) {
			size_t count = bench_coll_count(c, bytes, g->n, 4);
			size_t real = bench_coll_bytes(c, count, g->n, 4);
			/* Small operations are latency: more of them; large ones
			 * are bandwidth: fewer suffice (nccl-tests runs 20 after 5). */
			int iters = real >= ((size_t)256 << 20) ? 10 : real >= ((size_t)16 << 20) ? 20 : 50;
			double sec;
			char key[64];

			if (!count)
				continue;
			if (nc_time(g, c, count, 5, iters, &sec) < 0)
				return -1;
			snprintf(key, sizeof(key), "nccl.%s.%d.bytes", bench_coll_name(c), idx);
			kv_emit(key, "%zu", real);
			snprintf(key, sizeof(key), "nccl.%s.%d.us", bench_coll_name(c), idx);
			kv_emit(key, "%.3f", sec * 1e6);
			idx++;
		}
	}
	return 0;
}

/* One all-reduce of rank+1 everywhere: every sum must be n(n+1)/2. */
static int nc_check(struct nc *g)
{
	size_t count = NC_SMOKE_BYTES / 4;
	float got[4], want = (float)(g->n * (g->n + 1) / 2);
	double t0 = child_now();
	int ok = 1;

	if (!g->cu.cuMemsetD32) {
		kv_emit("nccl.verified_error", "this libcuda has no cuMemsetD32_v2");
		return 0;
	}
	for (int i = 0; i < g->n; i++) {
		float v = (float)(i + 1);
		unsigned bits;

		memcpy(&bits, &v, sizeof(bits));
		if (nc_cuda(g, g->cu.cuCtxSetCurrent(g->ctx[i]), "cuCtxSetCurrent") < 0 ||
		    nc_cuda(g, g->cu.cuMemsetD32(g->send[i], bits, count), "cuMemsetD32_v2") < 0 ||
		    nc_cuda(g, g->cu.cuMemsetD8(g->recv[i], 0xff, count * 4), "cuMemsetD8_v2") < 0 ||
		    /* the memsets ran on the legacy stream, which NCCL's
		     * non-blocking streams do not wait for */
		    nc_cuda(g, g->cu.cuCtxSynchronize(), "cuCtxSynchronize") < 0)
			return -1;
	}
	if (nc_issue(g, BENCH_ALL_REDUCE, count) < 0 ||
	    nc_sync(g) < 0)
		return -1;
	for (int i = 0; i < g->n; i++) {
		size_t at[4] = { 0, count / 3, count / 2, count - 1 };

		for (int k = 0; k < 4; k++)
			if (nc_cuda(g, g->cu.cuMemcpyDtoH(&got[k], g->recv[i] + at[k] * 4, 4), "cuMemcpyDtoH_v2") < 0)
				return -1;
		for (int k = 0; k < 4; k++)
			if (got[k] != want)
				ok = 0;
	}
	kv_emit("nccl.verified", "%d", ok);
	kv_emit("nccl.check_ms", "%.3f", (child_now() - t0) * 1e3);
	return 0;
}

static void nc_cleanup(struct nc *g)
{
	for (int i = 0; i < g->n; i++) {
		if (g->comm[i])
			g->nc.ncclCommDestroy(g->comm[i]);
		if (g->retained[i])
			g->cu.cuCtxSetCurrent(g->ctx[i]);
		if (g->send[i])
			g->cu.cuMemFree(g->send[i]);
		if (g->recv[i])
			g->cu.cuMemFree(g->recv[i]);
		if (g->stream[i])
			g->cu.cuStreamDestroy(g->stream[i]);
		if (g->retained[i])
			g->cu.cuDevicePrimaryCtxRelease(g->dev[i]);
	}
	free(g->nc.path);
	bench_cuda_unload(&g->cu);
}

int bench_nccl_measure(const struct bench_nccl_opts *o)
{
	struct nc g;
	double start = child_now();

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.max_bytes = o->smoke ? NC_SMOKE_BYTES : o->quick ? NC_QUICK_MAX_BYTES : NC_MAX_BYTES;
	/* NCCL reads these when it initialises; its log must not mix with our
	 * key=value lines on stdout. */
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,ENV", 1);
	setenv("NCCL_DEBUG_FILE", "/dev/stderr", 1);
	kv_emit("nccl.smoke", "%d", o->smoke);
	if (nc_load(&g) == 0 && nc_cuda_init(&g) == 0) {
		if (g.n < 2) {
			kv_emit("nccl.skipped", "CUDA sees %d GPU%s: collectives need two or more", g.n, g.n == 1 ? "" : "s");
		} else {
			nc_nvlinks(&g);
			if (nc_setup(&g) == 0 && nc_check(&g) == 0 && !o->smoke)
				nc_sweep(&g);
		}
	}
	nc_cleanup(&g);
	bench_refusal_emit(&g.refusal, "nccl.refuse");
	kv_emit("nccl.seconds", "%.3f", child_now() - start);
	return 0;
}
