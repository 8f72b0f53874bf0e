/* inventory_json_frameworks.c - the frameworks part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_frameworks(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_arr_begin(j, "frameworks");
	json_arr_end(j);
}
