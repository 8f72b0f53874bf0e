/* inventory_json_kernel.c - the kernel part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_kernel(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_obj_begin(j, "kernel");
	json_obj_end(j);
}
