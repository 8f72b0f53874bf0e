/*
 * fake_nvml.c - a fake libnvidia-ml.so.1 for the end-to-end tests.
 *
 * Built by tests/e2e/fixtures_driver.py with
 *   gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -DFAKE_DRIVER_VERSION='"580.95.05"'
 * into a fixture root.  It exports the NVML entry points gpudoctor's probe
 * binds (same ABI as the public nvml.h) and answers with an H200-like GPU.
 * Behaviour is chosen at call time by environment variables, so one build
 * serves every test:
 *   FAKE_NVML_MODE        healthy (default) | init-error:N | crash-on-load |
 *                         hang | garbage | gpu-lost | exit:N
 *   FAKE_NVML_GPUS        number of GPUs (default 1)
 *   FAKE_NVML_DRIVER_VERSION  what nvmlSystemGetDriverVersion says
 *   FAKE_NVML_MEM_USED_MIB    memory used on every GPU, as nvidia-smi shows it (default 512)
 *   FAKE_NVML_MEM_RESERVED_MIB  memory the driver reserves (default 615, an idle H200's):
 *                         nvmlDeviceGetMemoryInfo_v2 reports it apart, v1 counts it as used
 *   FAKE_NVML_MEM_V2      "error:N": nvmlDeviceGetMemoryInfo_v2 returns N
 *   FAKE_NVML_INIT_MS     nvmlInit sleeps this long first (default 0)
 *   FAKE_NVML_CUDA_VERSION    what nvmlSystemGetCudaDriverVersion says (default 13000)
 *   FAKE_NVML_LOG         a file: nvmlShutdown appends "nvml shutdown\n" to it
 *   FAKE_NVML_PROCS       "pid:mib,pid:mib" compute processes on GPU 0
 *   FAKE_NVML_PERSISTENCE 0/1 (default 1); FAKE_NVML_DISPLAY 0/1 (default 0)
 *   FAKE_NVML_COMPUTE_MODE    (default 0)
 *   FAKE_NVML_ECC_VOLATILE_UNC, FAKE_NVML_ECC_AGGREGATE_UNC  counts (default 0)
 *   FAKE_NVML_REMAP_PENDING, FAKE_NVML_REMAP_FAILURE         0/1 (default 0)
 *   FAKE_NVML_STATE_FILE  a file of KEY=VALUE lines read at every call: a line there
 *                         overrides the environment variable of that name, so a
 *                         long-lived process (watch's sampler) can change state
 *   FAKE_NVML_HANG_CALL   a call that never returns: temperature | power | ecc | count;
 *                         "temperature-d": the call waits in the kernel (state D, as a
 *                         vfork parent does) until the process group is killed
 *   FAKE_NVML_ECC_VOLATILE_COR, FAKE_NVML_ECC_AGGREGATE_COR  corrected counts (default 0)
 *   FAKE_NVML_CLOCK_REASONS   clock event reasons bit mask (default 0x1, idle)
 *   FAKE_NVML_PCIE_WIDTH, FAKE_NVML_PCIE_WIDTH_MAX  (default 16/16); generation 5/5
 *   FAKE_NVML_SM_CLOCK, FAKE_NVML_MEM_CLOCK  MHz (default 1980, 3201)
 *   FAKE_NVML_MIG         MIG state per GPU, comma-separated "current:pending:devices"
 *                         (GPU i takes entry i, or the last one): "1:1:0" MIG on without
 *                         instances, "0:1" a pending enable; unset: "0:0:0" (MIG off)
 *   FAKE_NVML_FABRIC      "state:status" of nvmlDeviceGetGpuFabricInfo on every GPU
 *                         (3:0 completed); unset: Not Supported, as on a PCIe GPU
 *   FAKE_NVML_NAME, FAKE_NVML_UUID  the name and UUID of every GPU; "\xNN" is byte NN
 *                         (a hostile driver or a tampered library may return any bytes)
 * Compile-time: -DFAKE_OLD_API leaves out the _v2/_v3 names (old drivers),
 * nvmlDeviceGetMemoryInfo_v2 included,
 * -DFAKE_OMIT_COUNT leaves out nvmlDeviceGetCount entirely (a required symbol).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_DRIVER_VERSION
#define FAKE_DRIVER_VERSION "580.95.05"
#endif
#ifndef FAKE_DEFAULT_MODE
#define FAKE_DEFAULT_MODE "healthy"
#endif

typedef int nvmlReturn_t;
typedef struct fake_dev *nvmlDevice_t;
struct fake_dev { unsigned idx; int mig; };	/* mig: -1 the GPU, else its MIG device */

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define ARGUMENT_VERSION_MISMATCH 25
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

#define LOST 15
static struct fake_dev devs[64];
static struct fake_dev mig_devs[64][8];

