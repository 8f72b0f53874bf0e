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
 *
 * The facts themselves (struct kernel_inventory and its parts) are
 * the inventory's: inventory/kernel.h, which this header includes.
 */
#ifndef GD_PROBE_KERNEL_H
#define GD_PROBE_KERNEL_H

#include "inventory/kernel.h"

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_kernel(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_kernel_live(const struct gd_ctx *ctx, struct inventory *inv);

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
