/* inventory_json_devices.c - the "devices" object of the inventory JSON. */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

#include <stdio.h>

void inventory_json_devices(const struct inventory *inv, struct json *j)
{
	const struct devices_inventory *dv = &inv->devices;

	json_obj_begin(j, "devices");
	json_int_nonneg(j, "uid", dv->euid);
	json_bool(j, "container", dv->in_container);
	json_str(j, "container_marker", dv->container_marker);
	json_arr_begin(j, "nodes");
	for (size_t i = 0; i < dv->n; i++) {
		const struct dev_node *d = &dv->nodes[i];

		json_obj_begin(j, NULL);
		json_str(j, "path", d->path);
		json_bool(j, "required", d->required);
		json_str(j, "gpu", d->bdf);
		json_bool(j, "present", d->present);
		json_tribool(j, "char_device", d->present ? d->is_chr : -1);
		json_int_nonneg(j, "major", d->major);
		json_int_nonneg(j, "minor", d->minor);
		if (d->mode >= 0) {
			char m[8];

			snprintf(m, sizeof(m), "%04lo", d->mode & 07777);
			json_str(j, "mode", m);
		} else {
			json_null(j, "mode");
		}
		json_int_nonneg(j, "owner", d->uid);
		json_int_nonneg(j, "group", d->gid);
		json_tribool(j, "usable", d->usable);
		json_str(j, "why", d->why);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
