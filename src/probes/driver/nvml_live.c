/*
 * nvml_live.c - the driver layer's live probe: runs "gpudoctor __probe nvml
 * LIB" (nvml_child.c) on the libnvidia-ml.so.1 the loader would pick and
 * turns its key=value lines into inv->driver.nvml_live.  A crash, a hang or
 * garbage from the child is recorded as NVML_CHILD_FAILED with what happened.
 */
#include "probes/driver/driver.h"
#include "inventory/inventory.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of the NVML calls behind the child's error fields, for evidence. */
static const struct {
	const char *field, *call;
} nvml_calls[] = {
	{ "handle", "nvmlDeviceGetHandleByIndex" },
	{ "name", "nvmlDeviceGetName" },
	{ "uuid", "nvmlDeviceGetUUID" },
	{ "pci", "nvmlDeviceGetPciInfo" },
	{ "memory", "nvmlDeviceGetMemoryInfo" },
	{ "utilization", "nvmlDeviceGetUtilizationRates" },
	{ "temperature", "nvmlDeviceGetTemperature" },
	{ "power", "nvmlDeviceGetPowerUsage" },
	{ "power_limit", "nvmlDeviceGetEnforcedPowerLimit" },
	{ "persistence", "nvmlDeviceGetPersistenceMode" },
	{ "display_mode", "nvmlDeviceGetDisplayMode" },
	{ "compute_mode", "nvmlDeviceGetComputeMode" },
	{ "mig_mode", "nvmlDeviceGetMigMode" },
	{ "mig_devices", "nvmlDeviceGetMaxMigDeviceCount" },
	{ "fabric", "nvmlDeviceGetGpuFabricInfo" },
	{ "ecc_current", "nvmlDeviceGetEccMode" },
	{ "ecc_volatile_unc", "nvmlDeviceGetTotalEccErrors(volatile)" },
	{ "ecc_aggregate_unc", "nvmlDeviceGetTotalEccErrors(aggregate)" },
	{ "retired_pending", "nvmlDeviceGetRetiredPagesPendingStatus" },
	{ "remap", "nvmlDeviceGetRemappedRows" },
	{ "processes", "nvmlDeviceGetComputeRunningProcesses" },
};

static char *nvml_str(const struct kvlist *kv, unsigned i, const char *f)
{
	return xstrdup_or_null(kv_getf(kv, "gpu.%u.%s", i, f));
}

static long long nvml_ll(const struct kvlist *kv, unsigned i, const char *f)
{
	const char *v = kv_getf(kv, "gpu.%u.%s", i, f);
	char *end;
	long long x;

	if (!v || !*v)
		return -1;
	x = strtoll(v, &end, 0);
	return *end ? -1 : x;
}

static void nvml_parse_errors(const struct kvlist *kv, unsigned i, struct nvml_gpu *g)
{
	char prefix[48];
	size_t pl;

	pl = (size_t)snprintf(prefix, sizeof(prefix), "gpu.%u.err.", i);
	for (size_t k = 0; k < kv->n; k++) {
		const char *field, *call = NULL;
		int rc;

		if (strncmp(kv->items[k].key, prefix, pl) != 0)
			continue;
		field = kv->items[k].key + pl;
		rc = atoi(kv->items[k].val);
		for (size_t c = 0; c < sizeof(nvml_calls) / sizeof(nvml_calls[0]); c++)
			if (!strcmp(nvml_calls[c].field, field))
				call = nvml_calls[c].call;
		XGROW(g->errors, g->nerrors, g->errors_cap);
		g->errors[g->nerrors++] = xasprintf("%s: %d (%s)", call ? call : field, rc,
						    nvml_return_name(rc));
		if (rc == 15)
			g->lost = 1;
	}
}

static void nvml_parse_gpu(const struct gd_ctx *ctx, const struct kvlist *kv, unsigned i,
			   struct nvml_gpu *g)
{
	long long v;

