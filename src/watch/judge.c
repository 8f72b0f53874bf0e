/*
 * judge.c - from what the daemon measured to the sweep's report (w->rep,
 * report/report.h): the NVML sample's health facts, the PCI count, the
 * kernel log's XIDs and the static check, each a struct finding with its
 * cause, the status finding_status() gives it, its scope (GPU index, PCI
 * address, UUID, XID and action) and a one-line title.  Logs every change
 * of a finding's identity (watch.h) as one line with the cause id.
 */
#include "watch/daemon.h"
#include "watch/policy.h"
#include "report/report.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "knowledge/kb_xid.h"
#include "inventory/driver.h"
#include "knowledge/layers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Throttle reasons that mean the hardware, not a setting, slows the GPU. */
#define REASON_SW_THERMAL 0x20ull
#define REASON_HW_SLOWDOWN 0x8ull
#define REASON_HW_THERMAL 0x40ull
#define REASON_HW_POWER_BRAKE 0x80ull
#define FABRIC_COMPLETED 3
#define XID_WARN_HOLD 3600	/* a restart-app XID stays a warning this long */

static long long num(const struct kvlist *kv, int i, const char *field)
{
	const char *v = kv_getf(kv, "gpu.%d.%s", i, field);
	char *end;
	long long x;

	if (!v || !*v)
		return -1;
	x = strtoll(v, &end, 10);
	return *end ? -1 : x;
}

static void str(const struct kvlist *kv, int i, const char *field, char *out, size_t size)
{
	const char *v = kv_getf(kv, "gpu.%d.%s", i, field);

	snprintf(out, size, "%s", v ? v : "");
}

void gpus_from_sample(struct wd *w)
{
	const struct kvlist *kv = &w->smp.last;
	long long count = kv_get_ll(kv, "count", -1);

	w->ngpus = count < 0 ? -1 : (int)(count > WATCH_MAX_GPUS ? WATCH_MAX_GPUS : count);
	for (int i = 0; i < w->ngpus; i++) {
		struct wgpu *g = &w->gpus[i];
		char bus[40];

		memset(g, 0, sizeof(*g));
		g->index = i;
		str(kv, i, "name", g->name, sizeof(g->name));
		str(kv, i, "uuid", g->uuid, sizeof(g->uuid));
		str(kv, i, "bus_id", bus, sizeof(bus));
		if (kmsg_norm_bus_id(bus, strlen(bus), g->bus_id, sizeof(g->bus_id)) < 0)
			g->bus_id[0] = '\0';
#define F(field, key) g->field = num(kv, i, key)
		F(temperature_c, "temperature_c");
		F(power_mw, "power_mw");
		F(memory_used, "memory_used");
		F(memory_total, "memory_total");
		F(persistence, "persistence");
		F(ecc_mode, "ecc_mode");
		F(ecc_vol_cor, "ecc_volatile_corrected");
		F(ecc_vol_unc, "ecc_volatile_uncorrected");
		F(ecc_agg_cor, "ecc_aggregate_corrected");
		F(ecc_agg_unc, "ecc_aggregate_uncorrected");
		F(retired_sbe, "retired_sbe");
		F(retired_dbe, "retired_dbe");
		F(retired_pending, "retired_pending");
		F(remap_cor, "remap_correctable");
		F(remap_unc, "remap_uncorrectable");
		F(remap_pending, "remap_pending");
		F(remap_failed, "remap_failed");
		F(clock_reasons, "clock_reasons");
		F(pcie_gen, "pcie_gen");
		F(pcie_gen_max, "pcie_gen_max");
		F(pcie_width, "pcie_width");
		F(pcie_width_max, "pcie_width_max");
		F(pcie_replay, "pcie_replay");
		F(nvlink_active, "nvlink_active");
		F(nvlink_replay, "nvlink_replay");
		F(nvlink_recovery, "nvlink_recovery");
		F(nvlink_crc_flit, "nvlink_crc_flit");
		F(nvlink_crc_data, "nvlink_crc_data");
		F(fabric_state, "fabric_state");
		F(fabric_status, "fabric_status");
#undef F
		g->lost = num(kv, i, "lost") == 1;
		g->nprocs = 0;
		for (int p = 0; p < WATCH_MAX_PROCS; p++) {
			char k[32];

			snprintf(k, sizeof(k), "proc.%d.pid", p);
			if (num(kv, i, k) < 0)
				break;
			g->procs[p].pid = num(kv, i, k);
			snprintf(k, sizeof(k), "proc.%d.used", p);
			g->procs[p].used = num(kv, i, k);
			g->nprocs++;
		}
		g->aer_cor = g->aer_nonfatal = g->aer_fatal = -1;
		for (int p = 0; p < w->npci; p++)
			if (!strcmp(w->pci[p], g->bus_id)) {
				g->aer_cor = w->pci_aer[p][0];
				g->aer_nonfatal = w->pci_aer[p][1];
				g->aer_fatal = w->pci_aer[p][2];
			}
	}
}

