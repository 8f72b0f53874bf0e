/*
 * prom.c - Prometheus text exposition format 0.0.4 of the daemon's model:
 * /metrics and the --textfile file for node_exporter (no timestamps; written
 * to a temporary file and renamed).  Each family is written whole (HELP,
 * TYPE, samples) so the output passes `promtool check metrics`.  Label
 * values come from GPUs, the kernel log and files, so they are hostile:
 * esc() first makes control bytes (C0, DEL, C1), bytes that are not UTF-8
 * and bidi overrides visible text with core/termesc (\n, \xNN, \uNNNN:
 * Prometheus drops a whole scrape with invalid UTF-8), then escapes that
 * text's backslashes and quotes as the format requires (it has no other
 * escapes; a parser refuses an unknown one).  Names follow the Prometheus
 * naming guide (docs/watch-state.md, "Metrics"): cumulative counts are
 * counters named *_total; a label holds one kind of value (`gpu` the NVML
 * index, never a PCI address) and is left out when unknown; enums are one
 * series per state; facts are *_info series.  Unknown facts are left out,
 * not 0.
 */
#include "watch/daemon.h"
#include "commit.h"
#include "watch/selfstat.h"
#include "core/ctx.h"
#include "core/kv.h"
#include "core/termesc.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "knowledge/kb_xid.h"
#include "knowledge/layers.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void esc(struct buf *b, const char *s)
{
	struct buf t = BUF_INIT;

	/* termesc makes every control byte, non-UTF-8 byte and bidi override
	   visible text; the format's escapes then apply to that text. */
	termesc_buf(&t, s);
	for (size_t i = 0; i < t.len; i++) {
		if (t.s[i] == '\\' || t.s[i] == '"')
			buf_addc(b, '\\');
		buf_addc(b, t.s[i]);
	}
	buf_release(&t);
}

/* The `gpu` label of an XID: the NVML index when NVML mapped its address,
 * else empty (the address is in pci_bus_id). */
