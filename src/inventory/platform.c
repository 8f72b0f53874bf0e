/* platform.c - the platform part of the inventory: its lifecycle and names; see platform.h. */
#include "inventory/platform.h"

#include <stdlib.h>
#include <string.h>

void platform_inventory_init(struct platform_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->dxg = -1;
	p->wsl_libcuda_is_link = -1;
	for (int i = 0; i < OPMARK_COUNT; i++)
		p->markers[i] = -1;
}

void platform_inventory_release(struct platform_inventory *p)
{
	free(p->proc_version);
	free(p->wsl_libcuda);
	free(p->wsl_nvidia_smi);
	free(p->operator_root);
	free(p->operator_libcuda);
	free(p->operator_libcuda_version);
	free(p->operator_nvml);
	free(p->operator_nvidia_smi);
	free(p->operator_os);
	free(p->toolkit_config);
	free(p->toolkit_driver_root);
	free(p->lockdown);
	free(p->lockdown_line);
	free(p->os_pretty);
	free(p->os_id_like);
	free(p->os_id);
	free(p->os_version_id);
	free(p->os_release_file);
	free(p->glibc_version);
	free(p->glibc_from);
	platform_inventory_init(p);
}

const char *platform_marker_name(enum operator_marker m)
{
	static const char *const names[OPMARK_COUNT] = {
		"driver-ready", "toolkit-ready", "cuda-ready", "plugin-ready",
	};

	return (unsigned)m < OPMARK_COUNT ? names[m] : "?";
}

const char *platform_wsl_id(enum platform_wsl w)
{
	return w == PLATFORM_WSL1 ? "wsl1" : w == PLATFORM_WSL2 ? "wsl2" : NULL;
}

int platform_is_wsl(const struct platform_inventory *p)
{
	return p->wsl == PLATFORM_WSL1 || p->wsl == PLATFORM_WSL2;
}

const char *platform_driver_where(const struct platform_inventory *p)
{
	return platform_is_wsl(p) ? " on Windows (WSL2's driver is the Windows one; then wsl --shutdown)" : "";
}

int platform_path_in_wsl(const char *path)
{
	return path && !strncmp(path, "/usr/lib/wsl/", 13);
}
