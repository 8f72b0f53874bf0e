/* bench_text.c - the bench run as text for people; see bench_render.h. */
#include "bench/bench_render.h"
#include "core/termesc.h"

#include <math.h>
#include <stdio.h>


/* "  4310.2 GB/s   " in a fixed 18 columns, "?" when unknown. */
static void bench_text_num(struct buf *out, double v, const char *unit)
{
	if (isnan(v))
		buf_printf(out, "%10s %-7s", "?", "");
	else
		buf_printf(out, "%10.1f %-7s", v, unit);
}

static void bench_text_gpu(const struct bench_gpu *g, struct buf *out)
{
	buf_printf(out, "GPU %d: %s", g->index, g->name ? tesc(g->name) : "(name unknown)");
	if (g->pci)
		buf_printf(out, "  [%s", tesc(g->pci));
	if (g->cc_major >= 0)
		buf_printf(out, ", compute capability %d.%d", g->cc_major, g->cc_minor);
	if (g->sms > 0)
		buf_printf(out, ", %d SMs", g->sms);
	buf_puts(out, g->pci ? "]\n" : "\n");
	if (g->refused != CAUSE_NONE) {
		buf_printf(out, "  not measured (%s): %s\n", cause_id_str(g->refused), g->refused_msg ? tesc(g->refused_msg) : "");
		if (!g->results[0].measured)
			return;
	}
	if (g->pcie_label)
		buf_printf(out, "  link: %s, %.1f GB/s per direction at its maximum\n", g->pcie_label, g->pcie_gbs);
	if (g->cublas)
		buf_printf(out, "  cuBLAS: %s\n", tesc(g->cublas));
	buf_printf(out, "\n  %-38s %18s %18s %s\n", "", "measured", "ceiling", "of ceiling");
	for (int k = 0; k < BENCH_NKINDS; k++) {
		const struct bench_result *r = &g->results[k];
		const struct bench_kind_info *ki = bench_kind_info(k);
		char label[64];

		if (!r->measured && !r->error)
			continue;
		if (ki->is_gemm && r->size > 0)
			snprintf(label, sizeof(label), "%s %lld^3", ki->label, r->size);
		else if (r->size > 0)
			snprintf(label, sizeof(label), "%s %lld MiB", ki->label, r->size >> 20);
		else
			snprintf(label, sizeof(label), "%s", ki->label);
		buf_printf(out, "  %-38s ", label);
		if (!r->measured) {
			buf_printf(out, "not measured: %s\n", r->error ? tesc(r->error) : "no value");
			continue;
		}
		bench_text_num(out, r->value, ki->unit);
		buf_puts(out, " ");
		bench_text_num(out, r->ceiling, ki->unit);
		if (isnan(r->percent))
			buf_printf(out, " %6s", "");
		else
			buf_printf(out, " %5.0f%%", r->percent);
		if (r->verified == 1)
			buf_puts(out, " verified");
		else if (r->verified == 0)
			buf_puts(out, " WRONG RESULTS");
		buf_puts(out, "\n");
	}
	bench_render_text_conv(g, out);
	if (g->rep.n)
		buf_puts(out, "\n");
	for (size_t i = 0; i < g->rep.n; i++)
		bench_render_text_finding(&g->rep.findings[i], out);
	buf_puts(out, "\n");
}

void bench_render_text(const struct bench_run *r, struct buf *out)
{
	if (r->refused != CAUSE_NONE) {
		buf_printf(out, "gpudoctor bench: nothing measured (%s): %s\n", cause_id_str(r->refused),
			   r->refused_msg ? tesc(r->refused_msg) : "");
		return;
	}
	for (size_t i = 0; i < r->ngpus; i++)
		bench_text_gpu(&r->gpus[i], out);
	bench_render_text_nccl(r, out);
	if (r->cpu.impl || r->cpu.error) {
		buf_puts(out, "CPU baseline: ");
		if (isnan(r->cpu.gflops)) {
			buf_printf(out, "not measured%s%s\n", r->cpu.error ? ": " : "", r->cpu.error ? tesc(r->cpu.error) : "");
		} else {
			buf_printf(out, "SGEMM %.1f GFLOP/s (%s", r->cpu.gflops, r->cpu.impl);
			if (r->cpu.library)
				buf_printf(out, ", %s", tesc(r->cpu.library));
			else if (r->cpu.threads > 0)
				buf_printf(out, ", %d threads", r->cpu.threads);
			buf_printf(out, ", n=%lld)%s\n", r->cpu.n, r->cpu.verified == 0 ? " WRONG RESULTS" : "");
			if (!isnan(r->cpu.speedup))
				buf_printf(out, "GPU FP32 GEMM vs CPU SGEMM: %.0fx faster\n", r->cpu.speedup);
		}
		bench_render_text_cpu_conv(r, out);
	}
	buf_puts(out, "Device-to-device figures count bytes read plus bytes written; GEMM rates count 2n^3 operations.\n");
	if (!isnan(r->seconds))
		buf_printf(out, "Measured in %.1f s.\n", r->seconds);
}
