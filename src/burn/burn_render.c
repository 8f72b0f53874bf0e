/*
 * burn_render.c - text and JSON (gpudoctor.burn/1) of a burn; see burn.h.
 * Machine strings (GPU names, evidence) go through termesc on a terminal;
 * the JSON writer keeps its output valid UTF-8.
 */
#include "burn/burn.h"
#include "core/json.h"
#include "core/termesc.h"
#include "report/report.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *burn_status_word(enum status s)
{
	switch (s) {
	case STATUS_OK: return "ok";
	case STATUS_WARN: return "warn";
	case STATUS_FAIL: return "fail";
	default: return "unknown";
	}
}

/* min / median-ish summary of one NVML field over the ticks */
static void burn_range(const struct burn_gpu *g, size_t off, long long *lo, long long *hi)
{
	*lo = *hi = -1;
	for (size_t i = 0; i < g->nticks; i++) {
		long long v = *(const long long *)((const char *)&g->ticks[i] + off);

		if (v < 0)
			continue;
		if (*lo < 0 || v < *lo)
			*lo = v;
		if (v > *hi)
			*hi = v;
	}
}

static double burn_mean_mem(const struct burn_gpu *g)
{
	double s = 0;
	size_t n = 0;

	for (size_t i = 0; i < g->nticks; i++)
		if (g->ticks[i].mem_gbs > 0) {
			s += g->ticks[i].mem_gbs;
			n++;
		}
	return n ? s / (double)n : NAN;
}

void burn_render_text(const struct burn_run *run, const struct report *rep, int color, struct buf *out)
{
	const char *red = color ? "\033[31m" : "", *yel = color ? "\033[33m" : "",
		   *grn = color ? "\033[32m" : "", *off = color ? "\033[0m" : "";

	buf_printf(out, "gpudoctor burn: %zu GPU%s for %.0f s%s\n\n", run->ngpus, run->ngpus == 1 ? "" : "s",
		   run->seconds_ran, run->interrupted ? " (stopped early by a signal: a partial verdict)" : "");
	for (size_t i = 0; i < run->ngpus; i++) {
		const struct burn_gpu *g = &run->gpus[i];
		long long lo, hi, tlo, thi, plo, phi;

		buf_printf(out, "GPU %d", g->index);
		if (g->name[0]) {
			buf_puts(out, " (");
			termesc_buf(out, g->name);
			buf_puts(out, ")");
		}
		buf_puts(out, "\n");
		if (g->refuse != CAUSE_NONE || !g->nticks) {
			buf_puts(out, "    not loaded\n");
			continue;
		}
		burn_range(g, offsetof(struct burn_tick, sm_mhz), &lo, &hi);
		burn_range(g, offsetof(struct burn_tick, temp_c), &tlo, &thi);
		burn_range(g, offsetof(struct burn_tick, power_mw), &plo, &phi);
		buf_printf(out, "    GEMM bf16 %.0f TFLOP/s sustained, %.0f in the first minute",
			   burn_sustained_tflops(g), burn_first_tflops(g));
		if (!isnan(run->peak_tflops))
			buf_printf(out, " (%.0f %% of the datasheet's %.0f)", 100 * burn_sustained_tflops(g) / run->peak_tflops,
				   run->peak_tflops);
		buf_printf(out, "; %llu products checked, %llu wrong\n", g->gemms, g->bad_gemms);
		buf_printf(out, "    memory test %.1f GiB, %llu passes at %.0f GB/s, %llu bad words; copies %llu bad\n",
			   g->memtest_bytes / (1024.0 * 1024 * 1024), g->mem_passes, burn_mean_mem(g), g->mem_bad,
			   g->copy_bad);
		if (hi >= 0)
			buf_printf(out, "    SM clock %lld-%lld MHz, %lld-%lld C, %.0f-%.0f W; hardware slowdown/thermal/power brake "
				   "%.0f %% of the time, software power cap %.0f %%\n", lo, hi, tlo, thi, plo / 1000.0,
				   phi / 1000.0, 100 * burn_reason_share(g, 0x8 | 0x20 | 0x40 | 0x80),
				   100 * burn_reason_share(g, 0x4));
	}
	if (run->nvml_note[0]) {
		buf_puts(out, "\nnote: ");
		termesc_buf(out, run->nvml_note);
		buf_puts(out, "\n");
	}
	buf_puts(out, "\n");
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];
		const char *c = f->status == STATUS_FAIL ? red : f->status == STATUS_WARN ? yel : grn;

		buf_printf(out, "%s[%s]%s ", c, f->status == STATUS_FAIL ? "FAIL" : f->status == STATUS_WARN ? "WARN" : " ok ",
			   off);
		termesc_buf(out, f->title);
		if (f->cause != CAUSE_NONE)
			buf_printf(out, "  (%s)", cause_id_str(f->cause));
		buf_puts(out, "\n");
		for (size_t k = 0; k < f->nevidence; k++) {
			buf_puts(out, "       evidence: ");
			termesc_buf(out, f->evidence[k]);
			buf_puts(out, "\n");
		}
		if (f->fix) {
			buf_puts(out, "       fix:      ");
			termesc_buf(out, f->fix);
			buf_puts(out, "\n");
		}
	}
	buf_printf(out, "\nresult: %s\n", rep->status == STATUS_FAIL ? "FAIL" : rep->status == STATUS_WARN
		   ? "ok, with warnings" : "ok");
}

