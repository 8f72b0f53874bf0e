/*
 * driver.h - facts of the driver layer: the user-space driver libraries the
 * loader would pick, the kernel module's version, NVML's view of the GPUs
 * (from the isolated 'nvml' child) and the CUDA environment variables.
 *
 * probe_driver() fills the static part (files only); probe_driver_live()
 * runs "gpudoctor __probe nvml LIB" and fills `nvml`.  Unknown facts are
 * NULL / -1 / NAN (JSON null).  Owner: the driver layer (driver.c,
 * nvml_parse.c, cuda_env.c).
 *
 *	struct driver_inventory d;
 *	driver_inventory_init(&d);
 *	probe_driver(ctx, inv);		// inv->driver
 *	if (inv->driver.cuda.path) ...
 *	driver_inventory_release(&d);
 *
 * The facts themselves (struct driver_inventory and its parts) are
 * the inventory's: inventory/driver.h, which this header includes.
 */
#ifndef GD_PROBE_DRIVER_H
#define GD_PROBE_DRIVER_H

#include "inventory/driver.h"

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_driver(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_driver_live(const struct gd_ctx *ctx, struct inventory *inv);

/*
 * NVSwitch services (fabricmanager.c): Fabric Manager and IMEX, installed,
 * enabled, running, and Fabric Manager's installed version.  /proc and dpkg's
 * database are read only on a machine with NVSwitches (nvswitches, PCI
 * functions) or one of the services' files.
 */
void fabricmanager_probe(const char *root, size_t nvswitches, struct fabricmanager_info *fm);
/* The installed nvidia-fabricmanager* version in dpkg's status text, or NULL; *pkg its name. */
char *fabricmanager_dpkg_version(const char *text, char **pkg);

/* Parse the nvml child's lines into out (nvml_parse.c); exposed for tests. */
struct kvlist;
void nvml_parse(const struct gd_ctx *ctx, const struct kvlist *kv, struct nvml_info *out);

#endif
