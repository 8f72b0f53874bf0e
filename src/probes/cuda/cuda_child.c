/*
 * cuda_child.c - child side of the isolated 'cuda' probe:
 * "gpudoctor __probe cuda /path/to/libcuda.so.1 [--hold]".
 *
 * Loads the CUDA driver API through a symbol table, times cuInit, lists the
 * devices, and on each device: retains the primary context, JIT-loads the
 * embedded PTX kernel (ptx_kernel.h), runs it on real data and checks every
 * element against the CPU.  Prints key=value lines (core/kv.h), ending with
 * "end"; cuda.c turns them into the inventory.  A failing call is printed as
 * "dev.N.fail.call" / "dev.N.fail.result" and ends that device's work.
 * With --hold it waits, after cuInit and the device facts and before the
 * first context, until the parent releases it (cuda.h).  Devices run in
 * parallel, one thread each; "end" is written before the contexts are
 * released, and the parent does not wait for that release
 * (child_finish_at_end in core/child.h).
 *
 * The primary context is used (not cuCtxCreate, whose newest form takes
 * parameters since CUDA 13) because it is what the runtime and the
 * frameworks use, and because cuDevicePrimaryCtxRetain has one signature in
 * every driver since CUDA 7.
 */
#include "probes/children.h"
#include "core/child.h"
#include "core/kv.h"
#include "probes/cuda/cuda.h"
#include "probes/cuda/cuda_api.h"
#include "probes/cuda/ptx_kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define KERNEL_N 4096u
#define KERNEL_BLOCK 256u
#define KERNEL_A 2654435761u	/* odd: every input maps to a distinct output */
#define KERNEL_B 12345u

static struct cu_api cu;

#define SYM(slot, need) { CUDA_FN_##slot, need, 0 }

static const struct cuda_sym_want cuda_syms[] = {
	SYM(cuInit, CUDA_SYM_REQUIRED),
	SYM(cuDriverGetVersion, CUDA_SYM_REQUIRED),
	SYM(cuDeviceGetCount, CUDA_SYM_REQUIRED),
	SYM(cuDeviceGet, CUDA_SYM_REQUIRED),
	SYM(cuDeviceGetName, CUDA_SYM_REQUIRED),
	SYM(cuDeviceGetAttribute, CUDA_SYM_REQUIRED),
	SYM(cuDeviceTotalMem, CUDA_SYM_REQUIRED),
	SYM(cuDevicePrimaryCtxRetain, CUDA_SYM_REQUIRED),
	SYM(cuDevicePrimaryCtxRelease, CUDA_SYM_REQUIRED),
	SYM(cuCtxSetCurrent, CUDA_SYM_REQUIRED),
	SYM(cuCtxSynchronize, CUDA_SYM_REQUIRED),
	SYM(cuModuleLoadData, CUDA_SYM_REQUIRED),
	SYM(cuModuleUnload, CUDA_SYM_REQUIRED),
	SYM(cuModuleGetFunction, CUDA_SYM_REQUIRED),
	SYM(cuMemAlloc, CUDA_SYM_REQUIRED),
	SYM(cuMemFree, CUDA_SYM_REQUIRED),
	SYM(cuMemcpyHtoD, CUDA_SYM_REQUIRED),
	SYM(cuMemcpyDtoH, CUDA_SYM_REQUIRED),
	SYM(cuLaunchKernel, CUDA_SYM_REQUIRED),
	SYM(cuGetErrorName, CUDA_SYM_OPTIONAL),
};

