/* fw_live.c - --live: each environment's interpreter, in a child, does one real GPU operation. (next step) */
#include "probes/frameworks.h"
#include "probes/inventory.h"

void probe_frameworks_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	(void)ctx;
	inv->fw.live_ran = 1;
}
