/*
 * kernel.h - facts of the kernel layer: the NVIDIA modules and what stops them.
 *
 * probe_kernel() reads, inside --root:
 *   /proc/modules                 which of nvidia, nvidia_uvm, nvidia_drm,
 *                                 nvidia_modeset, nouveau, nova_core are loaded
 *   /sys/module/nvidia/version    the loaded module's version
 *   /proc/driver/nvidia/version   version and flavour (open or proprietary)
 *   /proc/sys/kernel/osrelease    the running kernel
 *   /lib/modules/RELEASE/...      a bounded search for nvidia.ko[.xz|.zst|.gz]
 *   /sys/firmware/efi/efivars/SecureBoot-8be4df61-...   Secure Boot state
 *   /usr/bin/nvidia-modprobe      present, setuid root?  (it loads nvidia_uvm
 *                                 and creates /dev nodes on first CUDA use)
 * Unknown facts are -1 / NULL.  The parsers are exposed for the tests and the
 * fuzzer (tests/fuzz/fuzz_procfs.c).
 */
#ifndef GD_PROBE_KERNEL_H
#define GD_PROBE_KERNEL_H

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

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

void kernel_inventory_init(struct kernel_inventory *p);
void kernel_inventory_release(struct kernel_inventory *p);

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_kernel(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_kernel_live(const struct gd_ctx *ctx, struct inventory *inv);

/* The module names, indexed by enum kmod_id ("nvidia", "nvidia_uvm", ...). */
const char *kernel_module_name(enum kmod_id id);

/*
 * One /proc/modules line: "name size refcount deps state address [(taint)]".
 * Fills name (NUL-terminated, truncated to namesz) and st; returns 0, or -1
 * for a line that has not even a name and a size.
 */
int kernel_parse_modules_line(const char *line, size_t len, char *name, size_t namesz,
			      struct kmod_state *st);
/* All of /proc/modules into mods[KMOD_COUNT] (every entry becomes known). */
void kernel_parse_modules(const char *text, size_t len, struct kmod_state *mods);

/*
 * The first line of /proc/driver/nvidia/version:
 *   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..."
 *   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."
 * The version is the first whitespace-separated word made of digits and at
 * least one dot; open is 1 when the line says "Open Kernel", 0 when it is a
 * "Kernel Module" line without it, else -1.  Returns 0, or -1 when no version.
 */
int kernel_parse_nvidia_version(const char *text, size_t len, char *ver, size_t versz,
				int *open);

/* An efivar file: 4 attribute bytes, then the data; 1 on, 0 off, -1 malformed. */
int kernel_parse_efivar_bool(const unsigned char *data, size_t len);

#endif
