/* kernel.c - the kernel part of the inventory: its lifecycle and module names; see kernel.h. */
#include "inventory/kernel.h"

#include <stdlib.h>
#include <string.h>

static const char *const kmod_names[KMOD_COUNT] = {
	"nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nouveau", "nova_core",
};

const char *kernel_module_name(enum kmod_id id)
{
	return (unsigned)id < KMOD_COUNT ? kmod_names[id] : "?";
}

void kernel_kmod_unknown(struct kmod_state *m)
{
	memset(m, 0, sizeof(*m));
	m->loaded = -1;
	m->refcount = -1;
}

void kernel_inventory_init(struct kernel_inventory *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < KMOD_COUNT; i++)
		kernel_kmod_unknown(&p->mods[i]);
	p->open_module = -1;
	p->module_file_found = -1;
	p->modules_dir_present = -1;
	p->secure_boot = -1;
	p->nvidia_modprobe = -1;
}

void kernel_inventory_release(struct kernel_inventory *p)
{
	free(p->modules_error);
	free(p->sys_version);
	free(p->proc_version);
	free(p->proc_version_line);
	free(p->release);
	free(p->module_file);
	free(p->module_search_note);
	free(p->secure_boot_evidence);
	free(p->nvidia_modprobe_path);
	memset(p, 0, sizeof(*p));
}