static const char *xid_gpu(const struct wd *w, const char *bus_id, char *out, size_t size)
{
	int i = xids_gpu_index(w, bus_id);

	if (i < 0)
		out[0] = '\0';
	else
		snprintf(out, size, "%d", i);
	return out;
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One domain per label (the Prometheus naming guide): gpu is the NVML
 * index, pci_bus_id, uuid and model their own labels; one that is unknown is
 * left out, never "-" or "". */
static void opt_label(struct buf *b, const char *name, const char *v)
{
	if (!v || !*v)
		return;
	buf_printf(b, ",%s=\"", name);
	esc(b, v);
	buf_addc(b, '"');
}

static void gpu_labels(struct buf *b, const struct wgpu *g)
{
	buf_printf(b, "gpu=\"%d\"", g->index);
	opt_label(b, "uuid", g->uuid);
	opt_label(b, "pci_bus_id", g->bus_id);
	opt_label(b, "model", g->name);
}

struct gauge {
	const char *name, *type, *help, *extra;	/* extra: more labels, or NULL */
	size_t off;
	double scale;
};

#define G(n, h, x, f, s) { "gpudoctor_gpu_" n, "gauge", h, x, offsetof(struct wgpu, f), s }
/* NVML's cumulative counts: counters (reset when the driver reloads). */
#define C(n, h, x, f) { "gpudoctor_gpu_" n "_total", "counter", h, x, offsetof(struct wgpu, f), 1 }

static const struct gauge gauges[] = {
	G("temperature_celsius", "GPU temperature.", NULL, temperature_c, 1),
	G("power_watts", "GPU power draw.", NULL, power_mw, 0.001),
	G("memory_used_bytes", "GPU memory in use (NVML; driver reservation excluded).", NULL, memory_used, 1),
	G("memory_total_bytes", "GPU memory in total.", NULL, memory_total, 1),
	G("persistence_mode", "1 when persistence mode is on.", NULL, persistence, 1),
	G("ecc_mode", "1 when ECC is enabled.", NULL, ecc_mode, 1),
	C("ecc_errors", "ECC errors as NVML counts them (volatile: since the driver loaded; "
	  "aggregate: over the GPU's life).", "type=\"corrected\",scope=\"volatile\"", ecc_vol_cor),
	C("ecc_errors", NULL, "type=\"uncorrected\",scope=\"volatile\"", ecc_vol_unc),
	C("ecc_errors", NULL, "type=\"corrected\",scope=\"aggregate\"", ecc_agg_cor),
	C("ecc_errors", NULL, "type=\"uncorrected\",scope=\"aggregate\"", ecc_agg_unc),
	C("retired_pages", "Pages retired (pre-Ampere GPUs).", "cause=\"sbe\"", retired_sbe),
	C("retired_pages", NULL, "cause=\"dbe\"", retired_dbe),
	G("retired_pages_pending", "1 when a page retirement waits for a reset.", NULL, retired_pending, 1),
	C("remapped_rows", "Memory rows remapped (Ampere and newer).", "kind=\"correctable\"", remap_cor),
	C("remapped_rows", NULL, "kind=\"uncorrectable\"", remap_unc),
	G("remapped_rows_pending", "1 when a row remapping waits for a reset.", NULL, remap_pending, 1),
	G("remapped_rows_failed", "1 when a row remapping failed.", NULL, remap_failed, 1),
	G("clock_event_reasons", "NVML clock event (throttle) reasons, a bit mask "
	  "(gpudoctor_gpu_clock_event_active has one series per reason).", NULL, clock_reasons, 1),
	G("pcie_link_generation", "PCIe link generation.", "kind=\"current\"", pcie_gen, 1),
	G("pcie_link_generation", NULL, "kind=\"max\"", pcie_gen_max, 1),
	G("pcie_link_width", "PCIe link width in lanes.", "kind=\"current\"", pcie_width, 1),
	G("pcie_link_width", NULL, "kind=\"max\"", pcie_width_max, 1),
	C("pcie_replays", "PCIe replays (link-level retransmissions).", NULL, pcie_replay),
	C("pcie_aer_errors", "PCIe AER errors from sysfs.", "severity=\"correctable\"", aer_cor),
	C("pcie_aer_errors", NULL, "severity=\"nonfatal\"", aer_nonfatal),
	C("pcie_aer_errors", NULL, "severity=\"fatal\"", aer_fatal),
	G("nvlink_active_links", "Active NVLink links.", NULL, nvlink_active, 1),
	C("nvlink_errors", "NVLink errors summed over active links.", "counter=\"replay\"", nvlink_replay),
	C("nvlink_errors", NULL, "counter=\"recovery\"", nvlink_recovery),
	C("nvlink_errors", NULL, "counter=\"crc_flit\"", nvlink_crc_flit),
	C("nvlink_errors", NULL, "counter=\"crc_data\"", nvlink_crc_data),
};

/*
 * NVML's fabric (NVSwitch) registration state as one series per defined
 * state (nvml.h: NVML_GPU_FABRIC_STATE_NOT_STARTED 1, IN_PROGRESS 2,
 * COMPLETED 3), the one that holds at 1.  0 (not supported) and values
 * nvml.h does not define emit nothing: an enum is never a bare number.
 */
static void fabric_states(struct buf *b, const struct wd *w)
{
	static const char *const names[] = { "not_started", "in_progress", "completed" };

	family(b, "gpudoctor_gpu_fabric_state", "gauge",
	       "1 for the GPU's fabric (NVSwitch) registration state, 0 for the others.");
	for (int i = 0; i < w->ngpus; i++) {
		long long st = w->gpus[i].fabric_state;

		if (st < 1 || st > 3)
			continue;
		for (int k = 0; k < 3; k++) {
			buf_puts(b, "gpudoctor_gpu_fabric_state{");
			gpu_labels(b, &w->gpus[i]);
			buf_printf(b, ",state=\"%s\"} %d\n", names[k], st == k + 1);
		}
	}
}

static void clock_reason_bits(struct buf *b, const struct wd *w)
{
	static const struct { unsigned long long bit; const char *name; } bits[] = {
		{ 0x1, "gpu_idle" }, { 0x2, "applications_clocks" }, { 0x4, "sw_power_cap" },
		{ 0x8, "hw_slowdown" }, { 0x10, "sync_boost" }, { 0x20, "sw_thermal" },
		{ 0x40, "hw_thermal" }, { 0x80, "hw_power_brake" }, { 0x100, "display_clocks" },
	};

	family(b, "gpudoctor_gpu_clock_event_active", "gauge",
	       "1 while this clock event (throttle) reason holds the clocks down.");
	for (int i = 0; i < w->ngpus; i++) {
		if (w->gpus[i].clock_reasons < 0)
			continue;
		for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
			buf_puts(b, "gpudoctor_gpu_clock_event_active{");
			gpu_labels(b, &w->gpus[i]);
			buf_printf(b, ",reason=\"%s\"} %d\n", bits[k].name,
				   ((unsigned long long)w->gpus[i].clock_reasons & bits[k].bit) != 0);
		}
	}
}

