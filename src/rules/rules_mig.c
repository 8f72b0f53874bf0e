/*
 * rules_mig.c - MIG verdicts of the driver layer, from NVML's view of each
 * GPU (inv->driver.nvml_live): MIG on without MIG devices (CUDA then has no
 * device on that GPU), a mode change waiting for a GPU reset, and
 * CUDA_VISIBLE_DEVICES naming a MIG-enabled GPU instead of its MIG devices.
 * Facts and remedies: NVIDIA's MIG user guide,
 * https://docs.nvidia.com/datacenter/tesla/mig-user-guide/ (Getting Started
 * with MIG; CUDA Device Enumeration).  Called by rules_driver().
 */
#include "rules/rules.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void mig_label(const struct nvml_gpu *g, struct buf *b)
{
	buf_reset(b);
	buf_printf(b, "GPU %d (%s, %s)", g->index, g->name ? g->name : "?",
		   g->bus_id ? g->bus_id : "?");
}

/* Can CUDA use some GPU other than g: MIG off, or MIG on with devices? */
static int mig_other_usable(const struct nvml_info *n, const struct nvml_gpu *g)
{
	for (size_t i = 0; i < n->ngpus; i++) {
		const struct nvml_gpu *o = &n->gpus[i];

		if (o != g && !o->lost && (o->mig_mode == 0 || o->mig_devices > 0))
			return 1;
	}
	return 0;
}

static void mig_no_instances(const struct nvml_info *n, const struct nvml_gpu *g,
			     struct report *rep)
{
	struct buf lb = BUF_INIT, id = BUF_INIT;
	struct finding *f;

	mig_label(g, &lb);
	buf_printf(&id, "driver.gpu.%d.mig", g->index);
	/* Work meets it unless another GPU gives CUDA a device. */
	f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_MIG_ENABLED_NO_INSTANCES,
		       mig_other_usable(n, g) ? REACH_LATENT : REACH_WORK,
		       "%s is in MIG mode with no MIG devices: CUDA has no device there", lb.s);
	finding_evidence(f, "nvmlDeviceGetMigMode: current enabled; "
			 "nvmlDeviceGetMigDeviceHandleByIndex: 0 MIG devices");
	{
		char idx[16];

		snprintf(idx, sizeof(idx), "%d", g->index);
		finding_fix_cmd(f, "sudo", "nvidia-smi", "mig", "-i", idx, "-cgi", "0", "-C", NULL);
		finding_fix_note(f, "profile 0: the whole GPU (list the others: nvidia-smi mig -i %d -lgip); "
				 "or turn MIG off: sudo nvidia-smi -i %d -mig 0", g->index, g->index);
	}
	buf_release(&lb);
	buf_release(&id);
}

static void mig_pending(const struct nvml_gpu *g, struct report *rep)
{
	struct buf lb = BUF_INIT, id = BUF_INIT;
	struct finding *f;

	mig_label(g, &lb);
	buf_printf(&id, "driver.gpu.%d.mig-pending", g->index);
	f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_MIG_MODE_PENDING_RESET, REACH_WORK,
		       "%s: MIG mode %s is pending until the GPU is reset", lb.s,
		       g->mig_pending == 1 ? "enable" : "disable");
	finding_evidence(f, "nvmlDeviceGetMigMode: current %s, pending %s",
			 g->mig_mode == 1 ? "enabled" : "disabled",
			 g->mig_pending == 1 ? "enabled" : "disabled");
	finding_fix_note(f, "stop the GPU's clients (sudo systemctl stop nvidia-persistenced, jobs), then "
			 "sudo nvidia-smi -i %d -r (or reboot; in a pass-through VM reboot the VM)",
			 g->index);
	buf_release(&lb);
	buf_release(&id);
}