/*
 * A finding of watch's own in this sweep's report: its layer comes from the
 * cause catalogue, its status from the severity policy for the cause and
 * reach (report/report.h, finding_status()); a GPU index brings the GPU's
 * PCI address and UUID as scope.  The title is one printable line of at
 * most 200 bytes (it may quote the kernel log), so that a sweep's memory
 * is bounded.  NULL when the report is full (make_room()).
 */
static struct finding *add(struct wd *w, const char *id, enum cause_id cause, enum reach reach,
			   int gpu, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/*
 * Room for one more finding of status st: 0, or -1 when the report is full.
 * A failure takes the place of the last warning, so that the bound never
 * turns a failing node into a warning one (warnings that come first, such
 * as one per GPU, would otherwise crowd out an XID 79 after them).
 */
static int make_room(struct report *r, enum status st)
{
	if (r->n < WATCH_MAX_FINDINGS)
		return 0;
	if (st != STATUS_FAIL)
		return -1;
	for (size_t i = r->n; i-- > 0;)
		if (r->findings[i].status != STATUS_FAIL) {
			finding_release(&r->findings[i]);
			memmove(&r->findings[i], &r->findings[i + 1], (r->n - i - 1) * sizeof(r->findings[0]));
			r->n--;
			return 0;
		}
	return -1;
}

static struct finding *add(struct wd *w, const char *id, enum cause_id cause, enum reach reach,
			   int gpu, const char *fmt, ...)
{
	struct finding *f;
	char title[200];
	va_list ap;

	if (make_room(&w->rep, finding_status(cause, reach)) < 0)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(title, sizeof(title), fmt, ap);
	va_end(ap);
	for (char *p = title; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	f = report_add(&w->rep, cause_get(cause)->layer, id, cause, reach, "%s", title);
	if (gpu >= 0 && gpu < w->ngpus)
		finding_scope(f, gpu, w->gpus[gpu].bus_id, w->gpus[gpu].uuid);
	else
		finding_scope(f, gpu, NULL, NULL);
	return f;
}

/* The finding's scope is this PCI address, whatever its index says. */
static void scope_pci(struct wd *w, struct finding *f, const char *pci)
{
	const char *uuid = f->gpu >= 0 && f->gpu < w->ngpus ? w->gpus[f->gpu].uuid : NULL;

	finding_scope(f, f->gpu, pci, uuid);
}

static void judge_nvml(struct wd *w)
{
	const struct sampler *s = &w->smp;

	if (s->hang)
		add(w, "watch.nvml-hang", CAUSE_NVML_HANG, REACH_WORK, -1, "%s%s", s->in_kernel ? "driver hang: " : "",
		    s->hang_what);
	if (!s->have_sample)
		return;
	if (s->init_failed) {
		const char *de = kv_get(&s->last, "dlopen_error");
		long long rc = kv_get_ll(&s->last, "init.result", -1);

		if (de)
			add(w, "watch.nvml", CAUSE_NVML_FAILED, REACH_WORK, -1, "NVML did not load: %.150s", de);
		else if (rc > 0)
			add(w, "watch.nvml", CAUSE_NVML_FAILED, REACH_WORK, -1, "nvmlInit failed: %lld (%s)", rc,
			    nvml_return_name((int)rc));
		else
			add(w, "watch.nvml", CAUSE_NVML_FAILED, REACH_WORK, -1, "the NVML sampler exited without an answer");
		return;
	}
	if (w->ngpus < 0 && kv_get(&s->last, "err.count"))
		add(w, "watch.nvml", CAUSE_NVML_FAILED, REACH_WORK, -1, "nvmlDeviceGetCount failed: %s",
		    kv_get(&s->last, "err.count"));
	for (int i = 0; i < w->ngpus; i++) {
		const struct wgpu *g = &w->gpus[i];
		unsigned long long r = g->clock_reasons < 0 ? 0 : (unsigned long long)g->clock_reasons;

		if (g->lost) {
			add(w, "watch.gpu-lost", CAUSE_GPU_LOST, REACH_WORK, i, "NVML reports GPU %d (%s) lost", i,
			    g->bus_id[0] ? g->bus_id : "?");
			continue;
		}
		if (g->ecc_vol_unc > 0)
			add(w, "watch.ecc", CAUSE_ECC_ERRORS, REACH_WORK, i,
			    "%lld uncorrectable ECC errors since the driver loaded", g->ecc_vol_unc);
		if (g->remap_failed > 0)
			add(w, "watch.ecc", CAUSE_ECC_ERRORS, REACH_WORK, i, "row remapping failed");
		else if (g->remap_pending > 0 || g->retired_pending > 0)
			/* Pending retirement or remapping: nothing is wrong until the
			   next reset applies it, so the work path does not meet it. */
			add(w, "watch.ecc", CAUSE_ECC_ERRORS, REACH_LATENT, i,
			    "%s pending: reset the GPU to apply it",
			    g->remap_pending > 0 ? "row remapping" : "page retirement");
		if (r & (REASON_HW_SLOWDOWN | REASON_HW_THERMAL | REASON_HW_POWER_BRAKE | REASON_SW_THERMAL))
			add(w, "watch.throttle", CAUSE_GPU_THROTTLED, REACH_WORK, i,
			    "clocks held down: %s%s%s%s(reasons 0x%llx)",
			    r & REASON_HW_SLOWDOWN ? "hardware slowdown " : "",
			    r & REASON_HW_THERMAL ? "hardware thermal " : "",
			    r & REASON_HW_POWER_BRAKE ? "power brake " : "",
			    r & REASON_SW_THERMAL ? "software thermal " : "", r);
		if (g->persistence == 0)
			add(w, "watch.persistence", CAUSE_PERSISTENCE_MODE_OFF, REACH_WORK, i, "persistence mode is off");
		if (g->pcie_width > 0 && g->pcie_width_max > 0 && g->pcie_width < g->pcie_width_max)
			add(w, "watch.pcie-link", CAUSE_PCIE_LINK_DEGRADED, REACH_WORK, i, "PCIe link x%lld of x%lld",
			    g->pcie_width, g->pcie_width_max);
		if (g->fabric_state > 0 && (g->fabric_state != FABRIC_COMPLETED || g->fabric_status > 0))
			add(w, "watch.fabric", CAUSE_FABRIC_MANAGER_NOT_RUNNING, REACH_WORK, i,
			    "GPU fabric registration state %lld, status %lld", g->fabric_state,
			    g->fabric_status);
	}
}

static void judge_pci(struct wd *w)
{
	if (w->npci < 0)
		return;
	for (int i = 0; i < w->npci; i++) {
		struct finding *f;

		if (w->pci_present[i])
			continue;
		f = add(w, "watch.pci-gone", CAUSE_GPU_COUNT_MISMATCH, REACH_WORK,
			xids_gpu_index(w, w->pci[i]), "GPU %s is gone from the PCI bus", w->pci[i]);
		if (f)
			scope_pci(w, f, w->pci[i]);
	}
	if (w->smp.have_sample && !w->smp.init_failed && !w->smp.hang && w->ngpus >= 0 &&
	    w->ngpus != w->pci_count)
		add(w, "watch.gpu-count", CAUSE_GPU_COUNT_MISMATCH, REACH_WORK, -1,
		    "%d NVIDIA GPUs on the PCI bus, NVML sees %d", w->pci_count, w->ngpus);
}

static void judge_xids(struct wd *w)
{
	long long now = (long long)time(NULL);

	for (int i = 0; i < w->nxids; i++) {
		const struct wxid *x = &w->xids[i];
		struct kb_xid k;
		char where[64];
		struct finding *f;

		if (x->action == KB_XID_NONE)
			continue;
		if (!x->fatal && (policy_severity(x->action) == STATUS_FAIL ||
				  now - x->last > XID_WARN_HOLD))
			continue;	/* acknowledged, or an old warning */
		xids_gpu_label(w, x->bus_id, where, sizeof(where));
		f = add(w, "watch.xid", x->xid == 79 ? CAUSE_GPU_LOST : CAUSE_GPU_XID_ERROR,
			finding_xid_reach(x->action), xids_gpu_index(w, x->bus_id),
			"XID %d (%s) on GPU %s%s%s, %llu this boot%s: action %s", x->xid,
			kb_xid_find(w->kb, x->xid, &k) == 0 ? k.meaning : "not in the catalogue", where,
			x->bus_id[0] && strcmp(where, x->bus_id) ? " " : "",
			x->bus_id[0] && strcmp(where, x->bus_id) ? x->bus_id : "", x->count,
			x->escalated ? ", also in an earlier boot" : "", kb_xid_action_name(x->action));
		if (!f)
			continue;
		/* The scope is the XID's own address, mapped to an index or not:
		   two XIDs of one GPU, or of two addresses NVML did not map, stay
		   two findings (watch.h: a finding's identity). */
		scope_pci(w, f, x->bus_id);
		finding_scope_xid(f, x->xid, x->action);
	}
}

const char *gpu_str(int gpu, char *out, size_t size)
{
	if (gpu < 0)
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%d", gpu);
	return out;
}

/* A finding's identity (watch.h) as one line; "CAUSE GPU ..." opens it. */
static void identity(const struct finding *f, char *out, size_t size)
{
	snprintf(out, size, "%s %d %s xid=%d pci=%s", cause_id_str(f->cause), f->gpu,
		 status_name(f->status), f->xid, f->pci ? f->pci : "-");
}

static void log_changes(struct wd *w)
{
	char keys[WATCH_MAX_FINDINGS][160], line[400];
	int n = 0;

	for (size_t i = 0; i < w->rep.n && n < WATCH_MAX_FINDINGS; i++) {
		const struct finding *f = &w->rep.findings[i];
		int seen = 0;

		identity(f, keys[n], sizeof(keys[0]));
		for (int k = 0; k < w->nprev; k++)
			seen |= !strcmp(w->prev_keys[k], keys[n]);
		for (int k = 0; k < n; k++)
			seen |= !strcmp(keys[k], keys[n]) ? 2 : 0;
		if (seen & 2)
			continue;
		if (!seen && w->o->log) {
			char g[16];

			snprintf(line, sizeof(line), "watch: %s %s gpu=%s: %s", status_name(f->status), cause_id_str(f->cause),
				 gpu_str(f->gpu, g, sizeof(g)), f->title);
			w->o->log(line);
		}
		n++;
	}
	for (int k = 0; k < w->nprev; k++) {
		int still = 0;

		for (int i = 0; i < n; i++)
			still |= !strcmp(w->prev_keys[k], keys[i]);
		if (!still && w->o->log) {
			char cause[48], g[16];
			int gpu = -1;

			if (sscanf(w->prev_keys[k], "%47s %d", cause, &gpu) != 2)
				continue;
			snprintf(line, sizeof(line), "watch: ok %s gpu=%s: cleared", cause,
				 gpu_str(gpu, g, sizeof(g)));
			w->o->log(line);
		}
	}
	memcpy(w->prev_keys, keys, sizeof(keys[0]) * (size_t)n);
	w->nprev = n;
}

/*
 * One report per sweep: last sweep's is released first, so the daemon holds
 * at most WATCH_MAX_FINDINGS findings of bounded size whatever the machine
 * or the kernel log says.
 */
void judge(struct wd *w)
{
	report_release(&w->rep);
	report_init(&w->rep);
	judge_nvml(w);
	judge_pci(w);
	judge_xids(w);
	for (size_t i = 0; i < w->st_rep.n; i++)
		if (make_room(&w->rep, w->st_rep.findings[i].status) == 0)
			report_add_copy(&w->rep, &w->st_rep.findings[i]);
	report_finish(&w->rep);
	/* Before the first sweep is whole, findings come and go as sources answer. */
	if (w->ready_sent)
		log_changes(w);
}
