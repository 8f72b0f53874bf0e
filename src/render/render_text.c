/*
 * render_text.c - the report for people: one block per layer, one line per
 * check with a mark, and evidence and fix under anything that is not ok.
 * Ok findings are listed too (one line each) so a healthy report shows what
 * was verified; -v adds their evidence.
 */
#include "render/render.h"
#include "report/report.h"
#include "core/ctx.h"
#include "core/termesc.h"

#include <string.h>

#define C_RESET "\033[0m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_RED "\033[31m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"

static const char *status_color(enum status s)
{
	switch (s) {
	case STATUS_OK: return C_GREEN;
	case STATUS_WARN: return C_YELLOW;
	case STATUS_FAIL: return C_RED;
	case STATUS_SKIPPED:
	case STATUS_BLOCKED: return C_DIM;
	}
	return "";
}

static const char *status_mark(enum status s)
{
	switch (s) {
	case STATUS_OK: return " ok ";
	case STATUS_WARN: return "WARN";
	case STATUS_FAIL: return "FAIL";
	case STATUS_SKIPPED: return "skip";
	case STATUS_BLOCKED: return "----";
	}
	return "????";
}

static void put_mark(const struct gd_ctx *ctx, struct buf *out, enum status s)
{
	if (ctx->use_color)
		buf_printf(out, "[%s%s%s]", status_color(s), status_mark(s), C_RESET);
	else
		buf_printf(out, "[%s]", status_mark(s));
}

/* The one line a person reads first: the first broken link, or ok. */
static void render_result_line(const struct report *rep, struct buf *out)
{
	size_t nwarn = 0;

	for (int l = 0; l < LAYER_COUNT; l++) {
		if (rep->layers[l].status != STATUS_FAIL)
			continue;
		for (size_t i = 0; i < rep->n; i++) {
			const struct finding *f = &rep->findings[i];

			if (f->layer != (enum layer_id)l || f->status != STATUS_FAIL)
				continue;
			buf_printf(out, "\nresult: FAIL at the %s layer: %s%s%s%s\n", layer_name(f->layer),
				   tesc(f->title), f->cause ? " (" : "", f->cause ? cause_id_str(f->cause) : "",
				   f->cause ? ")" : "");
			if (l + 1 < LAYER_COUNT && rep->layers[l + 1].status == STATUS_BLOCKED)
				buf_puts(out, "        the layers above it are blocked until this is fixed\n");
			return;
		}
	}
	for (size_t i = 0; i < rep->n; i++)
		nwarn += rep->findings[i].status == STATUS_WARN;
	if (nwarn)
		buf_printf(out, "\nresult: ok, with %zu warning%s\n", nwarn, nwarn == 1 ? "" : "s");
	else
		buf_puts(out, "\nresult: ok\n");
}

void render_text(const struct gd_ctx *ctx, const struct report *rep,
		 const struct inventory *inv, struct buf *out)
{
	(void)inv;
	buf_printf(out, "gpudoctor %s: checking the GPU stack of %s%s\n", GD_VERSION,
		   strcmp(ctx->root, "/") ? "the tree " : "this machine",
		   strcmp(ctx->root, "/") ? tesc(ctx->root) : "");
	if (ctx->no_load_implied)
		buf_puts(out, "(--root: static facts only; nothing from the tree was loaded or run;\n"
			 " --load-from-root loads its libraries in isolated children)\n");
	else if (ctx->no_load)
		buf_puts(out, "(--no-load: static facts only; nothing was loaded or run)\n");
	for (int l = 0; l < LAYER_COUNT; l++) {
		const struct layer_result *lr = &rep->layers[l];

		buf_addc(out, '\n');
		put_mark(ctx, out, lr->status);
		buf_printf(out, " %s%-10s%s", ctx->use_color ? C_BOLD : "",
			   layer_name((enum layer_id)l), ctx->use_color ? C_RESET : "");
		if (lr->status == STATUS_BLOCKED && lr->blocked_by >= 0)
			buf_printf(out, " blocked by %s", layer_name((enum layer_id)lr->blocked_by));
		if (lr->summary)
			buf_printf(out, "%s%s", lr->status == STATUS_BLOCKED ? ": " : " ", tesc(lr->summary));
		buf_addc(out, '\n');
		for (size_t i = 0; i < rep->n; i++) {
			const struct finding *f = &rep->findings[i];
			int detail = f->status == STATUS_WARN || f->status == STATUS_FAIL ||
				     ctx->verbose > 0;

			if (f->layer != (enum layer_id)l)
				continue;
			buf_puts(out, "    ");
			put_mark(ctx, out, f->status);
			buf_printf(out, " %s", tesc(f->title));
			if (f->cause)
				buf_printf(out, "  %s(%s)%s", ctx->use_color ? C_DIM : "", cause_id_str(f->cause),
					   ctx->use_color ? C_RESET : "");
			buf_addc(out, '\n');
			if (!detail && f->status != STATUS_SKIPPED)
				continue;
			for (size_t k = 0; k < f->nevidence; k++)
				buf_printf(out, "           %s %s\n", k ? "        " : "evidence:",
					   tesc(f->evidence[k]));
			if (f->fix && f->status != STATUS_OK)
				buf_printf(out, "           fix:      %s\n", tesc(f->fix));
		}
	}
	if (ctx->verbose > 0) {
		buf_puts(out, "\ntime per layer (ms):");
		for (int l = 0; l < LAYER_COUNT; l++)
			buf_printf(out, " %s %.1f", layer_name((enum layer_id)l), rep->layer_ms[l]);
		buf_printf(out, "; total %.1f\n", rep->total_ms);
	}
	render_result_line(rep, out);
}