/* The GPU an entry of CUDA_VISIBLE_DEVICES names by index or GPU- UUID prefix, or NULL. */
static const struct nvml_gpu *mig_entry_gpu(const struct nvml_info *n, const char *t)
{
	const struct nvml_gpu *hit = NULL;

	if (isdigit((unsigned char)*t)) {
		char *end;
		long idx = strtol(t, &end, 10);

		return !*end && idx >= 0 && (size_t)idx < n->ngpus ? &n->gpus[idx] : NULL;
	}
	if (strncasecmp(t, "GPU-", 4))
		return NULL;
	for (size_t i = 0; i < n->ngpus; i++)
		if (n->gpus[i].uuid && !strncasecmp(n->gpus[i].uuid, t, strlen(t))) {
			if (hit)
				return NULL;	/* ambiguous: CUDA rejects it */
			hit = &n->gpus[i];
		}
	return hit;
}

static void mig_visible_parent(const struct nvml_info *n, const char *value, struct report *rep)
{
	char *copy = xstrdup(value), *save = NULL;
	int reported = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !reported; t = strtok_r(NULL, ",", &save)) {
		const struct nvml_gpu *g;
		struct buf lb = BUF_INIT;
		struct finding *f;
		char *e;

		while (isspace((unsigned char)*t))
			t++;
		e = t + strlen(t);
		while (e > t && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!(g = mig_entry_gpu(n, t)) || g->mig_mode != 1)
			continue;
		mig_label(g, &lb);
		f = report_add(rep, LAYER_DRIVER, "driver.env-visible-mig",
			       CAUSE_MIG_VISIBLE_DEVICES_PARENT, REACH_WORK,
			       "CUDA_VISIBLE_DEVICES names %s, which is in MIG mode, instead of a MIG "
			       "device", lb.s);
		finding_evidence(f, "CUDA_VISIBLE_DEVICES=\"%s\": entry '%s' is the whole GPU; "
				 "it has %d MIG device%s", value, t, g->mig_devices,
				 g->mig_devices == 1 ? "" : "s");
		for (size_t k = 0; k < g->nmig_uuids; k++)
			finding_evidence(f, "MIG device %s", g->mig_uuids[k]);
		if (g->nmig_uuids)
			finding_fix_cmd(f, "export", "CUDA_VISIBLE_DEVICES=", FIX_GLUE, g->mig_uuids[0], NULL);
		else
			finding_fix_note(f, "create MIG devices on GPU %d (sudo nvidia-smi mig -i %d -cgi 0 -C), "
					 "then export CUDA_VISIBLE_DEVICES=MIG-<uuid from nvidia-smi -L>",
					 g->index, g->index);
		buf_release(&lb);
		reported = 1;
	}
	free(copy);
}

void rules_mig(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	const struct nvml_info *n = &d->nvml_live;
	const struct driver_envvar *cvd = driver_env_get(d, "CUDA_VISIBLE_DEVICES");
	struct buf on = BUF_INIT;

	if (n->outcome != NVML_RAN_OK)
		return;
	for (size_t i = 0; i < n->ngpus; i++) {
		const struct nvml_gpu *g = &n->gpus[i];

		if (g->lost)
			continue;
		if (g->mig_mode == 1 && g->mig_devices == 0)
			mig_no_instances(n, g, rep);
		else if (g->mig_mode == 1 && g->mig_devices > 0)
			buf_printf(&on, "%sGPU %d: %d MIG device%s", on.len ? "; " : "", g->index,
				   g->mig_devices, g->mig_devices == 1 ? "" : "s");
		if (g->mig_mode >= 0 && g->mig_pending >= 0 && g->mig_mode != g->mig_pending)
			mig_pending(g, rep);
	}
	if (on.len) {
		struct finding *f = report_ok(rep, LAYER_DRIVER, "driver.mig",
					      "MIG devices ready for CUDA");

		finding_evidence(f, "%s", on.s);
	}
	if (cvd && cvd->value)
		mig_visible_parent(n, cvd->value, rep);
	buf_release(&on);
}
