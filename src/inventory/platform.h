/*
 * platform.h - the platform part of the inventory: what kind of machine the
 * GPU stack runs on, which changes what every layer means.
 *
 *  - WSL: under WSL2 the GPU is reached through /dev/dxg (GPU
 *    paravirtualization), the driver is the Windows one, and its Linux-side
 *    libraries are the files the Windows driver puts in /usr/lib/wsl/lib:
 *    no NVIDIA PCI function, no nvidia module and no /dev/nvidia* are normal
 *    there.  WSL1 has no GPU at all.  (NVIDIA's CUDA on WSL user guide,
 *    https://docs.nvidia.com/cuda/wsl-user-guide/index.html)
 *  - A GPU Operator node: the driver runs in a container whose root the
 *    host sees at /run/nvidia/driver, and the operator's validator leaves
 *    markers in /run/nvidia/validations (NVIDIA/gpu-operator, validator/main.go).
 *  - Kernel lockdown (/sys/kernel/security/lockdown, man 7 kernel_lockdown).
 *  - The distribution (os-release) and glibc version, for bug reports.
 *
 * probe_platform() (probes/platform/platform.h) fills it before the other
 * layers' probes; every layer's probe and rules may read it.  Unknown is -1
 * / NULL.
 *
 *	if (inv->platform.wsl == PLATFORM_WSL2) ...
 *	if (inv->platform.operator_root) use(inv->platform.operator_libcuda);
 */
#ifndef GD_INVENTORY_PLATFORM_H
#define GD_INVENTORY_PLATFORM_H

#include <stddef.h>

enum platform_wsl {
	PLATFORM_NOT_WSL,	/* a Linux kernel of its own (bare metal, VM, container) */
	PLATFORM_WSL1,		/* the WSL1 translation layer: no GPU */
	PLATFORM_WSL2,		/* the WSL2 kernel: GPU through /dev/dxg */
};

/* The Windows driver's directory of Linux libraries under WSL2. */
#define PLATFORM_WSL_LIB_DIR "/usr/lib/wsl/lib"
/* Where the GPU Operator's driver container shows its root to the host. */
#define PLATFORM_OPERATOR_ROOT "/run/nvidia/driver"
#define PLATFORM_OPERATOR_VALIDATIONS "/run/nvidia/validations"

/* The operator validator's markers, in the order the operator creates them. */
enum operator_marker {
	OPMARK_DRIVER,		/* driver-ready: chroot /run/nvidia/driver nvidia-smi worked */
	OPMARK_TOOLKIT,		/* toolkit-ready: nvidia-smi ran in a container */
	OPMARK_CUDA,		/* cuda-ready: the vectorAdd pod ran */
	OPMARK_PLUGIN,		/* plugin-ready: the device plugin advertises GPUs */
	OPMARK_COUNT
};

struct platform_inventory {
	int probed;			/* the static probe ran */

	/* WSL */
	enum platform_wsl wsl;
	char *proc_version;		/* the first line of /proc/version, NULL unreadable */
	int dxg;			/* /dev/dxg exists: 1, 0 absent, -1 unknown */
	int wsl_lib_dir;		/* /usr/lib/wsl/lib exists: 1/0 */
	char *wsl_libcuda;		/* /usr/lib/wsl/lib/libcuda.so.1 when it exists, else NULL */
	int wsl_libcuda_is_link;	/* 1 a symbolic link, 0 a file (as Windows ships it), -1 */
	char *wsl_nvidia_smi;		/* /usr/lib/wsl/lib/nvidia-smi when it exists */
	int docker_desktop;		/* Docker Desktop's WSL integration is mounted: 1/0 */

	/* GPU Operator */
	char *operator_root;		/* "/run/nvidia/driver" when it holds a driver, else NULL */
	char *operator_libcuda;		/* the driver container's libcuda.so.<version> (machine path) */
	char *operator_libcuda_version;	/* "580.95.05" from its file name */
	char *operator_nvml;		/* its libnvidia-ml.so.1 (machine path) */
	char *operator_nvidia_smi;	/* its nvidia-smi (machine path) */
	char *operator_os;		/* PRETTY_NAME of its etc/os-release */
	int validations_dir;		/* /run/nvidia/validations exists: 1/0 */
	int markers[OPMARK_COUNT];	/* each marker present: 1, 0 absent, -1 no directory */
	char *toolkit_config;		/* the container toolkit config that sets a driver root */
	char *toolkit_driver_root;	/* its [nvidia-container-cli] root ("/run/nvidia/driver") */

	/* Kernel lockdown */
	char *lockdown;			/* the selected mode: "none", "integrity", "confidentiality"; NULL unknown */
	char *lockdown_line;		/* the file's line, for evidence */

	/* The inspected tree's OS (probes/platform/platform_os.c), for reports */
	char *os_pretty;		/* os-release PRETTY_NAME: "Ubuntu 22.04.4 LTS", NULL unknown */
	char *os_id;			/* ID: "ubuntu" */
	char *os_version_id;		/* VERSION_ID: "22.04" */
	char *os_id_like;		/* ID_LIKE: "debian", NULL when absent */
	char *os_release_file;		/* the os-release read (path inside the tree) */
	char *glibc_version;		/* "2.35" from its libc.so.6, NULL unknown */
	char *glibc_from;		/* that libc.so.6 (path inside the tree) */
	const char *glibc_how;		/* "file name" (libc-2.31.so) or "version string" */
};

void platform_inventory_init(struct platform_inventory *p);
void platform_inventory_release(struct platform_inventory *p);

/* The validator's file name of a marker ("driver-ready"). */
const char *platform_marker_name(enum operator_marker m);
/* "wsl1", "wsl2" or NULL when not WSL (the JSON vocabulary). */
const char *platform_wsl_id(enum platform_wsl w);
/* Under WSL (1 or 2): fixes must never name modprobe, DKMS or a Linux driver. */
int platform_is_wsl(const struct platform_inventory *p);
/* Where the driver is upgraded, for fixes: " on Windows (then wsl --shutdown)" under WSL, else "". */
const char *platform_driver_where(const struct platform_inventory *p);
/* A path that lies in /usr/lib/wsl/ (the Windows driver's files). */
int platform_path_in_wsl(const char *path);

#endif
