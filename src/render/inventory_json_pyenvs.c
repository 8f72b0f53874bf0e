/*
 * inventory_json_pyenvs.c - the "python_environments" array of the
 * inventory: every Python environment the probes looked in, in the order
 * they were found (python/pyenv.h), so that a framework's "env" can be
 * traced to how its environment was found.  Presentation only.
 */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

void inventory_json_pyenvs(const struct inventory *inv, struct json *j)
{
	json_arr_begin(j, "python_environments");
	for (size_t i = 0; i < inv->pyenvs.n; i++) {
		const struct pyenv *e = &inv->pyenvs.envs[i];

		json_obj_begin(j, NULL);
		json_str(j, "prefix", e->prefix);
		json_str(j, "kind", e->kind);
		json_str(j, "python", e->python);
		json_str(j, "python_version", e->python_version);
		json_str_array(j, "site_dirs", e->site_dirs, e->nsite);
		json_bool(j, "active", e->active);
		json_str(j, "base_python", e->base_python);
		json_obj_end(j);
	}
	json_arr_end(j);
}
