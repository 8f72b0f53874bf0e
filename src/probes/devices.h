/*
 * devices.h - facts of the devices layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_DEVICES_H
#define GD_PROBE_DEVICES_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct devices_inventory {
	int probed;		/* the static probe ran */
};

void devices_inventory_init(struct devices_inventory *p);
void devices_inventory_release(struct devices_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_devices(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_devices_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
