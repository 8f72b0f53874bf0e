/* inventory_json_driver.c - the driver part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_driver(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_obj_begin(j, "driver");
	json_obj_end(j);
}
