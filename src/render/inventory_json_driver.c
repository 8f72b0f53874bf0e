/*
 * inventory_json_driver.c - the "driver" object of the inventory JSON:
 * libraries (nvml, cuda), kernel_module_version, stubs, nvml (the live
 * probe's view of the GPUs) and env.  Unknown facts are null.
 */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

#include <math.h>
#include <stdio.h>

static void json_lib(struct json *j, const char *key, const struct driver_lib *l)
{
	json_obj_begin(j, key);
	json_str(j, "soname", l->soname);
	json_str(j, "path", l->path);
	json_str(j, "realpath", l->realpath);
	json_str(j, "version", l->version);
	json_str(j, "how", ldso_source_id(l->how));
	json_bool(j, "stub", l->stub_reason != NULL);
	json_bool(j, "compat", l->compat);
	json_bool(j, "operator_root", l->operator_root);
	json_str(j, "error", l->error);
	json_obj_end(j);
}

static const char *nvml_outcome_name(enum nvml_outcome o)
{
	switch (o) {
	case NVML_NOT_RUN: return "not-run";
	case NVML_RAN_OK: return "ok";
	case NVML_DLOPEN_FAILED: return "dlopen-failed";
	case NVML_MISSING_SYMBOL: return "missing-symbol";
	case NVML_INIT_FAILED: return "init-failed";
	case NVML_CHILD_FAILED: return "child-failed";
	}
	return NULL;
}

static void json_gpu(struct json *j, const struct nvml_gpu *g)
{
	json_obj_begin(j, NULL);
	json_int(j, "index", g->index);
	json_str(j, "name", g->name);
	json_str(j, "uuid", g->uuid);
	json_str(j, "bus_id", g->bus_id);
	json_int_nonneg(j, "memory_total_mib", g->memory_total >= 0 ? g->memory_total >> 20 : -1);
	json_int_nonneg(j, "memory_used_mib", g->memory_used >= 0 ? g->memory_used >> 20 : -1);
	json_int_nonneg(j, "memory_reserved_mib",
			g->memory_reserved >= 0 ? g->memory_reserved >> 20 : -1);
	json_str(j, "memory_query", g->memory_api == 2 ? "nvmlDeviceGetMemoryInfo_v2"
		 : g->memory_api == 1 ? "nvmlDeviceGetMemoryInfo" : NULL);
	json_int_nonneg(j, "utilization_gpu", g->util_gpu);
	json_int_nonneg(j, "temperature_c", g->temperature_c);
	json_num(j, "power_w", g->power_w);
	json_num(j, "power_limit_w", g->power_limit_w);
	json_tribool(j, "persistence_mode", g->persistence);
	json_int_nonneg(j, "compute_mode", g->compute_mode);
	json_tribool(j, "mig_mode", g->mig_mode);
	json_tribool(j, "mig_mode_pending", g->mig_pending);
	json_int_nonneg(j, "mig_devices", g->mig_devices);
	json_str_array(j, "mig_device_uuids", g->mig_uuids, g->nmig_uuids);
	json_int_nonneg(j, "fabric_state", g->fabric_state);
	json_int_nonneg(j, "fabric_status", g->fabric_status);
	json_bool(j, "lost", g->lost);
	json_obj_begin(j, "ecc");
	json_tribool(j, "enabled", g->ecc_mode);
	json_int_nonneg(j, "volatile_uncorrected", g->ecc_volatile_unc);
	json_int_nonneg(j, "aggregate_uncorrected", g->ecc_aggregate_unc);
	json_tribool(j, "retired_pages_pending", g->retired_pending);
	json_int_nonneg(j, "remapped_rows_correctable", g->remap_corr);
	json_int_nonneg(j, "remapped_rows_uncorrectable", g->remap_unc);
	json_tribool(j, "remapping_pending", g->remap_pending);
	json_tribool(j, "remapping_failed", g->remap_failure);
	json_obj_end(j);
	if (g->procs_known) {
		json_arr_begin(j, "processes");
		for (size_t i = 0; i < g->nprocs; i++) {
			json_obj_begin(j, NULL);
			json_int(j, "pid", g->procs[i].pid);
			json_str(j, "name", g->procs[i].name);
			json_int_nonneg(j, "used_memory_mib", g->procs[i].used_bytes >= 0
					? g->procs[i].used_bytes >> 20 : -1);
			json_obj_end(j);
		}
		json_arr_end(j);
	} else {
		json_null(j, "processes");
	}
	json_str_array(j, "errors", g->errors, g->nerrors);
	json_obj_end(j);
}

