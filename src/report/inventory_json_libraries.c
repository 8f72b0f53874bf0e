/* inventory_json_libraries.c - the libraries part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_libraries(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_arr_begin(j, "libraries");
	json_arr_end(j);
}
