/*
 * render_markdown.c - the report as a GitHub-ready block, for bug reports:
 * a summary line, a table of versions (GPU, kernel, driver, CUDA, the
 * libraries the loader picks, each framework install), and the findings
 * inside a collapsible <details> element.  It is what users paste instead
 * of `python -m torch.utils.collect_env`.
 *
 * Values from the machine are hostile: in tables '|' and line breaks are
 * escaped, and every value that could start markup is put in a code span
 * whose fence is longer than any backtick run in it.  That is markdown's
 * own escaping (put_byte, put_code, put_text), kept apart from core/termesc:
 * a table row must stay one line, so line breaks become spaces there.
 */
#include "render/render.h"

#include "core/ctx.h"
#include "inventory/inventory.h"
#include "rules/fw_verdict.h"
#include "report/report.h"

#include <stdio.h>
#include <string.h>

/* One byte of a value in either context: line breaks and tabs become a
 * space (a table row is one line), other control bytes a visible \xNN. */
static void put_byte(struct buf *out, unsigned char c)
{
	if (c == '\n' || c == '\r' || c == '\t')
		buf_addc(out, ' ');
	else if (c < 0x20 || c == 0x7f)
		buf_printf(out, "\\x%02x", c);
	else
		buf_addc(out, (char)c);
}

/* `value` as an inline code span that no content can break. */
static void put_code(struct buf *out, const char *s)
{
	size_t run = 0, longest = 0;

	if (!s || !*s) {
		buf_puts(out, "-");
		return;
	}
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		buf_addc(out, '`');
	buf_addc(out, ' ');
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '|')
			buf_puts(out, "\\|");
		else
			put_byte(out, c);
	}
	buf_addc(out, ' ');
	for (size_t i = 0; i <= longest; i++)
		buf_addc(out, '`');
}

/* Plain text (titles we wrote, with machine values inside): escape markup characters. */
static void put_text(struct buf *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (strchr("\\`*_[]<>|#", c))
			buf_addc(out, '\\');
		put_byte(out, c);
	}
}

static void row(struct buf *out, const char *what, const char *value, const char *note)
{
	buf_printf(out, "| %s | ", what);
	put_code(out, value);
	buf_puts(out, " | ");
	if (note && note[0] == '/')
		put_code(out, note);
	else
		put_text(out, note ? note : "");
	buf_puts(out, " |\n");
}

static void versions(const struct inventory *inv, struct buf *out)
{
	char tmp[256];

	buf_puts(out, "| Component | Version | Where / how |\n|---|---|---|\n");
	for (size_t i = 0; i < inv->cuda.ndevices; i++) {
		const struct cuda_device *d = &inv->cuda.devices[i];

		snprintf(tmp, sizeof(tmp), "GPU %d", d->index);
		if (d->cc_major >= 0) {
			char cc[32];

			snprintf(cc, sizeof(cc), "compute capability %d.%d", d->cc_major, d->cc_minor);
			row(out, tmp, d->name, cc);
		} else {
			row(out, tmp, d->name, NULL);
		}
	}
	if (!inv->cuda.ndevices)
		for (size_t i = 0; i < inv->hw.ngpus; i++) {
			snprintf(tmp, sizeof(tmp), "10de:%04lx", (unsigned long)inv->hw.gpus[i].device);
			row(out, "GPU (PCI)", tmp, inv->hw.gpus[i].bdf);
		}
	row(out, "Linux kernel", inv->kernel.release, NULL);
	row(out, "nvidia kernel module", inv->driver.kernel_module_version, inv->driver.kernel_module_source);
	row(out, "NVML driver", inv->driver.nvml_live.driver_version, inv->driver.nvml_live.lib);
	if (inv->cuda.driver_version > 0) {
		snprintf(tmp, sizeof(tmp), "%d.%d", inv->cuda.driver_version / 1000,
			 (inv->cuda.driver_version % 1000) / 10);
		row(out, "CUDA driver API", tmp, inv->cuda.lib);
	} else {
		row(out, "libcuda.so.1", inv->driver.cuda.version, inv->driver.cuda.path);
	}
	for (size_t i = 0; i < inv->libs.nresolved; i++) {
		const struct lib_resolved *r = &inv->libs.resolved[i];
		const struct lib_copy *c = r->path ? libraries_copy_by_realpath(&inv->libs, r->realpath) : NULL;

		/* sonames of every major are asked for; only those found are facts */
		if (!r->path)
			continue;
		row(out, r->soname, c && c->version ? c->version : NULL, r->path);
	}
	for (size_t i = 0; i < inv->fw.n; i++) {
		const struct fw_entry *f = &inv->fw.fws[i];
		char note[512];

		/* the rules' verdict (rules/fw_verdict.h) */
		const char *pred = fw_prediction_id(fw_predict(f, NULL));

		snprintf(note, sizeof(note), "%s%s%s, Python %s, prediction: %s", f->env_prefix ? f->env_prefix : "?",
			 f->cuda_build ? ", built for CUDA " : "", f->cuda_build ? f->cuda_build : "",
			 f->python_version ? f->python_version : "?", pred ? pred : "?");
		row(out, f->name, f->version, note);
	}
}

