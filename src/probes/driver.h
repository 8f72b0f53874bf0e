/*
 * driver.h - facts of the driver layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_DRIVER_H
#define GD_PROBE_DRIVER_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct driver_inventory {
	int probed;		/* the static probe ran */
};

void driver_inventory_init(struct driver_inventory *p);
void driver_inventory_release(struct driver_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_driver(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_driver_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
