/*
 * nvml_child.c - child side of the isolated 'nvml' probe:
 * "gpudoctor __probe nvml /path/to/libnvidia-ml.so.1".
 *
 * Loads NVML (RTLD_NOW | RTLD_LOCAL) through a symbol table, initialises it
 * and prints what it says as key=value lines (core/kv.h), ending with "end".
 * Every call that does not return NVML_SUCCESS leaves its fact unknown and
 * prints "gpu.N.err.FIELD=CODE" instead, so the parent can tell "not
 * supported" from "GPU lost".  The parent (nvml_parse.c) turns the lines into
 * the driver inventory.  Runs in a throw-away process: a crash or a hang in
 * NVML is contained by the parent.
 *
 * NVML's types and entry points are declared once, in nvml_api.h.
 */
#include "probes/children.h"
#include "core/buf.h"
#include "core/kv.h"
#include "probes/driver/nvml_api.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nvml_api nv;

#define SYM(slot, need) { NVML_FN_##slot, need, 0 }

/* Newest entry point first; the fallback has the same signature. */
static const struct cuda_sym_want nvml_syms[] = {
	SYM(init, CUDA_SYM_REQUIRED),
	SYM(shutdown, CUDA_SYM_REQUIRED),
	SYM(error_string, CUDA_SYM_OPTIONAL),
	SYM(driver_version, CUDA_SYM_REQUIRED),
	SYM(cuda_version, CUDA_SYM_OPTIONAL),
	SYM(count, CUDA_SYM_REQUIRED),
	SYM(handle, CUDA_SYM_REQUIRED),
	SYM(name, CUDA_SYM_OPTIONAL),
	SYM(uuid, CUDA_SYM_OPTIONAL),
	SYM(pci, CUDA_SYM_OPTIONAL),
	SYM(memory, CUDA_SYM_OPTIONAL),
	SYM(memory_v2, CUDA_SYM_OPTIONAL),
	SYM(util, CUDA_SYM_OPTIONAL),
	SYM(temperature, CUDA_SYM_OPTIONAL),
	SYM(power, CUDA_SYM_OPTIONAL),
	SYM(power_limit, CUDA_SYM_OPTIONAL),
	SYM(persistence, CUDA_SYM_OPTIONAL),
	SYM(display_mode, CUDA_SYM_OPTIONAL),
	SYM(compute_mode, CUDA_SYM_OPTIONAL),
	SYM(mig_mode, CUDA_SYM_OPTIONAL),
	SYM(ecc_mode, CUDA_SYM_OPTIONAL),
	SYM(ecc_total, CUDA_SYM_OPTIONAL),
	SYM(retired_pending, CUDA_SYM_OPTIONAL),
	SYM(remapped_rows, CUDA_SYM_OPTIONAL),
	SYM(procs, CUDA_SYM_OPTIONAL),
	SYM(procs_v1, CUDA_SYM_OPTIONAL),
	SYM(mig_max, CUDA_SYM_OPTIONAL),
	SYM(mig_handle, CUDA_SYM_OPTIONAL),
	SYM(fabric, CUDA_SYM_OPTIONAL),
};

/* kv_emit with a printf-style key. */
static void nvml_emit(const char *val, const char *keyfmt, ...)
	__attribute__((format(printf, 2, 3)));
static void nvml_emit(const char *val, const char *keyfmt, ...)
{
	char key[128];
	va_list ap;

	va_start(ap, keyfmt);
	vsnprintf(key, sizeof(key), keyfmt, ap);
	va_end(ap);
	kv_emit(key, "%s", val);
}

static void nvml_emit_ll(long long v, const char *keyfmt, unsigned idx, const char *field)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", v);
	nvml_emit(s, keyfmt, idx, field);
}

static int gpu_lost;

/*
 * Record the outcome of one per-GPU call: 1 when it succeeded (the caller
 * then prints the value), 0 after printing "gpu.N.err.FIELD=CODE".
 */
static int nvml_ok(unsigned idx, const char *field, nvmlReturn_t rc)
{
	if (rc == NVML_SUCCESS)
		return 1;
	if (rc == NVML_ERROR_GPU_IS_LOST)
		gpu_lost = 1;
	nvml_emit_ll(rc, "gpu.%u.err.%s", idx, field);
	return 0;
}

