/*
 * driver.h - the driver layer's part of the inventory: the user-space driver
 * libraries the loader picks, the driver version every rule uses, the stubs
 * within reach, the CUDA environment variables, and NVML's view of the GPUs.
 *
 * probe_driver() and probe_driver_live() (probes/driver/driver.h) fill it;
 * rules and renderers read it through struct inventory
 * (inventory/inventory.h).  Unknown is NULL / -1 / NAN (JSON null).
 *
 *	if (inv->driver.cuda.path) use(inv->driver.version, inv->driver.version_source);
 *	const struct driver_envvar *v = driver_env_get(&inv->driver, "CUDA_VISIBLE_DEVICES");
 *	use(nvml_return_name(inv->driver.nvml_live.init_result));
 */
#ifndef GD_INVENTORY_DRIVER_H
#define GD_INVENTORY_DRIVER_H

#include <stddef.h>

#include "loader/ldso.h"

/* One driver library (libcuda.so.1, libnvidia-ml.so.1) as the loader would find it. */
struct driver_lib {
	const char *soname;	/* static string */
	char *path;		/* machine path the loader picks, NULL when none */
	char *realpath;		/* symlinks resolved, NULL when unknown */
	char *version;		/* from the real file name ("580.95.05"), NULL when none */
	enum ldso_source how;	/* how the loader found it; LDSO_NONE when not found */
	char *error;		/* why resolution failed, NULL otherwise */
	char *stub_reason;	/* non-NULL when the winner is the toolkit stub: why we think so */
	int compat;		/* the winner lives in a cuda-compat directory */
	int operator_root;	/* not found by the host's loader: the GPU Operator's driver
				   container's copy under /run/nvidia/driver (platform.h), which
				   the container toolkit hands to containers */
};

/* A stub libcuda the loader's search can reach, other than the winner. */
struct driver_stub {
	char *path;		/* the stub, or the stubs directory on LD_LIBRARY_PATH */
	char *why;
};

struct nvml_proc {
	long long pid;
	long long used_bytes;	/* -1 unknown */
	char *name;		/* /proc/PID/comm, NULL when unreadable */
};

struct nvml_gpu {
	int index;
	char *name, *uuid, *bus_id;
	int pci_device_id;		/* -1 unknown */
	long long memory_total, memory_used;	/* bytes, -1 unknown; used as nvidia-smi shows it */
	long long memory_reserved;	/* bytes the driver/firmware keep (v2 query only), -1 unknown */
	int memory_api;			/* 2: nvmlDeviceGetMemoryInfo_v2, 1: v1 (used includes reserved), -1 */
	int util_gpu, util_mem;		/* percent, -1 unknown */
	int temperature_c;		/* -1 unknown */
	double power_w, power_limit_w;	/* NAN unknown */
	int persistence;		/* 1 on, 0 off, -1 unknown */
	int display_mode;		/* 1 a display can be attached, 0 headless, -1 unknown */
	int compute_mode;		/* NVML_COMPUTEMODE_*: 0 default, 2 prohibited, 3 exclusive process */
	int mig_mode;			/* current: 1 on, 0 off, -1 unknown */
	int mig_pending;		/* the mode after the next GPU reset: 1 on, 0 off, -1 unknown */
	int mig_devices;		/* MIG devices (compute instances) when MIG is on, -1 unknown */
	char **mig_uuids;		/* their "MIG-..." UUIDs */
	size_t nmig_uuids, mig_uuids_cap;
	/*
	 * nvmlDeviceGetGpuFabricInfo: state 0 not supported, 1 not started,
	 * 2 in progress, 3 completed; status an nvmlReturn_t (0 success).
	 * -1 unknown, and on GPUs outside an NVSwitch fabric (not supported).
	 */
	int fabric_state, fabric_status;
	int ecc_mode;			/* current: 1 on, 0 off, -1 unknown */
	long long ecc_volatile_unc, ecc_aggregate_unc;	/* -1 unknown */
	int retired_pending;		/* -1 unknown */
	int remap_corr, remap_unc, remap_pending, remap_failure;	/* -1 unknown */
	int lost;			/* a call returned NVML_ERROR_GPU_IS_LOST */
	int procs_known;
	struct nvml_proc *procs;
	size_t nprocs, procs_cap;
	char **errors;			/* "nvmlDeviceGetPowerUsage: 3 (Not Supported)" */
	size_t nerrors, errors_cap;
};

