/*
 * nvml_api.h - the one declaration of NVML (libnvidia-ml.so.1) in gpudoctor:
 * its types, the constants we use and one table of entry points, with the
 * loader that fills it.  Used by the child sides only, never by the
 * gpudoctor process itself: check's nvml probe (probes/driver/nvml_child.c),
 * watch's sampler (watch/sampler_child.c) and bench's NCCL child
 * (bench/bench_nccl.c).
 *
 * Types are declared by hand after the public nvml.h (the NVIDIA/go-nvml
 * copy of it, https://github.com/NVIDIA/go-nvml/blob/main/gen/nvml/nvml.h),
 * only those we use; no NVIDIA header is vendored.  Each user names the
 * entry points it calls and whether it can do without them, so a probe
 * reports as missing only what it would have called:
 *
 *	static struct nvml_api nv;
 *	static const struct cuda_sym_want want[] = {
 *		{ NVML_FN_init, CUDA_SYM_REQUIRED }, { NVML_FN_name, CUDA_SYM_OPTIONAL },
 *	};
 *	struct cuda_symtab_missing m = CUDA_SYMTAB_MISSING_INIT;
 *	if (nvml_api_bind(handle, &nv, want, 2, &m) < 0)
 *		report(m.required.s);
 */
#ifndef GD_NVML_API_H
#define GD_NVML_API_H

#include <stddef.h>

#include "probes/cuda/cuda_symtab.h"

typedef int nvmlReturn_t;		/* enum nvmlReturn_enum, 0 = NVML_SUCCESS */
typedef struct nvmlDevice_st *nvmlDevice_t;

/* The shape of the many per-device unsigned counters (power, PCIe link ...). */
typedef nvmlReturn_t (*nvml_dev_uint_fn)(nvmlDevice_t, unsigned int *);

#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_TEMPERATURE_GPU 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1
#define NVML_NVLINK_MAX_LINKS 18	/* NVLink 4/5 */

typedef struct {
	unsigned long long total, free, used;	/* bytes; used counts reserved memory too */
} nvmlMemory_t;

/*
 * nvmlMemory_v2_t of nvmlDeviceGetMemoryInfo_v2: `reserved` (driver and
 * firmware) is reported apart, so `used` is what nvidia-smi shows as used.
 * The caller sets `version` as NVML_STRUCT_VERSION(Memory, 2) does in nvml.h:
 * the struct's size ORed with the version number shifted left by 24.
 */
typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;	/* bytes */
} nvmlMemory_v2_t;

#define NVML_MEMORY_V2_VERSION ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

typedef struct {
	unsigned int gpu, memory;		/* percent */
} nvmlUtilization_t;

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 (and _v2). */
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device;
	unsigned int pciDeviceId;		/* device id << 16 | vendor id */
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

/* nvmlProcessInfo_t of the _v2 and _v3 process queries. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;	/* bytes */
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

/* nvmlProcessInfo_v1_t of the original query. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/*
 * X(slot, return type, parameters, newest symbol, older fallback with the
 * same signature or NULL).
 */