static void gpu_gauges(struct buf *b, const struct wd *w)
{
	for (size_t k = 0; k < sizeof(gauges) / sizeof(gauges[0]); k++) {
		const struct gauge *gg = &gauges[k];

		if (gg->help)
			family(b, gg->name, gg->type, gg->help);
		for (int i = 0; i < w->ngpus; i++) {
			long long v;

			memcpy(&v, (const char *)&w->gpus[i] + gg->off, sizeof(v));
			if (v < 0)
				continue;
			buf_printf(b, "%s{", gg->name);
			gpu_labels(b, &w->gpus[i]);
			if (gg->extra)
				buf_printf(b, ",%s", gg->extra);
			if (gg->scale == 1)
				buf_printf(b, "} %lld\n", v);
			else
				buf_printf(b, "} %.3f\n", (double)v * gg->scale);
		}
	}
	clock_reason_bits(b, w);
	fabric_states(b, w);
	family(b, "gpudoctor_gpu_lost", "gauge", "1 when NVML reports the GPU lost.");
	for (int i = 0; i < w->ngpus; i++) {
		buf_puts(b, "gpudoctor_gpu_lost{");
		gpu_labels(b, &w->gpus[i]);
		buf_printf(b, "} %d\n", w->gpus[i].lost);
	}
	family(b, "gpudoctor_gpu_process_memory_used_bytes", "gauge",
	       "GPU memory used by a compute process.");
	for (int i = 0; i < w->ngpus; i++)
		for (int p = 0; p < w->gpus[i].nprocs; p++) {
			if (w->gpus[i].procs[p].used < 0)
				continue;
			buf_puts(b, "gpudoctor_gpu_process_memory_used_bytes{");
			gpu_labels(b, &w->gpus[i]);
			buf_printf(b, ",pid=\"%lld\"} %lld\n", w->gpus[i].procs[p].pid,
				   w->gpus[i].procs[p].used);
		}
}

static const char *sev_label(enum status s)
{
	return s == STATUS_FAIL ? "fail" : s == STATUS_WARN ? "warn" : "ok";
}

/* Do two findings make the same gpudoctor_finding series (the same labels)? */
static int same_series(const struct finding *a, const struct finding *f)
{
	return a->layer == f->layer && a->cause == f->cause && a->status == f->status &&
	       a->gpu == f->gpu && !strcmp(a->pci ? a->pci : "", f->pci ? f->pci : "");
}