static const char *mark(enum status s)
{
	switch (s) {
	case STATUS_OK: return "ok";
	case STATUS_WARN: return "WARN";
	case STATUS_FAIL: return "FAIL";
	case STATUS_SKIPPED: return "skip";
	case STATUS_BLOCKED: return "blocked";
	}
	return "?";
}

void render_markdown(const struct gd_ctx *ctx, const struct report *rep, const struct inventory *inv,
		     struct buf *out)
{
	size_t nfail = 0, nwarn = 0, nok = 0;
	const struct finding *first = NULL;

	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		nfail += f->status == STATUS_FAIL;
		nwarn += f->status == STATUS_WARN;
		nok += f->status == STATUS_OK;
	}
	for (int l = 0; l < LAYER_COUNT && !first; l++)
		for (size_t i = 0; i < rep->n && !first; i++)
			if (rep->findings[i].layer == (enum layer_id)l && rep->findings[i].status == STATUS_FAIL)
				first = &rep->findings[i];
	buf_puts(out, "**gpudoctor check:** ");
	if (first) {
		buf_printf(out, "FAIL at the %s layer: ", layer_name(first->layer));
		put_text(out, first->title);
		buf_printf(out, " (`%s`)", cause_id_str(first->cause) ? cause_id_str(first->cause) : "-");
	} else {
		buf_puts(out, "ok");
	}
	buf_printf(out, "; %zu failed, %zu warnings, %zu ok (gpudoctor %s, knowledge as of %s%s)\n\n", nfail, nwarn,
		   nok, GD_VERSION, rep->kb_as_of[0] ? rep->kb_as_of : "unknown",
		   ctx->no_load ? ", --no-load" : "");
	versions(inv, out);
	buf_printf(out, "\n<details><summary>Findings: %zu failed, %zu warnings, %zu ok</summary>\n\n", nfail,
		   nwarn, nok);
	buf_puts(out, "| Layer | Status | Summary |\n|---|---|---|\n");
	for (int l = 0; l < LAYER_COUNT; l++) {
		buf_printf(out, "| %s | %s | ", layer_name((enum layer_id)l), mark(rep->layers[l].status));
		put_text(out, rep->layers[l].summary);
		buf_puts(out, " |\n");
	}
	buf_addc(out, '\n');
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		if (f->status == STATUS_OK && !ctx->verbose)
			continue;
		buf_printf(out, "- **%s** %s: ", mark(f->status), layer_name(f->layer));
		put_text(out, f->title);
		if (f->cause != CAUSE_NONE)
			buf_printf(out, " (`%s`)", cause_id_str(f->cause));
		buf_addc(out, '\n');
		for (size_t k = 0; k < f->nevidence; k++) {
			buf_puts(out, "  - evidence: ");
			put_code(out, f->evidence[k]);
			buf_addc(out, '\n');
		}
		if (f->fix) {
			buf_puts(out, "  - fix: ");
			put_code(out, f->fix);
			buf_addc(out, '\n');
		}
	}
	if (!ctx->verbose && nok)
		buf_printf(out, "\n%zu passing checks not listed (gpudoctor -v check --format markdown lists them).\n",
			   nok);
	buf_puts(out, "\n</details>\n");
}
