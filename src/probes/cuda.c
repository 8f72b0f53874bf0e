/* cuda.c - the cuda layer's probe.  (stub: to be filled by its owner) */
#include "probes/cuda.h"
#include "probes/inventory.h"

#include <string.h>

void cuda_inventory_init(struct cuda_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void cuda_inventory_release(struct cuda_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void probe_cuda(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	inv->cuda.probed = 1;
}

void probe_cuda_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	(void)inv;
}
