/* health_layers.c - the node's layers of check for health; see health_layers.h. */
#include "health/health_layers.h"
#include "core/ctx.h"
#include "core/kv.h"
#include "knowledge/causes.h"
#include "probes/inventory.h"
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct health_step {
	void (*probe)(const struct gd_ctx *ctx, struct inventory *inv);
	void (*probe_live)(const struct gd_ctx *ctx, struct inventory *inv);
	void (*judge)(const struct rules_in *in, struct report *rep);
};

/* The same order and the same blocking as check (cmd_check.c). */
static const struct health_step steps[] = {
	[LAYER_HARDWARE] = { probe_hardware, probe_hardware_live, rules_hardware },
	[LAYER_KERNEL] = { probe_kernel, probe_kernel_live, rules_kernel },
	[LAYER_DEVICES] = { probe_devices, probe_devices_live, rules_devices },
	[LAYER_DRIVER] = { probe_driver, probe_driver_live, rules_driver },
	[LAYER_CUDA] = { probe_cuda, probe_cuda_live, rules_cuda },
};

void health_layers_run(const struct gd_ctx *ctx, const struct kb *kb, int hardware_only,
		       struct report *rep)
{
	struct inventory inv;
	int last = hardware_only ? LAYER_HARDWARE : LAYER_CUDA, blocked_by = -1;

	inventory_init(&inv);
	for (int l = 0; l <= last; l++)
		steps[l].probe(ctx, &inv);
	for (int l = 0; l <= last; l++) {
		struct rules_in in = { .ctx = ctx, .inv = &inv, .kb = kb };

		in.blocked = blocked_by >= 0;
		in.live = !ctx->no_load && !in.blocked;
		if (in.live && l == LAYER_DRIVER && last >= LAYER_CUDA)
			probe_cuda_live_start(ctx, &inv);
		if (!in.live && l == LAYER_CUDA)
			probe_cuda_live_cancel(&inv);
		if (in.live)
			steps[l].probe_live(ctx, &inv);
		steps[l].judge(&in, rep);
		if (in.blocked)
			report_block(rep, (enum layer_id)l, (enum layer_id)blocked_by);
		else if (report_layer_worst(rep, (enum layer_id)l) == STATUS_FAIL)
			blocked_by = l;
	}
	probe_cuda_live_cancel(&inv);
	/* Layers not run are neither ok nor failed. */
	for (int l = last + 1; l < LAYER_COUNT; l++)
		report_set_summary(rep, (enum layer_id)l, "not judged by health");
	report_finish(rep);
	inventory_release(&inv);
}

void health_layers_from_report(const struct report *rep, struct health *h)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];
		char gpu[24];

		if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
			continue;
		health_gpu_of_finding(f->id, gpu, sizeof(gpu));
		health_add(h, f->cause != CAUSE_NONE ? cause_id_str(f->cause) : "unknown-cause", gpu,
			   f->status, f->title, 0);
	}
}

int health_layers_from_kv(const struct kvlist *kv, struct health *h)
{
	long long n = kv_get_ll(kv, "items", -1);
	int taken = 0;

	if (!kv->complete || n < 0)
		return -1;
	for (long long i = 0; i < n && i < 1000; i++) {
		const char *cause = kv_getf(kv, "item.%lld.cause", i);
		const char *gpu = kv_getf(kv, "item.%lld.gpu", i);
		const char *st = kv_getf(kv, "item.%lld.status", i);
		const char *reason = kv_getf(kv, "item.%lld.reason", i);

		if (!cause || !st)
			continue;
		health_add(h, cause, gpu, !strcmp(st, "fail") ? STATUS_FAIL : STATUS_WARN,
			   reason, 0);
		taken++;
	}
	return taken;
}
