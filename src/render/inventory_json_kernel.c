/* inventory_json_kernel.c - the "kernel" object of the inventory JSON. */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

void inventory_json_kernel(const struct inventory *inv, struct json *j)
{
	const struct kernel_inventory *k = &inv->kernel;

	json_obj_begin(j, "kernel");
	json_str(j, "release", k->release);
	json_obj_begin(j, "modules");
	for (int i = 0; i < KMOD_COUNT; i++) {
		const struct kmod_state *m = &k->mods[i];

		json_obj_begin(j, kernel_module_name((enum kmod_id)i));
		json_tribool(j, "loaded", m->loaded);
		json_str(j, "state", m->state[0] ? m->state : NULL);
		json_int_nonneg(j, "refcount", m->refcount);
		json_str(j, "taint", m->taint[0] ? m->taint : NULL);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_str(j, "modules_error", k->modules_error);
	json_str(j, "module_version", k->module_version);
	json_str(j, "module_version_source", k->module_version_source);
	json_str(j, "sys_module_version", k->sys_version);
	json_str(j, "proc_version", k->proc_version);
	json_str(j, "flavour", k->open_module == 1 ? "open" :
			       k->open_module == 0 ? "proprietary" : NULL);
	json_tribool(j, "module_file_found", k->module_file_found);
	json_str(j, "module_file", k->module_file);
	json_tribool(j, "secure_boot", k->secure_boot);
	json_str(j, "secure_boot_evidence", k->secure_boot_evidence);
	json_str(j, "nvidia_modprobe", k->nvidia_modprobe_path);
	json_tribool(j, "nvidia_modprobe_setuid", k->nvidia_modprobe_path ? k->nvidia_modprobe : -1);
	json_obj_end(j);
}
