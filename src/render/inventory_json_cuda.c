/*
 * inventory_json_cuda.c - the "cuda" object of the inventory JSON: what the
 * isolated CUDA probe found (cuInit, devices, the PTX kernel, timings).
 */
#include "render/inventory_json.h"
#include "core/json.h"
#include "knowledge/curesult.h"
#include "inventory/inventory.h"

#include <math.h>
#include <stdio.h>

static const char *cuda_outcome_name(enum cuda_outcome o)
{
	switch (o) {
	case CUDA_NOT_RUN: return "not-run";
	case CUDA_RAN: return "ran";
	case CUDA_DLOPEN_FAILED: return "dlopen-failed";
	case CUDA_MISSING_SYMBOL: return "missing-symbol";
	case CUDA_CHILD_FAILED: return "child-failed";
	}
	return NULL;
}

void inventory_json_cuda(const struct inventory *inv, struct json *j)
{
	const struct cuda_inventory *c = &inv->cuda;
	char v[32];

	json_obj_begin(j, "cuda");
	json_bool(j, "ran", c->outcome != CUDA_NOT_RUN);
	json_str(j, "outcome", cuda_outcome_name(c->outcome));
	json_str(j, "library", c->lib);
	json_str(j, "error", c->error ? c->error : c->child_error);
	json_int_nonneg(j, "init_result", c->init_result);
	json_str(j, "init_result_name", c->init_result >= 0 ? curesult_name(c->init_result) : NULL);
	if (c->driver_version > 0) {
		snprintf(v, sizeof(v), "%d.%d", c->driver_version / 1000, (c->driver_version % 1000) / 10);
		json_str(j, "driver_version", v);
	} else {
		json_null(j, "driver_version");
	}
	json_int_nonneg(j, "device_count", c->device_count);
	json_arr_begin(j, "devices");
	for (size_t i = 0; i < c->ndevices; i++) {
		const struct cuda_device *d = &c->devices[i];

		json_obj_begin(j, NULL);
		json_int(j, "index", d->index);
		json_str(j, "name", d->name);
		if (d->cc_major >= 0) {
			snprintf(v, sizeof(v), "%d.%d", d->cc_major, d->cc_minor);
			json_str(j, "cc", v);
		} else {
			json_null(j, "cc");
		}
		json_int_nonneg(j, "sm_count", d->sm_count);
		json_int_nonneg(j, "memory_bytes", d->memory_bytes);
		json_str(j, "bus_id", d->bus_id);
		json_tribool(j, "kernel_ok", d->kernel_ok);
		json_str(j, "failed_call", d->fail_call);
		json_int_nonneg(j, "failed_result", d->fail_result);
		json_str(j, "mismatch", d->mismatch);
		json_obj_begin(j, "timings_ms");
		json_num(j, "context", d->context_ms);
		json_num(j, "module", d->module_ms);
		json_num(j, "kernel", d->kernel_ms);
		json_num(j, "release", d->release_ms);
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_tribool(j, "kernel_ok", c->kernel_ok);
	json_obj_begin(j, "timings_ms");
	json_num(j, "init", c->init_ms);
	json_num(j, "context", c->context_ms);
	json_num(j, "kernel", c->kernel_ms);
	/* Started beside NVML, the child waited this long for it (part of child_total). */
	json_num(j, "held", c->hold_ms);
	json_num(j, "child_total", c->seconds >= 0 ? c->seconds * 1000.0 : NAN);
	json_obj_end(j);
	json_obj_end(j);
}