/* The process query of whichever API version the library has. */
static nvmlReturn_t nvml_procs_query(nvmlDevice_t dev, unsigned int *n, void *buf)
{
	return nv.procs ? nv.procs(dev, n, buf) : nv.procs_v1(dev, n, buf);
}

static void nvml_processes(unsigned idx, nvmlDevice_t dev)
{
	/* Both layouts start with pid and usedGpuMemory; only the size differs. */
	size_t elem = nv.procs ? sizeof(nvmlProcessInfo_t) : sizeof(nvmlProcessInfo_v1_t);
	unsigned int n = 0, cap;
	unsigned char *p;
	nvmlReturn_t rc;

	if (!nv.procs && !nv.procs_v1)
		return;
	rc = nvml_procs_query(dev, &n, NULL);
	if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE) {
		nvml_ok(idx, "processes", rc);
		return;
	}
	/* Room for processes that start between the two calls. */
	cap = n + 16;
	p = calloc(cap, elem);
	if (!p)
		return;
	n = cap;
	rc = nvml_procs_query(dev, &n, p);
	if (nvml_ok(idx, "processes", rc)) {
		nvml_emit_ll(n, "gpu.%u.%s", idx, "proc_count");
		for (unsigned j = 0; j < n && j < cap; j++) {
			nvmlProcessInfo_v1_t e;
			char k[64];

			memcpy(&e, p + (size_t)j * elem, sizeof(e));
			snprintf(k, sizeof(k), "proc.%u.pid", j);
			nvml_emit_ll(e.pid, "gpu.%u.%s", idx, k);
			snprintf(k, sizeof(k), "proc.%u.used", j);
			nvml_emit_ll((long long)e.usedGpuMemory, "gpu.%u.%s", idx, k);
		}
	}
	free(p);
}

static void nvml_ecc(unsigned idx, nvmlDevice_t dev)
{
	int cur = -1, pend = -1;
	unsigned long long n;

	if (nv.ecc_mode && nvml_ok(idx, "ecc_current", nv.ecc_mode(dev, &cur, &pend)))
		nvml_emit_ll(cur, "gpu.%u.%s", idx, "ecc_current");
	if (nv.ecc_total && cur == 1) {
		if (nvml_ok(idx, "ecc_volatile_unc",
			    nv.ecc_total(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &n)))
			nvml_emit_ll((long long)n, "gpu.%u.%s", idx, "ecc_volatile_unc");
		if (nvml_ok(idx, "ecc_aggregate_unc",
			    nv.ecc_total(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &n)))
			nvml_emit_ll((long long)n, "gpu.%u.%s", idx, "ecc_aggregate_unc");
	}
	if (nv.retired_pending) {
		int p;

		if (nvml_ok(idx, "retired_pending", nv.retired_pending(dev, &p)))
			nvml_emit_ll(p, "gpu.%u.%s", idx, "retired_pending");
	}
	if (nv.remapped_rows) {
		unsigned int corr, unc, pending, failed;

		if (nvml_ok(idx, "remap", nv.remapped_rows(dev, &corr, &unc, &pending, &failed))) {
			nvml_emit_ll(corr, "gpu.%u.%s", idx, "remap_corr");
			nvml_emit_ll(unc, "gpu.%u.%s", idx, "remap_unc");
			nvml_emit_ll(pending, "gpu.%u.%s", idx, "remap_pending");
			nvml_emit_ll(failed, "gpu.%u.%s", idx, "remap_failure");
		}
	}
}

/*
 * Memory: the v2 query first, because v1's `used` includes the memory the
 * driver reserves for itself (hundreds of MiB on an idle H200, where
 * nvidia-smi says 0 MiB used).  v1 when v2 is absent (older drivers) or
 * refuses, e.g. with NVML_ERROR_ARGUMENT_VERSION_MISMATCH.
 */
static void nvml_memory(unsigned idx, nvmlDevice_t dev)
{
	if (nv.memory_v2) {
		nvmlMemory_v2_t m;

		memset(&m, 0, sizeof(m));
		m.version = NVML_MEMORY_V2_VERSION;
		if (nv.memory_v2(dev, &m) == NVML_SUCCESS) {
			nvml_emit_ll((long long)m.total, "gpu.%u.%s", idx, "memory_total");
			nvml_emit_ll((long long)m.used, "gpu.%u.%s", idx, "memory_used");
			nvml_emit_ll((long long)m.reserved, "gpu.%u.%s", idx, "memory_reserved");
			nvml_emit("2", "gpu.%u.memory_api", idx);
			return;
		}
	}
	if (nv.memory) {
		nvmlMemory_t m;

		if (nvml_ok(idx, "memory", nv.memory(dev, &m))) {
			nvml_emit_ll((long long)m.total, "gpu.%u.%s", idx, "memory_total");
			nvml_emit_ll((long long)m.used, "gpu.%u.%s", idx, "memory_used");
			nvml_emit("1", "gpu.%u.memory_api", idx);
		}
	}
}

