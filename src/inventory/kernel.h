/*
 * kernel.h - the kernel layer's part of the inventory: the NVIDIA modules,
 * the loaded module's version and flavour, the module file, Secure Boot and
 * nvidia-modprobe, as facts.
 *
 * probe_kernel() (probes/kernel/kernel.h) fills it; rules and renderers read
 * it through struct inventory (inventory/inventory.h).  Unknown is -1 / NULL
 * (kernel_kmod_unknown() for a module's state).
 *
 *	for (int i = 0; i < KMOD_COUNT; i++)
 *		use(kernel_module_name(i), inv->kernel.mods[i].loaded);
 */
#ifndef GD_INVENTORY_KERNEL_H
#define GD_INVENTORY_KERNEL_H

#include <stddef.h>

enum kmod_id {
	KMOD_NVIDIA,
	KMOD_NVIDIA_UVM,
	KMOD_NVIDIA_DRM,
	KMOD_NVIDIA_MODESET,
	KMOD_NOUVEAU,
	KMOD_NOVA_CORE,
	KMOD_COUNT
};

/* One module of interest as /proc/modules shows it. */
struct kmod_state {
	int loaded;		/* 1 listed, 0 not listed, -1 unknown (no /proc/modules) */
	char state[16];		/* "Live", "Loading", "Unloading"; "" unknown */
	long refcount;		/* -1 unknown */
	char taint[16];		/* "(POE)" without parentheses: "POE"; "" none */
};

struct kernel_inventory {
	int probed;		/* the static probe ran */
	char *modules_error;	/* why /proc/modules could not be read, or NULL */
	struct kmod_state mods[KMOD_COUNT];

	char *sys_version;	/* /sys/module/nvidia/version */
	char *proc_version;	/* version parsed from /proc/driver/nvidia/version */
	char *proc_version_line;	/* its first line, for evidence */
	/*
	 * The loaded module's version, the one reading every layer uses:
	 * /sys/module/nvidia/version (the module's own MODULE_VERSION), else
	 * the version in /proc/driver/nvidia/version; NULL when neither.  This
	 * file (kernel.c) is the only parser of /proc/driver/nvidia/version.
	 */
	const char *module_version;	/* points at sys_version or proc_version */
	const char *module_version_source;	/* the file it came from (static), or NULL */
	int open_module;	/* 1 open kernel module, 0 proprietary, -1 unknown */

	char *release;		/* /proc/sys/kernel/osrelease */
	int module_file_found;	/* 1 found, 0 searched and absent, -1 unknown */
	char *module_file;	/* machine path of the nvidia.ko found */
	char *module_search_note;	/* why the search was incomplete, or NULL */
	int modules_dir_present;	/* /lib/modules/RELEASE exists: 1/0, -1 unknown */

	int secure_boot;	/* 1 on, 0 off, -1 unknown */
	char *secure_boot_evidence;	/* the file and value it rests on */

	int nvidia_modprobe;	/* 1 setuid root, 0 present without setuid, -1 absent */
	char *nvidia_modprobe_path;
};

/* A module's state before anything is known (loaded and refcount -1). */
void kernel_kmod_unknown(struct kmod_state *m);

void kernel_inventory_init(struct kernel_inventory *p);
void kernel_inventory_release(struct kernel_inventory *p);

/* The module names, indexed by enum kmod_id ("nvidia", "nvidia_uvm", ...). */
const char *kernel_module_name(enum kmod_id id);

#endif
