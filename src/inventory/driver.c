/* driver.c - the driver part of the inventory: its lifecycle, lookups and NVML names; see driver.h. */
#include "inventory/driver.h"

#include <stdlib.h>
#include <string.h>

void driver_inventory_init(struct driver_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->cuda.soname = "libcuda.so.1";
	p->nvml.soname = "libnvidia-ml.so.1";
	p->nvml_live.init_result = -1;
	p->nvml_live.cuda_version = -1;
	p->nvml_live.cuda_version_raw = -1;
	p->nvml_live.count = -1;
	p->nvml_live.seconds = -1;
	p->fm.enabled = -1;
	p->fm.pid = -1;
	p->fm.nvswitch_nodes = -1;
	p->fm.imex_pid = -1;
}

void fabricmanager_info_release(struct fabricmanager_info *f)
{
	free(f->binary);
	free(f->unit);
	free(f->version);
	free(f->version_source);
	free(f->package);
	free(f->imex_binary);
}

static void driver_lib_release(struct driver_lib *l)
{
	free(l->path);
	free(l->realpath);
	free(l->version);
	free(l->error);
	free(l->stub_reason);
}

void driver_inventory_release(struct driver_inventory *p)
{
	driver_lib_release(&p->cuda);
	driver_lib_release(&p->nvml);
	free(p->ld_library_path);
	free(p->kernel_module_version);
	free(p->version);
	free(p->version_source);
	for (size_t i = 0; i < p->nstubs; i++) {
		free(p->stubs[i].path);
		free(p->stubs[i].why);
	}
	free(p->stubs);
	for (size_t i = 0; i < p->nenv; i++)
		free(p->env[i].value);
	free(p->env);
	nvml_info_release(&p->nvml_live);
	fabricmanager_info_release(&p->fm);
	memset(p, 0, sizeof(*p));
}

const struct driver_envvar *driver_env_get(const struct driver_inventory *d, const char *name)
{
	for (size_t i = 0; i < d->nenv; i++)
		if (!strcmp(d->env[i].name, name))
			return &d->env[i];
	return NULL;
}

/* NVML return codes by number (nvml.h nvmlReturn_t), for evidence. */
const char *nvml_return_name(int rc)
{
	static const char *const names[] = {
		"Success", "Uninitialized", "Invalid Argument", "Not Supported",
		"Insufficient Permissions", "Already Initialized", "Not Found",
		"Insufficient Size", "Insufficient External Power", "Driver Not Loaded",
		"Timeout", "Interrupt Request Issue", "NVML Shared Library Not Found",
		"Function Not Found", "Corrupted infoROM", "GPU is lost", "GPU requires restart",
		"The operating system has blocked the request",
		"RM has detected an NVML/RM version mismatch", "In use by another client",
		"Insufficient Memory", "No data",
	};

	if (rc >= 0 && (size_t)rc < sizeof(names) / sizeof(names[0]))
		return names[rc];
	return rc == 999 ? "Unknown Error" : "?";
}

void nvml_info_release(struct nvml_info *n)
{
	free(n->lib);
	free(n->error);
	free(n->child_error);
	free(n->child_stderr);
	free(n->driver_version);
	free(n->missing_optional);
	for (size_t i = 0; i < n->ngpus; i++) {
		struct nvml_gpu *g = &n->gpus[i];

		free(g->name);
		free(g->uuid);
		free(g->bus_id);
		for (size_t j = 0; j < g->nprocs; j++)
			free(g->procs[j].name);
		free(g->procs);
		for (size_t j = 0; j < g->nerrors; j++)
			free(g->errors[j]);
		free(g->errors);
		for (size_t j = 0; j < g->nmig_uuids; j++)
			free(g->mig_uuids[j]);
		free(g->mig_uuids);
	}
	free(n->gpus);
	memset(n, 0, sizeof(*n));
	n->init_result = -1;
	n->cuda_version = -1;
	n->cuda_version_raw = -1;
	n->count = -1;
	n->seconds = -1;
}