/*
 * The MIG devices (compute instances) of a GPU in MIG mode: what CUDA can
 * enumerate there.  The slots run up to nvmlDeviceGetMaxMigDeviceCount; an
 * empty slot answers NVML_ERROR_NOT_FOUND.  MIG user guide, "CUDA Device
 * Enumeration": https://docs.nvidia.com/datacenter/tesla/mig-user-guide/
 */
static void nvml_mig_devices(unsigned idx, nvmlDevice_t dev)
{
	unsigned int max = 0, n = 0;
	char s[128];

	if (!nv.mig_max || !nv.mig_handle || !nvml_ok(idx, "mig_devices", nv.mig_max(dev, &max)))
		return;
	for (unsigned j = 0; j < max && j < 64; j++) {
		nvmlDevice_t m;
		char k[48];

		if (nv.mig_handle(dev, j, &m) != NVML_SUCCESS)
			continue;
		memset(s, 0, sizeof(s));
		if (nv.uuid && nv.uuid(m, s, sizeof(s) - 1) == NVML_SUCCESS) {
			snprintf(k, sizeof(k), "mig.%u.uuid", n);
			nvml_emit(s, "gpu.%u.%s", idx, k);
		}
		n++;
	}
	nvml_emit_ll(n, "gpu.%u.%s", idx, "mig_devices");
}

/*
 * nvmlGpuFabricInfo_t (nvml.h): clusterUuid[16], status (nvmlReturn_t) at
 * 16, cliqueId at 20, state (unsigned char) at 24.  Read by offset from a
 * zeroed, larger buffer, so a newer layout cannot write past it.  Not
 * supported (3) on GPUs outside an NVSwitch fabric: no fact, no error.
 */
static void nvml_fabric(unsigned idx, nvmlDevice_t dev)
{
	unsigned char b[256];
	nvmlReturn_t rc;
	int status;

	if (!nv.fabric)
		return;
	memset(b, 0, sizeof(b));
	rc = nv.fabric(dev, b);
	if (rc == 3)
		return;
	if (!nvml_ok(idx, "fabric", rc))
		return;
	memcpy(&status, b + 16, sizeof(status));
	nvml_emit_ll(b[24], "gpu.%u.%s", idx, "fabric_state");
	nvml_emit_ll(status, "gpu.%u.%s", idx, "fabric_status");
}