static void cuda_emit(const char *key_prefix, int dev, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cuda_emit(const char *key_prefix, int dev, const char *field, const char *fmt, ...)
{
	char key[96], val[512];
	va_list ap;

	snprintf(key, sizeof(key), "%s.%d.%s", key_prefix, dev, field);
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	kv_emit(key, "%s", val);
}

/* Record the failing call of a device's kernel run; returns -1. */
static int cuda_fail(int dev, const char *call, CUresult rc)
{
	cuda_emit("dev", dev, "fail.call", "%s", call);
	cuda_emit("dev", dev, "fail.result", "%d", rc);
	return -1;
}

#define MS(t0) ((child_now() - (t0)) * 1000.0)

/* One device's run: what it holds until the answer is out (cuda_teardown). */
struct cuda_run {
	int dev;
	CUdevice d;
	int ok;			/* its facts were read */
	int retained;
	CUcontext ctx;
	CUmodule mod;
	CUdeviceptr din, dout;
	int ret;
};

/* Context, module, buffers, launch, check: every phase timed.  Frees nothing. */
static int cuda_run_kernel(struct cuda_run *run)
{
	static __thread uint32_t in[KERNEL_N], out[KERNEL_N];
	const size_t bytes = sizeof(in);
	const int dev = run->dev;
	CUfunction fn = NULL;
	uint32_t a = KERNEL_A, b = KERNEL_B, n = KERNEL_N;
	void *params[5];
	double t0;
	size_t bad = 0;
	CUresult rc;

	ptx_axpb_fill(in, KERNEL_N);
	memset(out, 0, sizeof(out));
	t0 = child_now();
	if ((rc = cu.cuDevicePrimaryCtxRetain(&run->ctx, run->d)) != 0)
		return cuda_fail(dev, "cuDevicePrimaryCtxRetain", rc);
	run->retained = 1;
	if ((rc = cu.cuCtxSetCurrent(run->ctx)) != 0)
		return cuda_fail(dev, "cuCtxSetCurrent", rc);
	/* The first real work forces the lazily created context into being. */
	if ((rc = cu.cuMemAlloc(&run->din, bytes)) != 0)
		return cuda_fail(dev, "cuMemAlloc_v2", rc);
	cuda_emit("dev", dev, "context_ms", "%.3f", MS(t0));
	t0 = child_now();
	if ((rc = cu.cuModuleLoadData(&run->mod, ptx_kernel_axpb)) != 0)
		return cuda_fail(dev, "cuModuleLoadData", rc);
	if ((rc = cu.cuModuleGetFunction(&fn, run->mod, PTX_KERNEL_AXPB_ENTRY)) != 0)
		return cuda_fail(dev, "cuModuleGetFunction", rc);
	cuda_emit("dev", dev, "module_ms", "%.3f", MS(t0));
	if ((rc = cu.cuMemAlloc(&run->dout, bytes)) != 0)
		return cuda_fail(dev, "cuMemAlloc_v2", rc);
	t0 = child_now();
	if ((rc = cu.cuMemcpyHtoD(run->din, in, bytes)) != 0)
		return cuda_fail(dev, "cuMemcpyHtoD_v2", rc);
	params[0] = &run->dout;
	params[1] = &run->din;
	params[2] = &a;
	params[3] = &b;
	params[4] = &n;
	if ((rc = cu.cuLaunchKernel(fn, KERNEL_N / KERNEL_BLOCK, 1, 1, KERNEL_BLOCK, 1, 1, 0, NULL,
			    params, NULL)) != 0)
		return cuda_fail(dev, "cuLaunchKernel", rc);
	if ((rc = cu.cuCtxSynchronize()) != 0)
		return cuda_fail(dev, "cuCtxSynchronize", rc);
	if ((rc = cu.cuMemcpyDtoH(out, run->dout, bytes)) != 0)
		return cuda_fail(dev, "cuMemcpyDtoH_v2", rc);
	cuda_emit("dev", dev, "kernel_ms", "%.3f", MS(t0));
	if (ptx_axpb_verify(in, out, KERNEL_N, a, b, &bad) == 0) {
		cuda_emit("dev", dev, "kernel_ok", "1");
		return 0;
	}
	cuda_emit("dev", dev, "kernel_ok", "0");
	cuda_emit("dev", dev, "mismatch", "element %zu of %u: got 0x%08x, expected 0x%08x",
		  bad, KERNEL_N, out[bad], ptx_axpb_expect(in[bad], a, b));
	return -1;
}

static void *cuda_run_thread(void *arg)
{
	struct cuda_run *run = arg;

	run->ret = cuda_run_kernel(run);
	return NULL;
}

/*
 * After the "end" line: nobody waits for this any more (the parent stops
 * reading at "end"), so it no longer delays the check.  Whatever a device
 * holds is freed in its context, then the primary context is released.
 */
static void cuda_teardown(struct cuda_run *run)
{
	if (!run->retained)
		return;
	if (cu.cuCtxSetCurrent(run->ctx) == 0) {
		if (run->dout)
			cu.cuMemFree(run->dout);
		if (run->mod)
			cu.cuModuleUnload(run->mod);
		if (run->din)
			cu.cuMemFree(run->din);
	}
	cu.cuDevicePrimaryCtxRelease(run->d);
}

/*
 * Every device at once, one thread each: contexts are created in parallel,
 * so a machine with N GPUs costs cuInit plus its slowest context, not the
 * sum.  One device (or a thread that cannot start) runs on this thread.
 */
static void cuda_run_all(struct cuda_run *runs, int count)
{
	pthread_t th[64];
	int started[64];

	for (int i = 0; i < count; i++) {
		started[i] = 0;
		if (!runs[i].ok)
			continue;
		if (count > 1 && pthread_create(&th[i], NULL, cuda_run_thread, &runs[i]) == 0)
			started[i] = 1;
		else
			cuda_run_thread(&runs[i]);
	}
	for (int i = 0; i < count; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

/* The device's facts (no context needed); -1 when it cannot even be named. */
static int cuda_device_facts(int dev, CUdevice *out)
{
	CUdevice d;
	char name[256];
	int v, maj = -1, min = -1, bus = -1, slot = -1, dom = -1;
	size_t mem;
	CUresult rc;

	if ((rc = cu.cuDeviceGet(&d, dev)) != 0) {
		cuda_fail(dev, "cuDeviceGet", rc);
		return -1;
	}
	memset(name, 0, sizeof(name));
	if (cu.cuDeviceGetName(name, (int)sizeof(name) - 1, d) == 0)
		cuda_emit("dev", dev, "name", "%s", name);
	if (cu.cuDeviceGetAttribute(&maj, GD_CU_ATTR_CC_MAJOR, d) == 0 && cu.cuDeviceGetAttribute(&min, GD_CU_ATTR_CC_MINOR, d) == 0)
		cuda_emit("dev", dev, "cc", "%d.%d", maj, min);
	if (cu.cuDeviceGetAttribute(&v, GD_CU_ATTR_MULTIPROCESSOR_COUNT, d) == 0)
		cuda_emit("dev", dev, "sm_count", "%d", v);
	if (cu.cuDeviceTotalMem(&mem, d) == 0)
		cuda_emit("dev", dev, "memory_bytes", "%zu", mem);
	if (cu.cuDeviceGetAttribute(&bus, GD_CU_ATTR_PCI_BUS_ID, d) == 0 && cu.cuDeviceGetAttribute(&slot, GD_CU_ATTR_PCI_DEVICE_ID, d) == 0 &&
	    cu.cuDeviceGetAttribute(&dom, GD_CU_ATTR_PCI_DOMAIN_ID, d) == 0)
		cuda_emit("dev", dev, "bus_id", "%08x:%02x:%02x.0", (unsigned)dom, (unsigned)bus,
			  (unsigned)slot);
	*out = d;
	return 0;
}

/*
 * "--hold": the parent started us beside its NVML probe and lets us go on
 * with CUDA_RELEASE_SIGNAL once NVML is done, so that NVML never counts our
 * context in a GPU's used memory or its process list.  The signal is blocked
 * since before exec (inherited), so one sent early is kept pending.  The
 * parent kills us at its deadline; the cap here only bounds a lost signal.
 */
static void cuda_hold(void)
{
	struct timespec cap = { 60, 0 };
	sigset_t s;
	double t0 = child_now();

	sigemptyset(&s);
	sigaddset(&s, CUDA_RELEASE_SIGNAL);
	sigprocmask(SIG_BLOCK, &s, NULL);
	while (sigtimedwait(&s, NULL, &cap) < 0 && errno == EINTR)
		;
	kv_emit("hold_ms", "%.3f", MS(t0));
}

/*
 * A crash inside the library must kill this process by its signal, so that
 * the parent reports "crashed with SIGSEGV"; sanitizer runtimes would
 * otherwise catch it and exit with a status instead.
 */
static void child_default_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

int probe_main_cuda(int argc, char **argv)
{
	struct cuda_symtab_missing miss = CUDA_SYMTAB_MISSING_INIT;
	double t0;
	void *h;
	CUresult rc;
	static struct cuda_run runs[64];
	int v, count = 0, hold;

	if (argc < 2 || (argc > 2 && strcmp(argv[2], "--hold") != 0)) {
		fputs("usage: gpudoctor __probe cuda LIBRARY [--hold]\n", stderr);
		return 2;
	}
	hold = argc > 2;
	child_default_signals();
	kv_emit("lib", "%s", argv[1]);
	t0 = child_now();
	/* "" is what the parent passes for a path that cannot be resolved
	 * inside --root; dlopen("") would answer with gpudoctor itself */
	h = argv[1][0] ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!h) {
		const char *de = dlerror();

		kv_emit("dlopen_error", "%s", de ? de : argv[1][0] ? "dlopen failed"
			: "the path cannot be resolved inside the root");
		kv_end();
		return 0;
	}
	kv_emit("dlopen_ms", "%.3f", MS(t0));
	if (cuda_api_bind(h, &cu, cuda_syms, sizeof(cuda_syms) / sizeof(cuda_syms[0]), &miss) < 0) {
		kv_emit("missing_required", "%s", miss.required.s);
		cuda_symtab_missing_release(&miss);
		kv_end();
		return 0;
	}
	cuda_symtab_missing_release(&miss);
	t0 = child_now();
	rc = cu.cuInit(0);
	kv_emit("init.ms", "%.3f", MS(t0));
	kv_emit("init.result", "%d", rc);
	if (cu.cuDriverGetVersion(&v) == 0)
		kv_emit("driver_version", "%d", v);
	if (rc != 0) {
		kv_end();
		return 0;
	}
	rc = cu.cuDeviceGetCount(&count);
	if (rc != 0) {
		kv_emit("count.result", "%d", rc);
		kv_end();
		return 0;
	}
	kv_emit("device_count", "%d", count);
	if (count > 64)
		count = 64;
	/* Every device's facts first: they need no context, so no hold. */
	for (int i = 0; i < count; i++) {
		runs[i].dev = i;
		runs[i].ok = cuda_device_facts(i, &runs[i].d) == 0;
	}
	if (hold)
		cuda_hold();
	cuda_run_all(runs, count);
	kv_end();
	/*
	 * The answer is out: the parent may exit before the teardown below is
	 * done, so this process must not die with it (PR_SET_PDEATHSIG from
	 * core/child.c), and it must still end on its own if a release hangs.
	 */
	prctl(PR_SET_PDEATHSIG, 0);
	alarm(30);
	for (int i = 0; i < count; i++)
		cuda_teardown(&runs[i]);
	return 0;
}