enum nvml_outcome {
	NVML_NOT_RUN,		/* --no-load, blocked, or no library */
	NVML_RAN_OK,		/* nvmlInit succeeded */
	NVML_DLOPEN_FAILED,
	NVML_MISSING_SYMBOL,
	NVML_INIT_FAILED,
	NVML_CHILD_FAILED,	/* crashed, hung, garbage: see child_error */
};

struct nvml_info {
	enum nvml_outcome outcome;
	char *lib;			/* the file the child loaded */
	char *error;			/* dlopen error, missing symbols, nvmlErrorString */
	char *child_error;		/* "crashed with SIGSEGV (signal 11)" */
	char *child_stderr;		/* first line of the child's stderr, if any */
	int init_result;		/* nvmlReturn_t, -1 unknown */
	char *driver_version;
	int cuda_version;		/* 13000 style, -1 unknown (NVML's 0 included) */
	int cuda_version_raw;		/* what nvmlSystemGetCudaDriverVersion said, -1 no answer */
	int count;			/* -1 unknown */
	char *missing_optional;
	double seconds;			/* NAN unknown */
	struct nvml_gpu *gpus;
	size_t ngpus;
};

/* A CUDA environment variable that is set, and what it does. */
struct driver_envvar {
	const char *name;	/* static */
	char *value;
	int flagged;		/* changes CUDA's behaviour in a way to warn about */
	const char *effect;	/* static, one line; NULL when not flagged */
};

/*
 * NVSwitch systems' user-space services, from files only (fabricmanager.c):
 * the NVIDIA Fabric Manager (nv-fabricmanager, unit nvidia-fabricmanager)
 * and, on GB200 NVL72-class systems, IMEX (nvidia-imex).  Fabric Manager
 * user guide: https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/
 */
struct fabricmanager_info {
	char *binary;			/* /usr/bin/nv-fabricmanager when present, NULL */
	char *unit;			/* the systemd unit file found, NULL */
	int enabled;			/* a multi-user.target.wants link: 1, 0, -1 unknown */
	long long pid;			/* a running nv-fabricmanager, -1 none seen */
	int procs_listed;		/* /proc could be listed: pid -1 means "not running" */
	/* The installed version: dpkg's nvidia-fabricmanager* package ("580.95.05"), NULL unknown */
	char *version;
	char *version_source;
	char *package;			/* the package that gave the version, NULL */
	int nvswitch_nodes;		/* /dev/nvidia-nvswitchN nodes (-1 /dev unreadable) */
	char *imex_binary;		/* /usr/bin/nvidia-imex, NULL */
	long long imex_pid;		/* a running nvidia-imex, -1 none seen */
	int imex_channels;		/* /dev/nvidia-caps-imex-channels exists: 1, 0 */
};

struct driver_inventory {
	int probed;			/* the static probe ran */
	struct driver_lib cuda, nvml;
	char *ld_library_path;		/* LD_LIBRARY_PATH in force, NULL when unset */
	char *kernel_module_version;	/* the kernel layer's module_version (kernel.h), copied */
	const char *kernel_module_source;	/* the file it came from (static) */
	/*
	 * The driver version the CUDA runtime runs on, the one reading every
	 * rule uses, in this order: the user-space libcuda.so.1 the loader
	 * picks, by its real file name (with cuda-compat it is newer than the
	 * module, and it is what the runtime talks to); else the kernel
	 * module's; else NVML's answer (set by the live probe).  NULL unknown.
	 */
	char *version;
	char *version_source;		/* the file or call it came from */
	struct driver_stub *stubs;
	size_t nstubs, stubs_cap;
	struct driver_envvar *env;	/* CUDA_* and NVIDIA_VISIBLE_DEVICES that are set */
	size_t nenv, env_cap;
	struct nvml_info nvml_live;
	struct fabricmanager_info fm;
};

void driver_inventory_init(struct driver_inventory *p);
void driver_inventory_release(struct driver_inventory *p);

void nvml_info_release(struct nvml_info *n);
void fabricmanager_info_release(struct fabricmanager_info *f);
/* NVML's text for an nvmlReturn_t ("GPU is lost"), "?" when unknown. */
const char *nvml_return_name(int rc);

/* The value of a CUDA variable recorded by the static probe, or NULL when unset. */
const struct driver_envvar *driver_env_get(const struct driver_inventory *d, const char *name);

#endif
