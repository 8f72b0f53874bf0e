/* inventory_json_platform.c - the "platform" object of the inventory JSON (inventory/platform.h). */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

void inventory_json_platform(const struct inventory *inv, struct json *j)
{
	const struct platform_inventory *p = &inv->platform;

	json_obj_begin(j, "platform");
	json_str(j, "wsl", platform_wsl_id(p->wsl));
	json_str(j, "proc_version", p->proc_version);
	json_tribool(j, "dxg", p->dxg);
	json_tribool(j, "wsl_lib_dir", p->probed ? p->wsl_lib_dir : -1);
	json_str(j, "wsl_libcuda", p->wsl_libcuda);
	json_tribool(j, "wsl_libcuda_is_link", p->wsl_libcuda_is_link);
	json_str(j, "wsl_nvidia_smi", p->wsl_nvidia_smi);
	json_tribool(j, "docker_desktop", p->probed ? p->docker_desktop : -1);
	json_obj_begin(j, "gpu_operator");
	json_str(j, "driver_root", p->operator_root);
	json_str(j, "libcuda", p->operator_libcuda);
	json_str(j, "libcuda_version", p->operator_libcuda_version);
	json_str(j, "nvml", p->operator_nvml);
	json_str(j, "nvidia_smi", p->operator_nvidia_smi);
	json_str(j, "os", p->operator_os);
	json_tribool(j, "validations_dir", p->probed ? p->validations_dir : -1);
	json_obj_begin(j, "validations");
	for (int m = 0; m < OPMARK_COUNT; m++)
		json_tribool(j, platform_marker_name((enum operator_marker)m), p->markers[m]);
	json_obj_end(j);
	json_str(j, "toolkit_config", p->toolkit_config);
	json_str(j, "toolkit_driver_root", p->toolkit_driver_root);
	json_obj_end(j);
	json_str(j, "lockdown", p->lockdown);
	json_str(j, "lockdown_line", p->lockdown_line);
	json_obj_end(j);
}