static void findings(struct buf *b, const struct wd *w)
{
	const struct report *r = &w->rep;

	family(b, "gpudoctor_check_ok", "gauge", "1 when the layer has no failure, 0 otherwise.");
	for (int l = 0; l < LAYER_COUNT; l++) {
		int ok = 1;

		for (size_t i = 0; i < r->n; i++)
			if (r->findings[i].status == STATUS_FAIL && r->findings[i].layer == (enum layer_id)l)
				ok = 0;
		buf_printf(b, "gpudoctor_check_ok{layer=\"%s\"} %d\n", layer_name((enum layer_id)l), ok);
	}
	family(b, "gpudoctor_finding", "gauge", "1 for each active finding that is not ok.");
	for (size_t i = 0; i < r->n; i++) {
		const struct finding *f = &r->findings[i];
		int dup = 0;
		char g[16];

		/* One series per (layer, cause, severity, gpu, pci_bus_id): two XIDs
		   of one GPU are one series; those of two addresses are two. */
		for (size_t k = 0; k < i; k++)
			dup |= same_series(&r->findings[k], f);
		if (dup)
			continue;
		buf_puts(b, "gpudoctor_finding{layer=\"");
		esc(b, layer_name(f->layer));
		buf_puts(b, "\",cause=\"");
		esc(b, cause_id_str(f->cause));
		buf_printf(b, "\",severity=\"%s\"", sev_label(f->status));
		/* A finding of the machine has no gpu label; an address NVML did not
		   map has pci_bus_id alone; each is left out when unknown. */
		if (f->gpu >= 0)
			buf_printf(b, ",gpu=\"%s\"", gpu_str(f->gpu, g, sizeof(g)));
		opt_label(b, "pci_bus_id", f->pci);
		buf_puts(b, "} 1\n");
	}
	/* An enum as one series per state (the naming guide), not 0/1/2. */
	family(b, "gpudoctor_status", "gauge", "1 for the overall status (ok, warn, fail), 0 for the others.");
	for (int s = 0; s < 3; s++) {
		enum status st = s == 0 ? STATUS_OK : s == 1 ? STATUS_WARN : STATUS_FAIL;

		buf_printf(b, "gpudoctor_status{status=\"%s\"} %d\n", sev_label(st), w->rep.status == st);
	}
}

static void xids(struct buf *b, const struct wd *w)
{
	family(b, "gpudoctor_xid_errors_total", "counter",
	       "XIDs the driver logged in this boot, per GPU and XID.");
	for (int i = 0; i < w->nxids; i++) {
		char g[40];

		if (strcmp(w->xids[i].boot_id, w->boot_id))
			continue;	/* an earlier boot's unacknowledged XID */
		buf_printf(b, "gpudoctor_xid_errors_total{xid=\"%d\"", w->xids[i].xid);
		opt_label(b, "gpu", xid_gpu(w, w->xids[i].bus_id, g, sizeof(g)));
		opt_label(b, "pci_bus_id", w->xids[i].bus_id);
		buf_printf(b, "} %llu\n", w->xids[i].count);
	}
	family(b, "gpudoctor_xid_unacknowledged", "gauge",
	       "1 for a fatal XID not yet cleared with gpudoctor watch --ack GPU.");
	for (int i = 0; i < w->nxids; i++) {
		char g[40];

		if (!w->xids[i].fatal)
			continue;
		buf_printf(b, "gpudoctor_xid_unacknowledged{xid=\"%d\",action=\"%s\"", w->xids[i].xid,
			   kb_xid_action_name(w->xids[i].action));
		opt_label(b, "gpu", xid_gpu(w, w->xids[i].bus_id, g, sizeof(g)));
		opt_label(b, "pci_bus_id", w->xids[i].bus_id);
		buf_puts(b, "} 1\n");
	}
	family(b, "gpudoctor_kmsg_records_total", "counter", "Kernel log records read.");
	buf_printf(b, "gpudoctor_kmsg_records_total %llu\n", w->krecords);
	family(b, "gpudoctor_kmsg_records_lost_total", "counter",
	       "Kernel log records overwritten before they were read.");
	buf_printf(b, "gpudoctor_kmsg_records_lost_total %llu\n", w->klost);
	family(b, "gpudoctor_kmsg_records_spoofed_total", "counter",
	       "Kernel log records carrying an NVIDIA driver line that the driver did not write "
	       "(another facility, or the line not at the start of the message): ignored.");
	buf_printf(b, "gpudoctor_kmsg_records_spoofed_total %llu\n", w->kspoofed);
	family(b, "gpudoctor_xid_table_overflow_total", "counter",
	       "XID entries evicted (oldest non-fatal first) or dropped because the table was full.");
	buf_printf(b, "gpudoctor_xid_table_overflow_total %llu\n", w->xid_overflow);
}

