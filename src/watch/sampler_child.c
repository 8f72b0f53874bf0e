/*
 * sampler_child.c - child side of the long-lived NVML sampler of `watch`:
 * "gpudoctor __probe nvml-sampler /path/to/libnvidia-ml.so.1".
 *
 * Unlike check's one-shot nvml child, this one loads and initialises NVML
 * once and then answers requests: for each line "sample" on stdin it prints
 * the per-GPU health facts as key=value lines (core/kv.h) and "end".  EOF on
 * stdin shuts NVML down and exits.  The parent (sampler.c) gives each
 * request a deadline and kills this process when it misses it, so a call
 * that hangs in the driver costs one child, never the daemon.  kv_emit
 * flushes each line, so that the parent can tell how far a hung request
 * got.  NVML's types and entry points are declared once, in
 * probes/driver/nvml_api.h.
 */
#include "probes/children.h"
#include "core/kv.h"
#include "probes/driver/nvml_api.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nvml_api nv;

#define SYM(slot, need) { NVML_FN_##slot, need, 0 }
#define SYM_NOFB(slot, need) { NVML_FN_##slot, need, 1 }

static const struct cuda_sym_want syms[] = {
	SYM(init, CUDA_SYM_REQUIRED),
	SYM(shutdown, CUDA_SYM_REQUIRED),
	SYM(driver_version, CUDA_SYM_OPTIONAL),
	SYM(cuda_version, CUDA_SYM_OPTIONAL),
	SYM(count, CUDA_SYM_REQUIRED),
	SYM(handle, CUDA_SYM_REQUIRED),
	SYM(name, CUDA_SYM_OPTIONAL),
	SYM(uuid, CUDA_SYM_OPTIONAL),
	SYM(pci, CUDA_SYM_OPTIONAL),
	SYM(memory_v2, CUDA_SYM_OPTIONAL),
	SYM(memory, CUDA_SYM_OPTIONAL),
	SYM(temperature, CUDA_SYM_OPTIONAL),
	SYM(power, CUDA_SYM_OPTIONAL),
	SYM(persistence, CUDA_SYM_OPTIONAL),
	SYM(ecc_mode, CUDA_SYM_OPTIONAL),
	SYM(ecc_total, CUDA_SYM_OPTIONAL),
	SYM(retired, CUDA_SYM_OPTIONAL),
	SYM(retired_pending, CUDA_SYM_OPTIONAL),
	SYM(remapped_rows, CUDA_SYM_OPTIONAL),
	SYM(clock_reasons, CUDA_SYM_OPTIONAL),
	SYM(pcie_gen, CUDA_SYM_OPTIONAL),
	SYM(pcie_gen_max, CUDA_SYM_OPTIONAL),
	SYM(pcie_width, CUDA_SYM_OPTIONAL),
	SYM(pcie_width_max, CUDA_SYM_OPTIONAL),
	SYM(pcie_replay, CUDA_SYM_OPTIONAL),
	SYM(nvlink_state, CUDA_SYM_OPTIONAL),
	SYM(nvlink_errors, CUDA_SYM_OPTIONAL),
	SYM(fabric, CUDA_SYM_OPTIONAL),
	SYM(clock, CUDA_SYM_OPTIONAL),
	SYM_NOFB(power_limit, CUDA_SYM_OPTIONAL),
	SYM(procs, CUDA_SYM_OPTIONAL),
};

static unsigned cur;	/* the GPU being sampled, for the key prefix */
static int lost;

/* "gpu.N.FIELD=V" for the GPU being sampled; kv_emit flushes each line. */
static void put(const char *field, unsigned long long v)
{
	char key[96];

	snprintf(key, sizeof(key), "gpu.%u.%s", cur, field);
	kv_emit(key, "%llu", v);
}

/* Strings go through kv_emit, which flattens newlines. */
static void put_str(const char *field, const char *v)
{
	char key[64];

	snprintf(key, sizeof(key), "gpu.%u.%s", cur, field);
	kv_emit(key, "%s", v);
}

/* 1 when rc is success; else records "gpu.N.err.FIELD=rc" (not-supported stays quiet). */
static int ok(const char *field, nvmlReturn_t rc)
{
	if (rc == NVML_SUCCESS)
		return 1;
	if (rc == NVML_ERROR_GPU_IS_LOST)
		lost = 1;
	if (rc != 3) {	/* NVML_ERROR_NOT_SUPPORTED: the fact does not exist here */
		char key[96];

		snprintf(key, sizeof(key), "gpu.%u.err.%s", cur, field);
		kv_emit(key, "%d", rc);
	}
	return 0;
}

static void u32(const char *field, nvml_dev_uint_fn fn, nvmlDevice_t d)
{
	unsigned int v;

	if (fn && ok(field, fn(d, &v)))
		put(field, v);
}

