/*
 * cuda.h - facts of the cuda layer.  (stub: to be filled by its owner)
 */
#ifndef GD_PROBE_CUDA_H
#define GD_PROBE_CUDA_H

#include <stddef.h>

struct gd_ctx;
struct inventory;

struct cuda_inventory {
	int probed;		/* the static probe ran */
};

void cuda_inventory_init(struct cuda_inventory *p);
void cuda_inventory_release(struct cuda_inventory *p);

/* Static facts: reads files only, never loads or executes anything. */
void probe_cuda(const struct gd_ctx *ctx, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_cuda_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