void burn_render_json(const struct burn_run *run, const struct report *rep, struct buf *out)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.burn/1");
	json_str(&j, "status", burn_status_word(rep->status));
	json_num(&j, "seconds_asked", run->seconds_asked);
	json_num(&j, "seconds_ran", run->seconds_ran);
	json_bool(&j, "interrupted", run->interrupted);
	json_str(&j, "nvml_note", run->nvml_note[0] ? run->nvml_note : NULL);
	json_arr_begin(&j, "gpus");
	for (size_t i = 0; i < run->ngpus; i++) {
		const struct burn_gpu *g = &run->gpus[i];

		json_obj_begin(&j, NULL);
		json_int(&j, "index", g->index);
		json_str(&j, "name", g->name[0] ? g->name : NULL);
		json_str(&j, "pci_bus_id", g->pci[0] ? g->pci : NULL);
		json_str(&j, "refused", cause_id_str(g->refuse));	/* NULL: it ran */
		json_int(&j, "bad_records", g->bad_records);
		json_str(&j, "ended", g->death[0] ? g->death : NULL);
		json_num(&j, "tflops_first", burn_first_tflops(g));
		json_num(&j, "tflops_sustained", burn_sustained_tflops(g));
		json_int(&j, "products", (long long)g->gemms);
		json_int(&j, "products_wrong", (long long)g->bad_gemms);
		json_num(&j, "memtest_bytes", g->memtest_bytes);
		json_int(&j, "memtest_passes", (long long)g->mem_passes);
		json_int(&j, "memtest_bad_words", (long long)g->mem_bad);
		json_num(&j, "memtest_gbs", burn_mean_mem(g));
		json_int(&j, "copies_wrong", (long long)g->copy_bad);
		json_num(&j, "throttle_share_hw", burn_reason_share(g, 0x8 | 0x20 | 0x40 | 0x80));
		json_num(&j, "throttle_share_power_cap", burn_reason_share(g, 0x4));
		json_arr_begin(&j, "series");
		for (size_t k = 0; k < g->nticks; k++) {
			const struct burn_tick *t = &g->ticks[k];

			json_obj_begin(&j, NULL);
			json_num(&j, "t", t->t);
			json_num(&j, "tflops", t->tflops);
			json_num(&j, "mem_gbs", t->mem_gbs);
			json_int_known(&j, "sm_mhz", t->sm_mhz, t->sm_mhz >= 0);
			json_int_known(&j, "temp_c", t->temp_c, t->temp_c >= 0);
			json_int_known(&j, "power_mw", t->power_mw, t->power_mw >= 0);
			json_int_known(&j, "clock_reasons", t->reasons, t->reasons >= 0);
			json_int_known(&j, "ecc_uncorrected", t->ecc_unc, t->ecc_unc >= 0);
			json_int(&j, "wrong", (long long)(t->bad_gemms + t->mem_bad + t->copy_bad));
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "findings");
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "id", f->id);
		json_str(&j, "status", burn_status_word(f->status));
		json_str(&j, "cause", f->cause == CAUSE_NONE ? NULL : cause_id_str(f->cause));
		json_str(&j, "title", f->title);
		json_str_array(&j, "evidence", f->evidence, f->nevidence);
		json_str(&j, "fix", f->fix);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	buf_puts(out, j.out.s);
	json_release(&j);
}