static void ecc(nvmlDevice_t d)
{
	static const struct { const char *f; int type, counter; } q[] = {
		{ "ecc_volatile_corrected", 0, 0 }, { "ecc_volatile_uncorrected", 1, 0 },
		{ "ecc_aggregate_corrected", 0, 1 }, { "ecc_aggregate_uncorrected", 1, 1 },
	};
	unsigned long long n;
	unsigned int a, b, c, e;
	int curm = -1, pend, p;

	if (nv.ecc_mode && ok("ecc_mode", nv.ecc_mode(d, &curm, &pend)))
		put("ecc_mode", (unsigned)curm);
	for (size_t i = 0; curm == 1 && nv.ecc_total && i < sizeof(q) / sizeof(q[0]); i++)
		if (ok(q[i].f, nv.ecc_total(d, q[i].type, q[i].counter, &n)))
			put(q[i].f, n);
	for (int cause = 0; nv.retired && cause < 2; cause++) {
		nvmlReturn_t rc;

		a = 0;
		rc = nv.retired(d, cause, &a, NULL);
		if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
			rc = NVML_SUCCESS;
		if (ok(cause ? "retired_dbe" : "retired_sbe", rc))
			put(cause ? "retired_dbe" : "retired_sbe", a);
	}
	if (nv.retired_pending && ok("retired_pending", nv.retired_pending(d, &p)))
		put("retired_pending", (unsigned)p);
	if (nv.remapped_rows && ok("remap", nv.remapped_rows(d, &a, &b, &c, &e))) {
		put("remap_correctable", a);
		put("remap_uncorrectable", b);
		put("remap_pending", c);
		put("remap_failed", e);
	}
}

static void nvlink(nvmlDevice_t d)
{
	unsigned long long sum[5] = { 0 }, v;
	int active_links = 0, any = 0;

	for (unsigned l = 0; nv.nvlink_state && l < NVML_NVLINK_MAX_LINKS; l++) {
		int on = 0;

		if (nv.nvlink_state(d, l, &on) != NVML_SUCCESS)
			break;
		any = 1;
		if (!on)
			continue;
		active_links++;
		for (int c = 0; nv.nvlink_errors && c < 5; c++)
			if (nv.nvlink_errors(d, l, c, &v) == NVML_SUCCESS)
				sum[c] += v;
	}
	if (!any)
		return;
	put("nvlink_active", (unsigned)active_links);
	put("nvlink_replay", sum[0]);
	put("nvlink_recovery", sum[1]);
	put("nvlink_crc_flit", sum[2]);
	put("nvlink_crc_data", sum[3]);
	put("nvlink_ecc_data", sum[4]);
}

/*
 * nvmlGpuFabricInfo_t: clusterUuid[16], status (nvmlReturn_t), cliqueId,
 * state (unsigned char).  Read from a zeroed, larger buffer by offset, so a
 * newer layout cannot write past it.
 */
static void fabric(nvmlDevice_t d)
{
	unsigned char b[256];
	int status;

	if (!nv.fabric)
		return;
	memset(b, 0, sizeof(b));
	if (!ok("fabric", nv.fabric(d, b)))
		return;
	memcpy(&status, b + 16, sizeof(status));
	put("fabric_state", b[24]);
	{
		char key[96];

		snprintf(key, sizeof(key), "gpu.%u.fabric_status", cur);
		kv_emit(key, "%d", status);
	}
}

static void procs(nvmlDevice_t d)
{
	nvmlProcessInfo_t p[32];
	unsigned int n = 32;

	if (!nv.procs || !ok("processes", nv.procs(d, &n, p)))
		return;
	put("proc_count", n);
	for (unsigned i = 0; i < n && i < 32; i++) {
		char field[48];

		snprintf(field, sizeof(field), "proc.%u.pid", i);
		put(field, p[i].pid);
		snprintf(field, sizeof(field), "proc.%u.used", i);
		put(field, p[i].usedGpuMemory);
	}
}

