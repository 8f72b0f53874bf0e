/* inventory_json.c - the inventory object, assembled from each layer's part. */
#include "render/inventory_json.h"
#include "core/json.h"

void inventory_json(const struct inventory *inv, const struct kb *kb, struct json *j)
{
	json_obj_begin(j, "inventory");
	inventory_json_platform(inv, j);
	inventory_json_hardware(inv, kb, j);
	inventory_json_kernel(inv, j);
	inventory_json_containers(inv, j);
	inventory_json_devices(inv, j);
	inventory_json_driver(inv, j);
	inventory_json_cuda(inv, j);
	inventory_json_libraries(inv, j);
	inventory_json_frameworks(inv, j);
	inventory_json_pyenvs(inv, j);
	json_obj_end(j);
}
