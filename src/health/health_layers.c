/* health_layers.c - the node's layers of check for health; see health_layers.h. */
#include "health/health_layers.h"
#include "core/kv.h"
#include "knowledge/causes.h"
#include "report/finding_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A shallow copy of f with its scope: check's findings name their GPU in
 * their id ("driver.gpu.3.ecc", "hardware.driver.0000:17:00.0").  pci is
 * the copy's storage; nothing of the copy is released.
 */
static void scoped(const struct finding *f, struct finding *out, char *pci, size_t pcisz)
{
	char gpu[24];

	*out = *f;
	health_gpu_of_finding(f->id, gpu, sizeof(gpu));
	if (strchr(gpu, ':')) {
		snprintf(pci, pcisz, "%s", gpu);
		out->pci = pci;
	} else if (strcmp(gpu, "-")) {
		out->gpu = atoi(gpu);
	}
}

void health_layers_from_report(const struct report *rep, struct health *h)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct finding f;
		char pci[24];

		scoped(&rep->findings[i], &f, pci, sizeof(pci));
		health_add_finding(h, &f, 0);
	}
}

void health_layers_emit(const struct report *rep)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->n; i++) {
		struct finding f;
		struct buf rec = BUF_INIT;
		char pci[24], key[32];

		if (rep->findings[i].status != STATUS_WARN && rep->findings[i].status != STATUS_FAIL)
			continue;
		scoped(&rep->findings[i], &f, pci, sizeof(pci));
		finding_record_write(&rec, &f);
		snprintf(key, sizeof(key), "item.%zu", n++);
		kv_emit(key, "%s", rec.s);
		buf_release(&rec);
	}
	kv_emit("items", "%zu", n);
}

int health_layers_from_kv(const struct kvlist *kv, struct health *h, int *bad)
{
	long long n = kv_get_ll(kv, "items", -1);
	int taken = 0;

	if (!kv->complete || n < 0)
		return -1;
	/* Records past the bound are not read, and not dropped silently either:
	   each counts as one that could not be read (a failure among them must
	   not leave a healthy verdict). */
	if (n > HEALTH_LAYERS_MAX)
		*bad += (int)(n - HEALTH_LAYERS_MAX > 100000 ? 100000 : n - HEALTH_LAYERS_MAX);
	for (long long i = 0; i < n && i < HEALTH_LAYERS_MAX; i++) {
		const char *rec = kv_getf(kv, "item.%lld", i);
		struct finding f;

		if (!rec || finding_record_parse(rec, strlen(rec), &f, NULL) < 0) {
			(*bad)++;
			continue;
		}
		health_add_finding(h, &f, 0);
		finding_release(&f);
		taken++;
	}
	return taken;
}