static void sample_gpu(unsigned idx)
{
	nvmlDevice_t d;
	char s[96];
	unsigned int t;
	unsigned long long r;

	cur = idx;
	lost = 0;
	put("begin", 1);
	if (!ok("handle", nv.handle(idx, &d))) {
		if (lost)
			put("lost", 1);
		return;
	}
	memset(s, 0, sizeof(s));
	if (nv.name && ok("name", nv.name(d, s, sizeof(s) - 1)))
		put_str("name", s);
	memset(s, 0, sizeof(s));
	if (nv.uuid && ok("uuid", nv.uuid(d, s, sizeof(s) - 1)))
		put_str("uuid", s);
	if (nv.pci) {
		nvmlPciInfo_t pci;

		memset(&pci, 0, sizeof(pci));
		if (ok("pci", nv.pci(d, &pci))) {
			pci.busId[sizeof(pci.busId) - 1] = 0;
			put_str("bus_id", pci.busId);
		}
	}
	if (nv.memory_v2) {
		nvmlMemory_v2_t m;

		memset(&m, 0, sizeof(m));
		m.version = NVML_MEMORY_V2_VERSION;
		if (nv.memory_v2(d, &m) == NVML_SUCCESS) {
			put("memory_total", m.total);
			put("memory_used", m.used);
		} else if (nv.memory) {
			nvmlMemory_t m1;

			if (ok("memory", nv.memory(d, &m1))) {
				put("memory_total", m1.total);
				put("memory_used", m1.used);
			}
		}
	}
	if (nv.temperature && ok("temperature", nv.temperature(d, 0, &t)))
		put("temperature_c", t);
	u32("power_mw", nv.power, d);
	u32("power_limit_mw", nv.power_limit, d);
	if (nv.clock) {
		unsigned int mhz;

		/* nvml.h: NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 */
		if (ok("sm_clock", nv.clock(d, 1, &mhz)))
			put("sm_clock_mhz", mhz);
		if (ok("mem_clock", nv.clock(d, 2, &mhz)))
			put("mem_clock_mhz", mhz);
	}
	if (nv.persistence) {
		int p;

		if (ok("persistence", nv.persistence(d, &p)))
			put("persistence", (unsigned)p);
	}
	ecc(d);
	if (nv.clock_reasons && ok("clock_reasons", nv.clock_reasons(d, &r)))
		put("clock_reasons", r);
	u32("pcie_gen", nv.pcie_gen, d);
	u32("pcie_gen_max", nv.pcie_gen_max, d);
	u32("pcie_width", nv.pcie_width, d);
	u32("pcie_width_max", nv.pcie_width_max, d);
	u32("pcie_replay", nv.pcie_replay, d);
	nvlink(d);
	fabric(d);
	procs(d);
	if (lost)
		put("lost", 1);
}

/* The driver's versions in every sample, for gpudoctor_driver_info: a
 * driver upgraded under a running watch shows at the next sample. */
static void versions(void)
{
	char ver[96];
	int cv;

	memset(ver, 0, sizeof(ver));
	if (nv.driver_version && nv.driver_version(ver, sizeof(ver) - 1) == NVML_SUCCESS)
		kv_emit("driver_version", "%s", ver);
	/* nvml.h: 1000 * major + 10 * minor (13000 is 13.0) */
	if (nv.cuda_version && nv.cuda_version(&cv) == NVML_SUCCESS && cv > 0)
		kv_emit("cuda_version", "%d.%d", cv / 1000, cv % 1000 / 10);
}

static void sample(void)
{
	unsigned int count = 0;
	nvmlReturn_t rc = nv.count(&count);

	versions();

	if (rc != NVML_SUCCESS) {
		kv_emit("err.count", "%d", rc);
	} else {
		kv_emit("count", "%u", count);
		for (unsigned i = 0; i < count && i < 64; i++)
			sample_gpu(i);
	}
	kv_end();
}

int probe_main_nvml_sampler(int argc, char **argv)
{
	struct cuda_symtab_missing miss = CUDA_SYMTAB_MISSING_INIT;
	char line[64], ver[96];
	void *h;
	nvmlReturn_t rc;

	if (argc < 2) {
		kv_emit("error", "usage: gpudoctor __probe nvml-sampler LIBRARY");
		kv_end();
		return 2;
	}
	/* A crash in the library kills this process by its signal, as in nvml_child.c. */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGABRT, SIG_DFL);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *de = dlerror();

		kv_emit("dlopen_error", "%s", de ? de : "dlopen failed");
		kv_end();
		return 0;
	}
	if (nvml_api_bind(h, &nv, syms, sizeof(syms) / sizeof(syms[0]), &miss) < 0) {
		kv_emit("missing_required", "%s", miss.required.s);
		cuda_symtab_missing_release(&miss);
		kv_end();
		return 0;
	}
	cuda_symtab_missing_release(&miss);
	rc = nv.init();
	kv_emit("init.result", "%d", rc);
	if (rc != NVML_SUCCESS) {
		kv_end();
		return 0;
	}
	memset(ver, 0, sizeof(ver));
	if (nv.driver_version && nv.driver_version(ver, sizeof(ver) - 1) == NVML_SUCCESS)
		kv_emit("driver_version", "%s", ver);
	kv_end();
	while (fgets(line, sizeof(line), stdin))
		if (!strncmp(line, "sample", 6))
			sample();
	nv.shutdown();
	return 0;
}
