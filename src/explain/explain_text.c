/*
 * explain_text.c - the explanation for people: one block per layer, lowest
 * first, each match with its line numbers, what it means, each cause with
 * what this machine says and the fix; then what is outside gpudoctor's
 * scope and what is harmless.  Every value from the log or the machine is
 * escaped for the terminal (core/termesc.h).
 */
#include "explain/explain.h"

#include "core/termesc.h"
#include "report/report.h"

#include <stdio.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_RED "\033[31m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"

static const char *conf_color(enum xconf c)
{
	switch (c) {
	case XC_CONFIRMED: return C_RED;
	case XC_NOT_REPRODUCED: return C_GREEN;
	case XC_CANNOT_TELL: return C_YELLOW;
	case XC_NOT_CHECKED: return C_DIM;
	}
	return "";
}

static const char *conf_words(enum xconf c)
{
	switch (c) {
	case XC_CONFIRMED: return "confirmed here";
	case XC_NOT_REPRODUCED: return "not reproduced here";
	case XC_CANNOT_TELL: return "cannot tell here";
	case XC_NOT_CHECKED: return "not checked (--no-live)";
	}
	return "?";
}

static void put_lines(const struct logmatch_hit *h, struct buf *out)
{
	if (h->count == 1) {
		buf_printf(out, "line %ld", h->first);
		return;
	}
	buf_printf(out, "lines %ld", h->lines[0]);
	for (size_t i = 1; i < h->nlines; i++)
		buf_printf(out, ", %ld", h->lines[i]);
	if ((long)h->nlines < h->count)
		buf_printf(out, " ... %ld (%ld times)", h->last, h->count);
}

/* Continuation lines of a multi-line value indented under its label. */
static void put_block(struct buf *out, const char *label, const char *s)
{
	buf_printf(out, "      %-9s ", label);
	if (!s || !*s) {
		buf_addc(out, '\n');
		return;
	}
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char tmp[4096];

		if (n >= sizeof(tmp))
			n = sizeof(tmp) - 1;
		memcpy(tmp, p, n);
		tmp[n] = 0;
		termesc_buf(out, tmp);
		buf_addc(out, '\n');
		if (!nl)
			return;
		p = nl + 1;
		if (*p)
			buf_printf(out, "      %-9s ", "");
	}
}

static void render_item(const struct xitem *it, int color, struct buf *out)
{
	const struct logmatch_hit *h = it->hit;
	const struct logrule *r = h->rule;

	buf_puts(out, "  ");
	put_lines(h, out);
	buf_puts(out, ": ");
	if (color)
		buf_puts(out, C_BOLD);
	termesc_buf(out, h->text);
	if (color)
		buf_puts(out, C_RESET);
	buf_printf(out, "\n      %-9s %s\n", "rule", r->id);
	if (h->frames)
		put_block(out, "frames", h->frames);
	if (r->says)
		put_block(out, "means", r->says);
	for (size_t k = 0; k < r->ncaps; k++) {
		char label[40];

		if (!h->caps[k] || !*h->caps[k] || !strcmp(r->capnames[k], "-"))
			continue;
		snprintf(label, sizeof(label), "%s", r->capnames[k]);
		buf_printf(out, "      %-9s ", label);
		termesc_buf(out, h->caps[k]);
		if (it->decoded[k]) {
			buf_puts(out, " = ");
			termesc_buf(out, it->decoded[k]);
		}
		buf_addc(out, '\n');
	}
	for (size_t c = 0; c < it->ncauses; c++) {
		const struct xcause *xc = &it->causes[c];

		buf_printf(out, "      %-9s %s", "cause", xc->id);
		if (xc->title)
			buf_printf(out, ": %s", xc->title);
		buf_addc(out, '\n');
		buf_printf(out, "      %-9s ", "here");
		if (color)
			buf_puts(out, conf_color(xc->conf));
		buf_puts(out, conf_words(xc->conf));
		if (color)
			buf_puts(out, C_RESET);
		buf_addc(out, '\n');
		for (size_t e = 0; e < xc->nevidence; e++)
			put_block(out, "", xc->evidence[e]);
		if (xc->fix)
			put_block(out, xc->fix_is_machine ? "fix" : "fix", xc->fix);
	}
}

void explain_render_text(const struct explanation *x, int color, struct buf *out)
{
	int section = -1;

	buf_puts(out, "gpudoctor explain: ");
	termesc_buf(out, x->input ? x->input : "-");
	buf_printf(out, ": %ld lines read, %ld after normalising; %zu stack message%s, %zu outside "
		   "gpudoctor's scope, %zu harmless\n",
		   x->input_lines, x->lines_seen, x->ncause_items, x->ncause_items == 1 ? "" : "s",
		   x->nscope_items, x->nbenign_items);
	if (x->live_note) {
		buf_puts(out, "confirmation: ");
		termesc_buf(out, x->live_note);
		buf_addc(out, '\n');
	}
	for (size_t i = 0; i < x->n; i++) {
		const struct xitem *it = &x->items[i];
		int sec;

		switch (it->cls) {
		case LR_CAUSE: sec = it->layer; break;
		case LR_SCOPE: sec = LAYER_COUNT + 1; break;
		default: sec = LAYER_COUNT + 2; break;
		}
		if (sec != section) {
			section = sec;
			buf_addc(out, '\n');
			if (color)
				buf_puts(out, C_BOLD);
			if (sec < LAYER_COUNT)
				buf_printf(out, "%s layer", layer_name((enum layer_id)sec));
			else if (sec == LAYER_COUNT + 1)
				buf_puts(out, "outside gpudoctor's scope (not a GPU stack problem)");
			else
				buf_puts(out, "harmless (looks like an error, is not one)");
			if (color)
				buf_puts(out, C_RESET);
			buf_addc(out, '\n');
		}
		render_item(it, color, out);
	}
	if (x->dropped)
		buf_printf(out, "\n(%ld more matching lines with other values were counted, not listed)\n",
			   x->dropped);
	buf_addc(out, '\n');
	if (!x->ncause_items && !x->nscope_items) {
		buf_puts(out, "result: no rule matched: gpudoctor cannot explain this log (it does not "
			      "guess).\n        Run 'gpudoctor check' to verify the stack on this machine.\n");
		return;
	}
	if (!x->ncause_items) {
		buf_puts(out, "result: the failure is outside gpudoctor's scope (see above); the GPU stack "
			      "is not implicated by this log\n");
		return;
	}
	const struct xitem *lowest = NULL;

	for (size_t i = 0; i < x->n && !lowest; i++) {
		const struct xitem *it = &x->items[i];

		if (it->cls != LR_CAUSE || !it->ncauses)
			continue;
		lowest = it;
		buf_printf(out, "result: the lowest broken link in this log is at the %s layer: %s (%s)\n",
			   layer_name((enum layer_id)it->layer), it->causes[0].id,
			   conf_words(it->causes[0].conf));
	}
	/* cause messages that name no cause: an unknown error number, or conditions that dropped them all */
	for (size_t i = 0; i < x->n && !lowest; i++)
		if (x->items[i].cls == LR_CAUSE) {
			buf_printf(out, "result: the lowest failure in this log is at the %s layer (line %ld); the "
					"log does not tell its cause\n",
				   layer_name((enum layer_id)x->items[i].layer), x->items[i].hit->first);
			break;
		}
	if (x->primary && lowest && strcmp(x->primary->id, lowest->causes[0].id))
		buf_printf(out, "        the most specific evidence (line %ld) points to %s (%s)\n",
			   x->primary_item->hit->first, x->primary->id, conf_words(x->primary->conf));
}