	g->index = (int)i;
	g->name = nvml_str(kv, i, "name");
	g->uuid = nvml_str(kv, i, "uuid");
	g->bus_id = nvml_str(kv, i, "bus_id");
	g->pci_device_id = (int)nvml_ll(kv, i, "pci_device_id");
	g->memory_total = nvml_ll(kv, i, "memory_total");
	g->memory_used = nvml_ll(kv, i, "memory_used");
	g->memory_reserved = nvml_ll(kv, i, "memory_reserved");
	g->memory_api = (int)nvml_ll(kv, i, "memory_api");
	g->util_gpu = (int)nvml_ll(kv, i, "util_gpu");
	g->util_mem = (int)nvml_ll(kv, i, "util_mem");
	g->temperature_c = (int)nvml_ll(kv, i, "temperature_c");
	v = nvml_ll(kv, i, "power_mw");
	g->power_w = v >= 0 ? (double)v / 1000.0 : NAN;
	v = nvml_ll(kv, i, "power_limit_mw");
	g->power_limit_w = v >= 0 ? (double)v / 1000.0 : NAN;
	g->persistence = (int)nvml_ll(kv, i, "persistence");
	g->display_mode = (int)nvml_ll(kv, i, "display_mode");
	g->compute_mode = (int)nvml_ll(kv, i, "compute_mode");
	g->mig_mode = (int)nvml_ll(kv, i, "mig_current");
	g->mig_pending = (int)nvml_ll(kv, i, "mig_pending");
	v = nvml_ll(kv, i, "mig_devices");
	g->mig_devices = (int)v;
	for (long long j = 0; j < v && j < 64; j++) {
		char k[48];
		const char *u;

		snprintf(k, sizeof(k), "mig.%lld.uuid", j);
		if (!(u = kv_getf(kv, "gpu.%u.%s", i, k)))
			continue;
		XGROW(g->mig_uuids, g->nmig_uuids, g->mig_uuids_cap);
		g->mig_uuids[g->nmig_uuids++] = xstrdup(u);
	}
	g->fabric_state = (int)nvml_ll(kv, i, "fabric_state");
	g->fabric_status = (int)nvml_ll(kv, i, "fabric_status");
	g->ecc_mode = (int)nvml_ll(kv, i, "ecc_current");
	g->ecc_volatile_unc = nvml_ll(kv, i, "ecc_volatile_unc");
	g->ecc_aggregate_unc = nvml_ll(kv, i, "ecc_aggregate_unc");
	g->retired_pending = (int)nvml_ll(kv, i, "retired_pending");
	g->remap_corr = (int)nvml_ll(kv, i, "remap_corr");
	g->remap_unc = (int)nvml_ll(kv, i, "remap_unc");
	g->remap_pending = (int)nvml_ll(kv, i, "remap_pending");
	g->remap_failure = (int)nvml_ll(kv, i, "remap_failure");
	g->lost = nvml_ll(kv, i, "lost") == 1;
	v = nvml_ll(kv, i, "proc_count");
	g->procs_known = v >= 0;
	for (long long j = 0; j < v && j < 1024; j++) {
		char k[64];
		struct nvml_proc *p;
		struct buf comm = BUF_INIT, path = BUF_INIT;

		XGROW(g->procs, g->nprocs, g->procs_cap);
		p = &g->procs[g->nprocs++];
		snprintf(k, sizeof(k), "proc.%lld.pid", j);
		p->pid = nvml_ll(kv, i, k);
		snprintf(k, sizeof(k), "proc.%lld.used", j);
		p->used_bytes = nvml_ll(kv, i, k);
		/* NVML_VALUE_NOT_AVAILABLE (all ones) reads back as -1: unknown. */
		p->name = NULL;
		buf_printf(&path, "/proc/%lld/comm", p->pid);
		if (p->pid > 0 && fs_read_line(ctx->root, path.s, &comm, NULL) == 0 && comm.len)
			p->name = xstrdup(comm.s);
		buf_release(&comm);
		buf_release(&path);
	}
	nvml_parse_errors(kv, i, g);
}

