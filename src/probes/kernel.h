/*
 * kernel.h - facts of the kernel layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_KERNEL_H
#define GD_PROBE_KERNEL_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct kernel_inventory {
	int probed;		/* the static probe ran */
};

void kernel_inventory_init(struct kernel_inventory *p);
void kernel_inventory_release(struct kernel_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_kernel(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_kernel_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