/* getenv, unless FAKE_NVML_STATE_FILE has a line NAME=VALUE (read at each call). */
static const char *fenv(const char *name)
{
	static char val[256];
	const char *path = getenv("FAKE_NVML_STATE_FILE");
	char line[320];
	size_t n = strlen(name);
	FILE *f;

	if (path && *path && (f = fopen(path, "r"))) {
		const char *found = NULL;

		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, name, n) && line[n] == '=') {
				line[strcspn(line, "\n")] = '\0';
				snprintf(val, sizeof(val), "%s", line + n + 1);
				found = val;
			}
		fclose(f);
		if (found)
			return found;
	}
	return getenv(name);
}

static void maybe_hang(const char *call)
{
	const char *h = fenv("FAKE_NVML_HANG_CALL");
	size_t n = strlen(call);

	if (h && !strncmp(h, call, n) && !strcmp(h + n, "-d")) {
		/* The parent of a vfork waits uninterruptibly ("D") until the child exits. */
		if (vfork() == 0)
			for (;;)
				pause();
	}
	if (h && !strcmp(h, call))
		for (;;)
			pause();
}

static const char *mode(void)
{
	const char *m = fenv("FAKE_NVML_MODE");

	return m && *m ? m : FAKE_DEFAULT_MODE;
}

static long envl(const char *name, long def)
{
	const char *v = fenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

static int lost(void)
{
	return !strcmp(mode(), "gpu-lost");
}

__attribute__((constructor)) static void fake_nvml_load(void)
{
	if (!strcmp(mode(), "crash-on-load"))
		raise(SIGSEGV);
	if (!strcmp(mode(), "garbage")) {
		fputs("\x01\x02 this is not key=value\n\xff\xfe", stdout);
		fflush(stdout);
		_exit(0);
	}
	if (!strncmp(mode(), "exit:", 5))
		_exit(atoi(mode() + 5));
}

static nvmlReturn_t fake_init(void)
{
	long ms = envl("FAKE_NVML_INIT_MS", 0);

	if (ms > 0)
		usleep((useconds_t)ms * 1000);
	if (!strcmp(mode(), "hang"))
		for (;;)
			pause();
	if (!strncmp(mode(), "init-error:", 11))
		return atoi(mode() + 11);
	return 0;
}

#ifndef FAKE_OLD_API
nvmlReturn_t nvmlInit_v2(void) { return fake_init(); }
#endif
nvmlReturn_t nvmlInit(void) { return fake_init(); }
nvmlReturn_t nvmlShutdown(void)
{
	const char *log = getenv("FAKE_NVML_LOG");

	if (log && *log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fputs("nvml shutdown\n", f);
			fclose(f);
		}
	}
	return 0;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case 0: return "Success";
	case 3: return "Not Supported";
	case 9: return "Driver Not Loaded";
	case 15: return "GPU is lost";
	case 18: return "Driver/library version mismatch";
	default: return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
	const char *s = getenv("FAKE_NVML_DRIVER_VERSION");

	snprintf(v, len, "%s", s && *s ? s : FAKE_DRIVER_VERSION);
	return 0;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	*v = (int)envl("FAKE_NVML_CUDA_VERSION", 13000);
	return 0;
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return nvmlSystemGetCudaDriverVersion_v2(v); }

#ifndef FAKE_OMIT_COUNT
static nvmlReturn_t fake_count(unsigned int *n)
{
	maybe_hang("count");
	*n = (unsigned)envl("FAKE_NVML_GPUS", 1);
	return 0;
}
#ifndef FAKE_OLD_API
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { return fake_count(n); }
#endif
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { return fake_count(n); }
#endif

static nvmlReturn_t fake_handle(unsigned int i, nvmlDevice_t *d)
{
	if (i >= (unsigned)envl("FAKE_NVML_GPUS", 1) || i >= 64)
		return 2;
	devs[i].idx = i;
	devs[i].mig = -1;
	*d = &devs[i];
	return 0;
}
#ifndef FAKE_OLD_API
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) { return fake_handle(i, d); }
#endif
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d) { return fake_handle(i, d); }

/* A hostile string from FAKE_NVML_NAME / FAKE_NVML_UUID: "\xNN" is the byte NN
 * (control bytes and bytes that are not UTF-8 fit in the state file so). */
