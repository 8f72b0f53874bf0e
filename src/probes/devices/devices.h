/*
 * devices.h - facts of the devices layer: the /dev nodes CUDA opens.
 *
 * probe_devices() looks at /dev/nvidiactl, /dev/nvidiaN for each GPU bound to
 * nvidia (N is the GPU's "Device Minor" from /proc/driver/nvidia/gpus/BDF/
 * information when the module shows it, else its position among the GPUs
 * bound to nvidia), /dev/nvidia-uvm and the optional /dev/nvidia-uvm-tools.
 * Each node: present, a character device, and usable (read and write) by the
 * user running gpudoctor.  With root "/" usability is access(R_OK|W_OK), the
 * real user's permission; under --root it is judged from the node's mode,
 * owner and group against our effective ids and groups.
 * It runs after probe_hardware (the GPU list comes from there).
 *
 * The facts themselves (struct devices_inventory and its parts) are
 * the inventory's: inventory/devices.h, which this header includes.
 */
#ifndef GD_PROBE_DEVICES_H
#define GD_PROBE_DEVICES_H

#include "inventory/devices.h"

#include <stddef.h>
#include <sys/types.h>

struct gd_ctx;
struct inventory;
struct probe_in;
struct stat;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_devices(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_devices_live(const struct gd_ctx *ctx, struct inventory *inv);

/*
 * May a process with these ids open a node with st's mode/owner for reading
 * and writing?  uid 0 may (CAP_DAC_OVERRIDE).  Returns 1 or 0; why (if not
 * NULL, size whysz) says which bits are missing.
 */
int devices_mode_allows_rw(const struct stat *st, uid_t euid, gid_t egid, const gid_t *groups,
			   int ngroups, char *why, size_t whysz);

/* "Device Minor:  0" line of /proc/driver/nvidia/gpus/BDF/information, -1 none. */
long devices_parse_minor(const char *text, size_t len);

#endif
