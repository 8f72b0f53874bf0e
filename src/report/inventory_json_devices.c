/* inventory_json_devices.c - the devices part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_devices(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_obj_begin(j, "devices");
	json_obj_end(j);
}