static void nvml_gpu(unsigned idx)
{
	nvmlDevice_t dev;
	char s[256];
	unsigned int u, u2;
	int i;

	gpu_lost = 0;
	if (!nvml_ok(idx, "handle", nv.handle(idx, &dev))) {
		if (gpu_lost)
			nvml_emit("1", "gpu.%u.lost", idx);
		return;
	}
	memset(s, 0, sizeof(s));
	if (nv.name && nvml_ok(idx, "name", nv.name(dev, s, sizeof(s) - 1)))
		nvml_emit(s, "gpu.%u.name", idx);
	memset(s, 0, sizeof(s));
	if (nv.uuid && nvml_ok(idx, "uuid", nv.uuid(dev, s, sizeof(s) - 1)))
		nvml_emit(s, "gpu.%u.uuid", idx);
	if (nv.pci) {
		nvmlPciInfo_t pci;

		memset(&pci, 0, sizeof(pci));
		if (nvml_ok(idx, "pci", nv.pci(dev, &pci))) {
			pci.busId[sizeof(pci.busId) - 1] = 0;
			nvml_emit(pci.busId, "gpu.%u.bus_id", idx);
			snprintf(s, sizeof(s), "0x%04x", pci.pciDeviceId >> 16);
			nvml_emit(s, "gpu.%u.pci_device_id", idx);
		}
	}
	nvml_memory(idx, dev);
	if (nv.util) {
		nvmlUtilization_t ut;

		if (nvml_ok(idx, "utilization", nv.util(dev, &ut))) {
			nvml_emit_ll(ut.gpu, "gpu.%u.%s", idx, "util_gpu");
			nvml_emit_ll(ut.memory, "gpu.%u.%s", idx, "util_mem");
		}
	}
	if (nv.temperature && nvml_ok(idx, "temperature",
				      nv.temperature(dev, NVML_TEMPERATURE_GPU, &u)))
		nvml_emit_ll(u, "gpu.%u.%s", idx, "temperature_c");
	if (nv.power && nvml_ok(idx, "power", nv.power(dev, &u)))
		nvml_emit_ll(u, "gpu.%u.%s", idx, "power_mw");
	if (nv.power_limit && nvml_ok(idx, "power_limit", nv.power_limit(dev, &u)))
		nvml_emit_ll(u, "gpu.%u.%s", idx, "power_limit_mw");
	if (nv.persistence && nvml_ok(idx, "persistence", nv.persistence(dev, &i)))
		nvml_emit_ll(i, "gpu.%u.%s", idx, "persistence");
	if (nv.display_mode && nvml_ok(idx, "display_mode", nv.display_mode(dev, &i)))
		nvml_emit_ll(i, "gpu.%u.%s", idx, "display_mode");
	if (nv.compute_mode && nvml_ok(idx, "compute_mode", nv.compute_mode(dev, &i)))
		nvml_emit_ll(i, "gpu.%u.%s", idx, "compute_mode");
	if (nv.mig_mode && nvml_ok(idx, "mig_mode", nv.mig_mode(dev, &u, &u2))) {
		nvml_emit_ll(u, "gpu.%u.%s", idx, "mig_current");
		nvml_emit_ll(u2, "gpu.%u.%s", idx, "mig_pending");
		if (u == 1)
			nvml_mig_devices(idx, dev);
	}
	nvml_fabric(idx, dev);
	nvml_ecc(idx, dev);
	nvml_processes(idx, dev);
	if (gpu_lost)
		nvml_emit("1", "gpu.%u.lost", idx);
}

static const char *nvml_errstr(nvmlReturn_t rc)
{
	const char *s = nv.error_string ? nv.error_string(rc) : NULL;

	return s ? s : "";
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

int probe_main_nvml(int argc, char **argv)
{
	struct cuda_symtab_missing miss = CUDA_SYMTAB_MISSING_INIT;
	char ver[96];
	unsigned int count = 0;
	void *h;
	nvmlReturn_t rc;
	int cv;

	if (argc < 2) {
		fputs("usage: gpudoctor __probe nvml LIBRARY\n", stderr);
		return 2;
	}
	child_default_signals();
	kv_emit("lib", "%s", argv[1]);
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
	if (nvml_api_bind(h, &nv, nvml_syms, sizeof(nvml_syms) / sizeof(nvml_syms[0]), &miss) < 0) {
		kv_emit("missing_required", "%s", miss.required.s);
		if (miss.optional.len)
			kv_emit("missing_optional", "%s", miss.optional.s);
		cuda_symtab_missing_release(&miss);
		kv_end();
		return 0;
	}
	if (miss.optional.len)
		kv_emit("missing_optional", "%s", miss.optional.s);
	cuda_symtab_missing_release(&miss);

	rc = nv.init();
	kv_emit("init.result", "%d", rc);
	if (rc != NVML_SUCCESS) {
		kv_emit("init.error", "%s", nvml_errstr(rc));
		kv_end();
		return 0;
	}
	memset(ver, 0, sizeof(ver));
	rc = nv.driver_version(ver, sizeof(ver) - 1);
	if (rc == NVML_SUCCESS)
		kv_emit("driver_version", "%s", ver);
	else
		kv_emit("err.driver_version", "%d", rc);
	if (nv.cuda_version) {
		rc = nv.cuda_version(&cv);
		if (rc == NVML_SUCCESS)
			kv_emit("cuda_version", "%d", cv);
		else
			kv_emit("err.cuda_version", "%d", rc);
	}
	rc = nv.count(&count);
	if (rc == NVML_SUCCESS) {
		kv_emit("count", "%u", count);
		for (unsigned i = 0; i < count && i < 64; i++)
			nvml_gpu(i);
	} else {
		kv_emit("err.count", "%d", rc);
		kv_emit("err.count_error", "%s", nvml_errstr(rc));
	}
	nv.shutdown();
	kv_end();
	return 0;
}