static int fake_bytes(const char *var, char *s, unsigned int n)
{
	const char *v = fenv(var);
	unsigned int o = 0;

	if (!v)
		return 0;
	while (*v && o + 1 < n) {
		unsigned int c;

		if (v[0] == '\\' && v[1] == 'x' && sscanf(v + 2, "%2x", &c) == 1) {
			s[o++] = (char)c;
			v += 4;
		} else {
			s[o++] = *v++;
		}
	}
	s[o] = '\0';
	return 1;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *s, unsigned int n)
{
	(void)d;
	if (lost())
		return LOST;
	if (!fake_bytes("FAKE_NVML_NAME", s, n))
		snprintf(s, n, "NVIDIA H200");
	return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *s, unsigned int n)
{
	if (d->mig >= 0)
		snprintf(s, n, "MIG-7c2e9d10-4b3a-5f61-8e72-90a1b2c3d4%01x%01x", d->idx & 0xf,
			 (unsigned)d->mig & 0xf);
	else if (!fake_bytes("FAKE_NVML_UUID", s, n))
		snprintf(s, n, "GPU-3f1a2b4c-5d6e-4f70-8192-a3b4c5d6e7%02x", d->idx);
	return 0;
}

static nvmlReturn_t fake_pci(nvmlDevice_t d, nvmlPciInfo_t *p)
{
	if (lost())
		return LOST;
	memset(p, 0, sizeof(*p));
	p->domain = 0;
	p->bus = 0x18 + d->idx;
	p->device = 0;
	p->pciDeviceId = 0x233510de;
	p->pciSubSystemId = 0x18b010de;
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "0000:%02X:00.0", p->bus);
	snprintf(p->busId, sizeof(p->busId), "00000000:%02X:00.0", p->bus);
	return 0;
}
#ifndef FAKE_OLD_API
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) { return fake_pci(d, p); }
#endif
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t *p) { return fake_pci(d, p); }

static unsigned long long mem_used(void)
{
	return (unsigned long long)envl("FAKE_NVML_MEM_USED_MIB", 512) << 20;
}

static unsigned long long mem_reserved(void)
{
	return (unsigned long long)envl("FAKE_NVML_MEM_RESERVED_MIB", 615) << 20;
}

/* v1: `used` is reserved plus allocated, as the real v1 reports it. */
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	(void)d;
	if (lost())
		return LOST;
	m->total = 143771ull << 20;
	m->used = mem_used() + mem_reserved();
	m->free = m->total - m->used;
	return 0;
}

#ifndef FAKE_OLD_API
/* v2 checks the caller's version field as the real one does (nvml.h NVML_STRUCT_VERSION). */
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	const char *v2 = getenv("FAKE_NVML_MEM_V2");

	(void)d;
	if (lost())
		return LOST;
	if (v2 && !strncmp(v2, "error:", 6))
		return atoi(v2 + 6);
	if (m->version != (unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))
		return ARGUMENT_VERSION_MISMATCH;
	m->total = 143771ull << 20;
	m->reserved = mem_reserved();
	m->used = mem_used();
	m->free = m->total - m->used - m->reserved;
	return 0;
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	(void)d;
	u->gpu = 0;
	u->memory = 0;
	return lost() ? LOST : 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t)
{
	(void)d;
	(void)sensor;
	maybe_hang("temperature");
	*t = 31;
	return lost() ? LOST : 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *p)
{
	(void)d;
	maybe_hang("power");
	*p = 75123;
	return 0;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *p) { (void)d; *p = 700000; return 0; }
/* FAKE_NVML_SM_CLOCK, FAKE_NVML_MEM_CLOCK: MHz (1980, 3201: an H200 at load) */
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz)
{
	(void)d;
	if (lost())
		return 15;
	*mhz = (unsigned)(type == 1 ? envl("FAKE_NVML_SM_CLOCK", 1980) : envl("FAKE_NVML_MEM_CLOCK", 3201));
	return 0;
}
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *p) { (void)d; *p = 700000; return 0; }

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *m)
{
	(void)d;
	*m = (int)envl("FAKE_NVML_PERSISTENCE", 1);
	return 0;
}

nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t d, int *m)
{
	(void)d;
	*m = (int)envl("FAKE_NVML_DISPLAY", 0);
	return 0;
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int *m)
{
	(void)d;
	*m = (int)envl("FAKE_NVML_COMPUTE_MODE", 0);
	return 0;
}

/* GPU idx's entry of FAKE_NVML_MIG: current, pending, MIG devices. */
static void fake_mig(unsigned idx, unsigned *cur, unsigned *pend, unsigned *ndev)
{
	const char *spec = fenv("FAKE_NVML_MIG");
	char buf[256], *save = NULL, *pick = NULL;
	unsigned i = 0;

	*cur = *pend = *ndev = 0;
	if (!spec || !*spec)
		return;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), i++)
		if (i <= idx || !pick)
			pick = t;
	if (pick)
		sscanf(pick, "%u:%u:%u", cur, pend, ndev);
	if (*ndev > 7)
		*ndev = 7;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	unsigned n;

	if (d->mig >= 0)
		return 3;
	fake_mig(d->idx, cur, pend, &n);
	return 0;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n)
{
	unsigned cur, pend, ndev;

	fake_mig(d->idx, &cur, &pend, &ndev);
	*n = cur ? 7 : 0;
	return 0;
}