#define NVML_API_FUNCS(X) \
	X(init, nvmlReturn_t, (void), "nvmlInit_v2", "nvmlInit") \
	X(shutdown, nvmlReturn_t, (void), "nvmlShutdown", NULL) \
	X(error_string, const char *, (nvmlReturn_t), "nvmlErrorString", NULL) \
	X(driver_version, nvmlReturn_t, (char *, unsigned int), "nvmlSystemGetDriverVersion", NULL) \
	X(cuda_version, nvmlReturn_t, (int *), "nvmlSystemGetCudaDriverVersion_v2", \
	  "nvmlSystemGetCudaDriverVersion") \
	X(count, nvmlReturn_t, (unsigned int *), "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount") \
	X(handle, nvmlReturn_t, (unsigned int, nvmlDevice_t *), "nvmlDeviceGetHandleByIndex_v2", \
	  "nvmlDeviceGetHandleByIndex") \
	X(by_bus, nvmlReturn_t, (const char *, nvmlDevice_t *), "nvmlDeviceGetHandleByPciBusId_v2", NULL) \
	X(name, nvmlReturn_t, (nvmlDevice_t, char *, unsigned int), "nvmlDeviceGetName", NULL) \
	X(uuid, nvmlReturn_t, (nvmlDevice_t, char *, unsigned int), "nvmlDeviceGetUUID", NULL) \
	X(pci, nvmlReturn_t, (nvmlDevice_t, nvmlPciInfo_t *), "nvmlDeviceGetPciInfo_v3", \
	  "nvmlDeviceGetPciInfo_v2") \
	X(memory, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_t *), "nvmlDeviceGetMemoryInfo", NULL) \
	X(memory_v2, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_v2_t *), "nvmlDeviceGetMemoryInfo_v2", NULL) \
	X(util, nvmlReturn_t, (nvmlDevice_t, nvmlUtilization_t *), "nvmlDeviceGetUtilizationRates", NULL) \
	X(temperature, nvmlReturn_t, (nvmlDevice_t, int, unsigned int *), "nvmlDeviceGetTemperature", NULL) \
	X(power, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetPowerUsage", NULL) \
	X(power_limit, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetEnforcedPowerLimit", \
	  "nvmlDeviceGetPowerManagementLimit") \
	X(persistence, nvmlReturn_t, (nvmlDevice_t, int *), "nvmlDeviceGetPersistenceMode", NULL) \
	X(display_mode, nvmlReturn_t, (nvmlDevice_t, int *), "nvmlDeviceGetDisplayMode", NULL) \
	X(compute_mode, nvmlReturn_t, (nvmlDevice_t, int *), "nvmlDeviceGetComputeMode", NULL) \
	X(mig_mode, nvmlReturn_t, (nvmlDevice_t, unsigned int *, unsigned int *), "nvmlDeviceGetMigMode", NULL) \
	X(ecc_mode, nvmlReturn_t, (nvmlDevice_t, int *, int *), "nvmlDeviceGetEccMode", NULL) \
	X(ecc_total, nvmlReturn_t, (nvmlDevice_t, int, int, unsigned long long *), \
	  "nvmlDeviceGetTotalEccErrors", NULL) \
	X(retired, nvmlReturn_t, (nvmlDevice_t, int, unsigned int *, unsigned long long *), \
	  "nvmlDeviceGetRetiredPages", NULL) \
	X(retired_pending, nvmlReturn_t, (nvmlDevice_t, int *), "nvmlDeviceGetRetiredPagesPendingStatus", NULL) \
	X(remapped_rows, nvmlReturn_t, (nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *, \
	  unsigned int *), "nvmlDeviceGetRemappedRows", NULL) \
	X(clock_reasons, nvmlReturn_t, (nvmlDevice_t, unsigned long long *), \
	  "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons") \
	X(clock, nvmlReturn_t, (nvmlDevice_t, int, unsigned int *), "nvmlDeviceGetClockInfo", NULL) \
	X(pcie_gen, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetCurrPcieLinkGeneration", NULL) \
	X(pcie_gen_max, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetMaxPcieLinkGeneration", NULL) \
	X(pcie_width, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetCurrPcieLinkWidth", NULL) \
	X(pcie_width_max, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetMaxPcieLinkWidth", NULL) \
	X(pcie_replay, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetPcieReplayCounter", NULL) \
	X(nvlink_state, nvmlReturn_t, (nvmlDevice_t, unsigned int, int *), "nvmlDeviceGetNvLinkState", NULL) \
	X(nvlink_version, nvmlReturn_t, (nvmlDevice_t, unsigned int, unsigned int *), \
	  "nvmlDeviceGetNvLinkVersion", NULL) \
	X(nvlink_errors, nvmlReturn_t, (nvmlDevice_t, unsigned int, int, unsigned long long *), \
	  "nvmlDeviceGetNvLinkErrorCounter", NULL) \
	X(fabric, nvmlReturn_t, (nvmlDevice_t, void *), "nvmlDeviceGetGpuFabricInfo", NULL) \
	X(procs, nvmlReturn_t, (nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *), \
	  "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2") \
	X(procs_v1, nvmlReturn_t, (nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *), \
	  "nvmlDeviceGetComputeRunningProcesses", NULL) \
	X(mig_max, nvmlReturn_t, (nvmlDevice_t, unsigned int *), "nvmlDeviceGetMaxMigDeviceCount", NULL) \
	X(mig_handle, nvmlReturn_t, (nvmlDevice_t, unsigned int, nvmlDevice_t *), \
	  "nvmlDeviceGetMigDeviceHandleByIndex", NULL)

#define NVML_API_SLOT(slot, ret, params, name, fallback) ret (*slot) params;
struct nvml_api {
	NVML_API_FUNCS(NVML_API_SLOT)
};
#undef NVML_API_SLOT

#define NVML_API_ENUM(slot, ret, params, name, fallback) NVML_FN_##slot,
enum nvml_fn { NVML_API_FUNCS(NVML_API_ENUM) NVML_FN_COUNT };
#undef NVML_API_ENUM

/* One entry point a user calls, and whether it can do without it. */
/*
 * Fill api's slots named in want (every other slot NULL), in want's order,
 * so that m lists the missing ones in that order; -1 when a required one is
 * missing.
 */
int nvml_api_bind(void *handle, struct nvml_api *api, const struct cuda_sym_want *want, size_t n,
		  struct cuda_symtab_missing *m);

#endif
