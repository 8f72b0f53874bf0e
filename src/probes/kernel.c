/* kernel.c - the kernel layer's probe.  (stub: to be filled by its owner) */
#include "probes/kernel.h"
#include "probes/inventory.h"

#include <string.h>

void kernel_inventory_init(struct kernel_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void kernel_inventory_release(struct kernel_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void probe_kernel(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	inv->kernel.probed = 1;
}

void probe_kernel_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	(void)inv;
}
