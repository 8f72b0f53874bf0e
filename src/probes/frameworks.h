/*
 * frameworks.h - facts of the frameworks layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_FRAMEWORKS_H
#define GD_PROBE_FRAMEWORKS_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct frameworks_inventory {
	int probed;		/* the static probe ran */
};

void frameworks_inventory_init(struct frameworks_inventory *p);
void frameworks_inventory_release(struct frameworks_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_frameworks(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_frameworks_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