void nvml_parse(const struct gd_ctx *ctx, const struct kvlist *kv, struct nvml_info *out)
{
	const char *v;
	long long cnt;

	out->lib = xstrdup_or_null(kv_get(kv, "lib"));
	if ((v = kv_get(kv, "dlopen_error"))) {
		out->outcome = NVML_DLOPEN_FAILED;
		out->error = xstrdup(v);
		return;
	}
	out->missing_optional = xstrdup_or_null(kv_get(kv, "missing_optional"));
	if ((v = kv_get(kv, "missing_required"))) {
		out->outcome = NVML_MISSING_SYMBOL;
		out->error = xasprintf("missing symbols: %s", v);
		return;
	}
	out->init_result = (int)kv_get_ll(kv, "init.result", -1);
	if (out->init_result != 0) {
		out->outcome = NVML_INIT_FAILED;
		v = kv_get(kv, "init.error");
		out->error = xasprintf("nvmlInit returned %d (%s)", out->init_result,
				       v && *v ? v : nvml_return_name(out->init_result));
		return;
	}
	out->outcome = NVML_RAN_OK;
	out->driver_version = xstrdup_or_null(kv_get(kv, "driver_version"));
	/*
	 * 0 is no version: NVML says so when the libcuda.so.1 it reads the
	 * version from is not the driver's (seen with the toolkit stub first on
	 * LD_LIBRARY_PATH).
	 */
	out->cuda_version_raw = (int)kv_get_ll(kv, "cuda_version", -1);
	out->cuda_version = out->cuda_version_raw > 0 ? out->cuda_version_raw : -1;
	cnt = kv_get_ll(kv, "count", -1);
	out->count = (int)cnt;
	if (cnt < 0) {
		v = kv_get(kv, "err.count_error");
		out->error = xasprintf("nvmlDeviceGetCount returned %lld (%s)",
				       kv_get_ll(kv, "err.count", -1), v ? v : "?");
		return;
	}
	if (cnt > 64)
		cnt = 64;
	out->gpus = xcalloc((size_t)cnt + 1, sizeof(*out->gpus));
	for (unsigned i = 0; i < (unsigned)cnt; i++)
		nvml_parse_gpu(ctx, kv, i, &out->gpus[out->ngpus++]);
}

void probe_driver_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	struct driver_inventory *d = &inv->driver;
	struct nvml_info *n = &d->nvml_live;
	struct child_result r = CHILD_RESULT_INIT;
	struct buf host = BUF_INIT, desc = BUF_INIT;
	struct err e = ERR_INIT;
	const char *args[2];

	if (!d->nvml.path || n->outcome != NVML_NOT_RUN)
		return;
	/* The file inside --root, as this machine's kernel sees it. */
	fs_path(ctx->root, d->nvml.realpath ? d->nvml.realpath : d->nvml.path, &host);
	args[0] = host.s;
	args[1] = NULL;
	if (child_run_probe(ctx, "nvml", args, NULL, &r, &e) < 0) {
		n->outcome = NVML_CHILD_FAILED;
		n->lib = xstrdup(host.s);
		n->child_error = xasprintf("could not be started: %s", e.msg);
	} else {
		n->seconds = r.seconds;
		if (r.outcome == CHILD_OK) {
			nvml_parse(ctx, &r.kv, n);
			/* driver.h's last resort for the driver version */
			if (!d->version && n->driver_version) {
				d->version = xstrdup(n->driver_version);
				d->version_source = xstrdup("NVML (nvmlSystemGetDriverVersion)");
			}
		} else {
			size_t l = strcspn(r.err.s ? r.err.s : "", "\n");

			n->outcome = NVML_CHILD_FAILED;
			n->lib = xstrdup(host.s);
			n->child_error = xstrdup(child_outcome_describe(&r, &desc));
			if (l)
				n->child_stderr = xstrndup(r.err.s, l > 300 ? 300 : l);
		}
	}
	buf_release(&desc);
	buf_release(&host);
	child_result_release(&r);
}
