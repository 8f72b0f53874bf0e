/* report.c - the plain-text report served at / and printed by --once. */
#include "watch/daemon.h"
#include "watch/selfstat.h"
#include "core/termesc.h"
#include "knowledge/kb_xid.h"

#include <stdio.h>
#include <string.h>

static const char *sev(enum status s)
{
	return s == STATUS_FAIL ? "FAIL" : s == STATUS_WARN ? "WARN" : "OK";
}

/* Machine strings (names from NVML, kernel log text) end up on a terminal (--once, curl). */
static void safe(struct buf *b, const char *s)
{
	termesc_buf(b, s);
}

void report_plain(const struct wd *w, struct buf *out)
{
	double now = wd_now();

	buf_printf(out, "gpudoctor watch: %s  (policy %s, sweep %llu, every %g s)\n", sev(w->rep.status),
		   w->policy.name, w->sweeps, w->o->interval);
	if (!w->rep.n)
		buf_puts(out, "no active findings\n");
	for (size_t i = 0; i < w->rep.n; i++) {
		const struct finding *f = &w->rep.findings[i];
		char g[16];

		buf_printf(out, "[%s] %-9s gpu %-2s ", sev(f->status), layer_name(f->layer), gpu_str(f->gpu, g, sizeof(g)));
		safe(out, f->title);
		buf_printf(out, "  (%s)\n", cause_id_str(f->cause));
	}
	buf_puts(out, "\n");
	if (w->ngpus < 0)
		buf_puts(out, "GPUs: NVML has not answered\n");
	for (int i = 0; i < w->ngpus; i++) {
		const struct wgpu *g = &w->gpus[i];

		buf_printf(out, "GPU %d ", g->index);
		safe(out, g->name);
		buf_puts(out, " ");
		safe(out, g->bus_id);
		if (g->temperature_c >= 0)
			buf_printf(out, "  %lld C", g->temperature_c);
		if (g->power_mw >= 0)
			buf_printf(out, "  %.1f W", (double)g->power_mw / 1000.0);
		if (g->memory_used >= 0 && g->memory_total > 0)
			buf_printf(out, "  %lld/%lld MiB", g->memory_used >> 20, g->memory_total >> 20);
		if (g->nprocs)
			buf_printf(out, "  %d processes", g->nprocs);
		buf_puts(out, "\n");
	}
	for (int i = 0; i < w->nxids; i++) {
		const struct wxid *x = &w->xids[i];
		struct kb_xid k;

		buf_printf(out, "XID %d on ", x->xid);
		safe(out, x->bus_id[0] ? x->bus_id : "?");
		buf_printf(out, ": %llu this boot, action %s%s%s (%s)\n", x->count, kb_xid_action_name(x->action),
			   x->fatal ? ", unacknowledged" : "", x->escalated ? ", escalated" : "",
			   kb_xid_find(w->kb, x->xid, &k) == 0 ? k.name : "unknown");
	}
	/* Which NVML answered: in a container, the injected one or the tree's. */
	if (w->smp.lib) {
		buf_puts(out, "NVML: ");
		safe(out, w->smp.lib);
		buf_puts(out, w->o->sample_nvml ? " (--sample-nvml: this process's own root)\n"
						: " (as the static check found it)\n");
	} else {
		buf_puts(out, "NVML: not sampled (--no-load, or no library found)\n");
	}
	buf_puts(out, "\nsample ages:");
	{
		static const char *const src[] = { "nvml", "pci", "static", "kmsg" };
		double at[4] = { w->nvml_at, w->pci_at, w->st_at, w->kmsg_at };

		for (int i = 0; i < 4; i++)
			if (at[i] > 0)
				buf_printf(out, " %s %.1f s", src[i], now - at[i]);
			else
				buf_printf(out, " %s never", src[i]);
	}
	buf_printf(out, "; kernel log: %llu records read, %llu lost\n", w->krecords, w->klost);
	if (w->st_error[0]) {
		buf_puts(out, "static check: ");
		safe(out, w->st_error);
		buf_puts(out, "\n");
	}
}
