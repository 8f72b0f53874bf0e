/* inventory_json_cuda.c - the cuda part of the inventory JSON.  (stub) */
#include "report/inventory_json.h"
#include "core/json.h"
#include "probes/inventory.h"

void inventory_json_cuda(const struct inventory *inv, struct json *j)
{
	(void)inv;
	json_obj_begin(j, "cuda");
	json_obj_end(j);
}