static void json_nvml(struct json *j, const struct nvml_info *n)
{
	json_obj_begin(j, "nvml");
	json_bool(j, "ran", n->outcome != NVML_NOT_RUN);
	json_str(j, "outcome", nvml_outcome_name(n->outcome));
	json_str(j, "library", n->lib);
	json_str(j, "error", n->error ? n->error : n->child_error);
	json_int_nonneg(j, "init_result", n->init_result);
	json_str(j, "driver_version", n->driver_version);
	if (n->cuda_version > 0) {
		char v[32];

		snprintf(v, sizeof(v), "%d.%d", n->cuda_version / 1000, (n->cuda_version % 1000) / 10);
		json_str(j, "cuda_version", v);
	} else {
		json_null(j, "cuda_version");
	}
	json_int_nonneg(j, "gpu_count", n->count);
	json_str(j, "missing_optional_symbols", n->missing_optional);
	json_num(j, "seconds", n->seconds >= 0 ? n->seconds : NAN);
	json_arr_begin(j, "gpus");
	for (size_t i = 0; i < n->ngpus; i++)
		json_gpu(j, &n->gpus[i]);
	json_arr_end(j);
	json_obj_end(j);
}

static void json_pid(struct json *j, const char *key, long long pid, int listed)
{
	if (pid > 0)
		json_int(j, key, pid);
	else if (listed)
		json_bool(j, key, 0);
	else
		json_null(j, key);
}

static void json_fm(struct json *j, const struct fabricmanager_info *fm)
{
	json_obj_begin(j, "fabric_manager");
	json_str(j, "binary", fm->binary);
	json_str(j, "unit", fm->unit);
	json_tribool(j, "enabled", fm->enabled);
	json_pid(j, "pid", fm->pid, fm->procs_listed);
	json_str(j, "version", fm->version);
	json_str(j, "version_source", fm->version_source);
	json_str(j, "package", fm->package);
	json_int_nonneg(j, "nvswitch_nodes", fm->nvswitch_nodes);
	json_obj_begin(j, "imex");
	json_str(j, "binary", fm->imex_binary);
	json_pid(j, "pid", fm->imex_pid, fm->procs_listed);
	json_bool(j, "channels", fm->imex_channels);
	json_obj_end(j);
	json_obj_end(j);
}

void inventory_json_driver(const struct inventory *inv, struct json *j)
{
	const struct driver_inventory *d = &inv->driver;

	json_obj_begin(j, "driver");
	json_obj_begin(j, "libraries");
	json_lib(j, "nvml", &d->nvml);
	json_lib(j, "cuda", &d->cuda);
	json_obj_end(j);
	json_str(j, "kernel_module_version", d->kernel_module_version);
	json_str(j, "version", d->version);
	json_str(j, "version_source", d->version_source);
	json_str(j, "ld_library_path", d->ld_library_path);
	json_arr_begin(j, "stubs");
	for (size_t i = 0; i < d->nstubs; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", d->stubs[i].path);
		json_str(j, "why", d->stubs[i].why);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_nvml(j, &d->nvml_live);
	json_fm(j, &d->fm);
	json_obj_begin(j, "env");
	for (size_t i = 0; i < d->nenv; i++)
		json_str(j, d->env[i].name, d->env[i].value);
	json_obj_end(j);
	json_obj_end(j);
}