static void own(struct buf *b, const struct wd *w, double now)
{
	static const char *const src[] = { "nvml", "pci", "static", "kmsg" };
	double at[4] = { w->nvml_at, w->pci_at, w->st_at, w->kmsg_at };
	long long crss = sampler_child_rss(&w->smp);

	family(b, "gpudoctor_sample_age_seconds", "gauge", "Seconds since each source was last read.");
	for (int i = 0; i < 4; i++)
		if (at[i] > 0)
			buf_printf(b, "gpudoctor_sample_age_seconds{source=\"%s\"} %.3f\n", src[i], now - at[i]);
	family(b, "gpudoctor_gpus", "gauge", "NVIDIA GPUs seen by each source.");
	if (w->npci >= 0)
		buf_printf(b, "gpudoctor_gpus{source=\"pci\"} %d\n", w->pci_count);
	if (w->ngpus >= 0)
		buf_printf(b, "gpudoctor_gpus{source=\"nvml\"} %d\n", w->ngpus);
	family(b, "gpudoctor_nvml_hang", "gauge", "1 while the NVML sampler has missed its deadline.");
	buf_printf(b, "gpudoctor_nvml_hang %d\n", w->smp.hang != 0);
	family(b, "gpudoctor_nvml_hang_in_kernel", "gauge",
	       "1 while the hung NVML sampler is stuck in the kernel (state D): a driver hang.");
	buf_printf(b, "gpudoctor_nvml_hang_in_kernel %d\n", w->smp.hang && w->smp.in_kernel);
	family(b, "gpudoctor_nvml_sampler_restarts_total", "counter", "NVML sampler children restarted.");
	buf_printf(b, "gpudoctor_nvml_sampler_restarts_total %llu\n", w->smp.restarts);
	family(b, "gpudoctor_nvml_deadlines_missed_total", "counter", "NVML requests that missed their deadline.");
	buf_printf(b, "gpudoctor_nvml_deadlines_missed_total %llu\n", w->smp.deadlines_missed);
	family(b, "gpudoctor_static_checks_total", "counter", "Static checks started.");
	buf_printf(b, "gpudoctor_static_checks_total %llu\n", w->st_runs);
	family(b, "gpudoctor_sweeps_total", "counter", "Sweeps done.");
	buf_printf(b, "gpudoctor_sweeps_total %llu\n", w->sweeps);
	family(b, "gpudoctor_http_requests_total", "counter", "HTTP requests answered.");
	buf_printf(b, "gpudoctor_http_requests_total %llu\n", w->http_requests);
	family(b, "gpudoctor_http_rejected_total", "counter",
	       "HTTP connections closed for a bad or slow request, or for lack of room.");
	buf_printf(b, "gpudoctor_http_rejected_total %llu\n", w->http_rejected);
	family(b, "gpudoctor_http_evicted_total", "counter",
	       "HTTP connections closed, when all slots were taken, because their request "
	       "had not completed within 0.5 s (also counted as rejected).");
	buf_printf(b, "gpudoctor_http_evicted_total %llu\n", w->http_evicted);
	family(b, "gpudoctor_process_resident_memory_bytes", "gauge",
	       "Resident memory of the watch process itself (children apart).");
	buf_printf(b, "gpudoctor_process_resident_memory_bytes %lld\n", wd_self_rss());
	family(b, "gpudoctor_process_cpu_seconds_total", "counter", "CPU time of the watch process itself.");
	buf_printf(b, "gpudoctor_process_cpu_seconds_total %.3f\n", wd_self_cpu());
	family(b, "gpudoctor_children_resident_memory_bytes", "gauge", "Resident memory of the NVML sampler child.");
	if (crss >= 0)
		buf_printf(b, "gpudoctor_children_resident_memory_bytes %lld\n", crss);
	family(b, "gpudoctor_children_cpu_seconds_total", "counter",
	       "CPU time of the children that have exited (static checks, restarted samplers).");
	buf_printf(b, "gpudoctor_children_cpu_seconds_total %.3f\n", wd_children_cpu());
}

