/*
 * hardware.h - facts of the hardware layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_HARDWARE_H
#define GD_PROBE_HARDWARE_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct hw_inventory {
	int probed;		/* the static probe ran */
};

void hw_inventory_init(struct hw_inventory *p);
void hw_inventory_release(struct hw_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_hardware(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_hardware_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
