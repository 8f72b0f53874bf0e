/*
 * libraries.h - facts of the libraries layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_LIBRARIES_H
#define GD_PROBE_LIBRARIES_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct libraries_inventory {
	int probed;		/* the static probe ran */
};

void libraries_inventory_init(struct libraries_inventory *p);
void libraries_inventory_release(struct libraries_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_libraries(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_libraries_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