/*
 * The *_info pattern of the naming guide: value 1, facts in labels, so that a
 * query can join them onto any series by instance.  The commit is the one
 * mk/commit.mk generated (as --version says it); the driver and CUDA
 * versions are what the NVML sampler read (nvmlSystemGetDriverVersion,
 * nvmlSystemGetCudaDriverVersion_v2), left out while unknown.
 */
static void info(struct buf *b, const struct wd *w)
{
	const char *kb = w->kb ? kb_as_of(w->kb) : NULL;
	const char *drv = NULL, *cuda = NULL;

	family(b, "gpudoctor_build_info", "gauge", "1; the labels say which gpudoctor build serves.");
	buf_printf(b, "gpudoctor_build_info{version=\"%s\",commit=\"", GD_VERSION);
	esc(b, GD_COMMIT);
	buf_puts(b, "\"");
	opt_label(b, "kb_date", kb);
	buf_puts(b, "} 1\n");
	if (w->smp.have_sample && !w->smp.init_failed) {
		drv = kv_get(&w->smp.last, "driver_version");
		cuda = kv_get(&w->smp.last, "cuda_version");
	}
	family(b, "gpudoctor_driver_info", "gauge",
	       "1; the labels say which NVIDIA driver and CUDA driver API version NVML reports.");
	if (drv && *drv) {
		buf_puts(b, "gpudoctor_driver_info{driver_version=\"");
		esc(b, drv);
		buf_puts(b, "\"");
		opt_label(b, "cuda_version", cuda);
		buf_puts(b, "} 1\n");
	}
}

/*
 * Which NVML library the sampler loads, and from where: "own" is this
 * process's root (--sample-nvml: in a container, the library the NVIDIA
 * container toolkit injected), "tree" the library the static check found.
 * No series while none is sampled (--no-load).
 */
static void nvml_library(struct buf *b, const struct wd *w)
{
	family(b, "gpudoctor_nvml_library_info", "gauge",
	       "1; the labels say which NVML library watch samples and whose root it is in.");
	if (!w->smp.lib)
		return;
	buf_puts(b, "gpudoctor_nvml_library_info{path=\"");
	esc(b, w->smp.lib);
	buf_printf(b, "\",root=\"%s\"} 1\n", w->o->sample_nvml ? "own" : "tree");
}

void prom_render(const struct wd *w, struct buf *out)
{
	double now = wd_now();

	family(out, "gpudoctor_up", "gauge", "1 while gpudoctor watch serves.");
	buf_puts(out, "gpudoctor_up 1\n");
	info(out, w);
	nvml_library(out, w);
	findings(out, w);
	gpu_gauges(out, w);
	xids(out, w);
	own(out, w, now);
}

int prom_write_textfile(const struct wd *w)
{
	struct buf b = BUF_INIT;
	char *path;
	int r;

	if (!w->o->textfile_dir)
		return 0;
	prom_render(w, &b);
	path = xasprintf("%s/gpudoctor.prom", w->o->textfile_dir);
	r = wd_write_atomic(path, b.s, b.len, 0);
	free(path);
	buf_release(&b);
	return r;
}