/* The first `devices` slots hold MIG devices; the others are empty (NOT_FOUND, 6). */
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t *m)
{
	unsigned cur, pend, ndev;

	fake_mig(d->idx, &cur, &pend, &ndev);
	if (!cur || d->mig >= 0)
		return 3;
	if (i >= ndev || d->idx >= 64)
		return 6;
	mig_devs[d->idx][i].idx = d->idx;
	mig_devs[d->idx][i].mig = (int)i;
	*m = &mig_devs[d->idx][i];
	return 0;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pend)
{
	(void)d;
	*cur = *pend = 1;
	return 0;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n)
{
	(void)d;
	maybe_hang("ecc");
	if (type == 0) {
		*n = (unsigned long long)envl(counter == 0 ? "FAKE_NVML_ECC_VOLATILE_COR"
						  : "FAKE_NVML_ECC_AGGREGATE_COR", 0);
		return 0;
	}
	if (type != 1)
		return 2;
	*n = (unsigned long long)envl(counter == 0 ? "FAKE_NVML_ECC_VOLATILE_UNC"
					  : "FAKE_NVML_ECC_AGGREGATE_UNC", 0);
	return 0;
}

/* Hopper retires no pages: it remaps rows instead. */
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *p)
{
	(void)d;
	(void)p;
	return 3;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc,
				       unsigned int *pending, unsigned int *failed)
{
	(void)d;
	*corr = 0;
	*unc = (unsigned)envl("FAKE_NVML_REMAP_PENDING", 0);
	*pending = (unsigned)envl("FAKE_NVML_REMAP_PENDING", 0);
	*failed = (unsigned)envl("FAKE_NVML_REMAP_FAILURE", 0);
	return 0;
}

static nvmlReturn_t fake_procs(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *p)
{
	const char *spec = getenv("FAKE_NVML_PROCS");
	unsigned n = 0, cap = *count;
	char buf[512], *save = NULL;

	if (d->idx != 0 || !spec || !*spec) {
		*count = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (p && n < cap) {
			memset(&p[n], 0, sizeof(p[n]));
			p[n].pid = (unsigned)strtoul(t, NULL, 10);
			p[n].usedGpuMemory = strchr(t, ':') ?
				strtoull(strchr(t, ':') + 1, NULL, 10) << 20 : 0;
			p[n].gpuInstanceId = p[n].computeInstanceId = 0xffffffffu;
		}
		n++;
	}
	*count = n;
	return (n > 0 && (!p || n > cap)) ? 7 : 0;
}
#ifndef FAKE_OLD_API
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *c,
						     nvmlProcessInfo_t *p) { return fake_procs(d, c, p); }
#endif

/* The original query (nvmlProcessInfo_v1_t: pid, usedGpuMemory); real NVML keeps it. */
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int *c,
						  nvmlProcessInfo_v1_t *p)
{
	(void)d;
	(void)p;
	*c = 0;
	return 0;
}

/* Health facts of `watch` (nvml.h signatures). */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
	(void)d;
	*r = (unsigned long long)envl("FAKE_NVML_CLOCK_REASONS", 1);
	return lost() ? LOST : 0;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { (void)d; *v = 5; return 0; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { (void)d; *v = 5; return 0; }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v)
{
	(void)d;
	*v = (unsigned)envl("FAKE_NVML_PCIE_WIDTH", 16);
	return 0;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v)
{
	(void)d;
	*v = (unsigned)envl("FAKE_NVML_PCIE_WIDTH_MAX", 16);
	return 0;
}
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int *v) { (void)d; *v = 0; return 0; }
/* A PCIe H200 without NVLink bridges or NVSwitch: not supported, as NVML says there. */
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int l, int *on) { (void)d; (void)l; (void)on; return 3; }
/* nvmlGpuFabricInfo_t: clusterUuid[16], status at 16, cliqueId at 20, state (a byte) at 24. */
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t d, void *info)
{
	const char *spec = fenv("FAKE_NVML_FABRIC");
	unsigned state = 0;
	int status = 0;
	unsigned char *b = info;

	(void)d;
	if (!spec || !*spec || sscanf(spec, "%u:%d", &state, &status) < 1)
		return 3;
	memset(b, 0, 25);
	memcpy(b + 16, &status, sizeof(status));
	b[24] = (unsigned char)state;
	return 0;
}
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *n, unsigned long long *a)
{
	(void)d; (void)cause; (void)n; (void)a;
	return 3;
}
