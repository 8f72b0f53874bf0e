/* frameworks.c - the frameworks layer's probe.  (stub: to be filled by its owner) */
#include "probes/frameworks.h"
#include "probes/inventory.h"

#include <string.h>

void frameworks_inventory_init(struct frameworks_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void frameworks_inventory_release(struct frameworks_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void probe_frameworks(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	inv->fw.probed = 1;
}

void probe_frameworks_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	(void)inv;
}
