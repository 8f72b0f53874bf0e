/* libraries.c - the libraries layer's probe.  (stub: to be filled by its owner) */
#include "probes/libraries.h"
#include "probes/inventory.h"

#include <string.h>

void libraries_inventory_init(struct libraries_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void libraries_inventory_release(struct libraries_inventory *p)
{
	memset(p, 0, sizeof(*p));
}

void probe_libraries(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	inv->libs.probed = 1;
}

void probe_libraries_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	(void)inv;
}
