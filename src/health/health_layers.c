/* health_layers.c - the node's layers of check for health; see health_layers.h. */
#include "health/health_layers.h"
#include "core/kv.h"
#include "knowledge/causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
