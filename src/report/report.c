/* report.c - building the list of findings; see report.h. */
#include "report/report.h"
#include "core/buf.h"
#include "core/shquote.h"
#include "core/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < LAYER_COUNT; i++) {
		r->layers[i].status = STATUS_OK;
		r->layers[i].blocked_by = -1;
	}
}

void report_release(struct report *r)
{
	for (size_t i = 0; i < r->n; i++)
		finding_release(&r->findings[i]);
	free(r->findings);
	for (int i = 0; i < LAYER_COUNT; i++)
		free(r->layers[i].summary);
	memset(r, 0, sizeof(*r));
}

static struct finding *report_vadd(struct report *r, enum layer_id layer, const char *id,
				   enum status st, enum cause_id cause, const char *title_fmt,
				   va_list ap)
{
	struct finding *f;

	XGROW(r->findings, r->n, r->cap);
	f = &r->findings[r->n++];
	memset(f, 0, sizeof(*f));
	f->id = xstrdup(id);
	f->layer = layer;
	f->status = st;
	f->cause = cause;
	f->title = xvasprintf(title_fmt, ap);
	f->gpu = -1;
	return f;
}

enum status finding_status(enum cause_id cause, enum reach reach)
{
	const struct cause *c = cause_get(cause);

	/* A cause outside the catalogue is a programming error; it still
	   reports as a failure rather than vanishing as "ok". */
	return c ? severity_status(c->severity, reach) : STATUS_FAIL;
}

enum reach finding_xid_reach(enum kb_xid_action a)
{
	return a <= KB_XID_RESTART_APP ? REACH_LATENT : REACH_WORK;
}

enum cause_action finding_action(const struct finding *f)
{
	if (!(cause_flags(f->cause) & CF_XID_ACTION))
		return cause_action(f->cause);
	return f->xid_action == KB_XID_RESET_GPU || f->xid_action == KB_XID_REBOOT
		       ? CAUSE_ACT_REBOOT
		       : CAUSE_ACT_NONE;
}

enum status finding_node_status(const struct finding *f)
{
	if ((cause_flags(f->cause) & CF_IN_USE) && f->status == STATUS_FAIL)
		return STATUS_WARN;
	return f->status;
}

void finding_scope(struct finding *f, int gpu, const char *pci, const char *uuid)
{
	f->gpu = gpu < 0 ? -1 : gpu;
	free(f->pci);
	free(f->uuid);
	f->pci = pci && *pci ? xstrdup(pci) : NULL;
	f->uuid = uuid && *uuid ? xstrdup(uuid) : NULL;
}

void finding_scope_xid(struct finding *f, int xid, enum kb_xid_action action)
{
	f->xid = xid > 0 ? xid : 0;
	f->xid_action = action;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct finding *report_add_copy(struct report *r, const struct finding *src)
{
	struct finding *f;

	XGROW(r->findings, r->n, r->cap);
	f = &r->findings[r->n++];
	*f = *src;	/* the enums and numbers; what it owns is copied below */
	f->id = dup_or_null(src->id);
	f->title = xstrdup(src->title ? src->title : "");
	f->fix = dup_or_null(src->fix);
	f->pci = dup_or_null(src->pci);
	f->uuid = dup_or_null(src->uuid);
	f->evidence = NULL;
	f->nevidence = f->evidence_cap = 0;
	for (size_t k = 0; k < src->nevidence; k++) {
		XGROW(f->evidence, f->nevidence, f->evidence_cap);
		f->evidence[f->nevidence++] = xstrdup(src->evidence[k]);
	}
	return f;
}

void finding_release(struct finding *f)
{
	free(f->id);
	free(f->title);
	for (size_t k = 0; k < f->nevidence; k++)
		free(f->evidence[k]);
	free(f->evidence);
	free(f->fix);
	free(f->pci);
	free(f->uuid);
	memset(f, 0, sizeof(*f));
	f->gpu = -1;
}

struct finding *report_add(struct report *r, enum layer_id layer, const char *id,
			   enum cause_id cause, enum reach reach, const char *title_fmt, ...)
{
	enum status st = finding_status(cause, reach);
	struct finding *f;
	va_list ap;

	va_start(ap, title_fmt);
	f = report_vadd(r, layer, id, st, cause, title_fmt, ap);
	va_end(ap);
	return f;
}

struct finding *report_ok(struct report *r, enum layer_id layer, const char *id,
			  const char *title_fmt, ...)
{
	struct finding *f;
	va_list ap;

	va_start(ap, title_fmt);
	f = report_vadd(r, layer, id, STATUS_OK, CAUSE_NONE, title_fmt, ap);
	va_end(ap);
	return f;
}

struct finding *report_skip(struct report *r, enum layer_id layer, const char *id,
			    const char *title_fmt, ...)
{
	struct finding *f;
	va_list ap;

	va_start(ap, title_fmt);
	f = report_vadd(r, layer, id, STATUS_SKIPPED, CAUSE_NONE, title_fmt, ap);
	va_end(ap);
	return f;
}

void finding_evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	XGROW(f->evidence, f->nevidence, f->evidence_cap);
	va_start(ap, fmt);
	f->evidence[f->nevidence++] = xvasprintf(fmt, ap);
	va_end(ap);
}

void finding_fix(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->fix);
	va_start(ap, fmt);
	f->fix = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Markers: only their addresses matter. */
const char FIX_AND[] = " && ", FIX_OR[] = " || ", FIX_SEMI[] = "; ", FIX_PIPE[] = " | ";
const char FIX_GLUE[] = "<glue>", FIX_SH[] = "<sh>";

static int fix_is_op(const char *w)
{
	return w == FIX_AND || w == FIX_OR || w == FIX_SEMI || w == FIX_PIPE;
}

/* Appends one word (or marker) to the command being built. */
struct fixline {
	struct buf b;
	int glue, raw, after_op;
};

static void fixline_word(struct fixline *l, const char *w)
{
	if (fix_is_op(w)) {
		buf_puts(&l->b, w);
		l->after_op = 1;
		return;
	}
	if (w == FIX_GLUE) {
		l->glue = 1;
		return;
	}
	if (w == FIX_SH) {
		l->raw = 1;
		return;
	}
	if (l->b.len && !l->glue && !l->after_op)
		buf_addc(&l->b, ' ');
	if (l->raw)
		buf_puts(&l->b, w);
	else
		shquote_buf(&l->b, w);
	l->glue = l->raw = l->after_op = 0;
}

static void fixline_set(struct finding *f, struct fixline *l)
{
	free(f->fix);
	f->fix = buf_detach(&l->b);
}

void finding_fix_cmd(struct finding *f, const char *word, ...)
{
	struct fixline l = { BUF_INIT, 0, 0, 0 };
	va_list ap;

	va_start(ap, word);
	for (const char *w = word; w; w = va_arg(ap, const char *))
		fixline_word(&l, w);
	va_end(ap);
	fixline_set(f, &l);
}

void finding_fix_argv(struct finding *f, const char *const *words)
{
	struct fixline l = { BUF_INIT, 0, 0, 0 };

	for (; words && *words; words++)
		fixline_word(&l, *words);
	fixline_set(f, &l);
}

void fixwords_add(struct fixwords *w, const char *word)
{
	if (w->n + 2 > w->cap)
		XGROW(w->w, w->n + 1, w->cap);
	w->w[w->n++] = word;
	w->w[w->n] = NULL;
}

void fixwords_release(struct fixwords *w)
{
	free(w->w);
	*w = (struct fixwords)FIXWORDS_INIT;
}

void finding_fix_copy(struct finding *f, const char *fix)
{
	free(f->fix);
	f->fix = fix ? xstrdup(fix) : NULL;
}

void finding_fix_catalogue(struct finding *f)
{
	const char *fix = cause_fix(f->cause);

	free(f->fix);
	f->fix = fix ? xstrdup(fix) : NULL;
}

void finding_fix_note(struct finding *f, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	char *note;
	va_list ap;

	va_start(ap, fmt);
	note = xvasprintf(fmt, ap);
	va_end(ap);
	if (f->fix && *f->fix)
		buf_printf(&b, "%s  (%s)", f->fix, note);
	else
		buf_puts(&b, note);
	free(note);
	free(f->fix);
	f->fix = buf_detach(&b);
}

void report_set_summary(struct report *r, enum layer_id layer, const char *fmt, ...)
{
	va_list ap;

	free(r->layers[layer].summary);
	va_start(ap, fmt);
	r->layers[layer].summary = xvasprintf(fmt, ap);
	va_end(ap);
}

enum status report_layer_worst(const struct report *r, enum layer_id layer)
{
	enum status worst = STATUS_OK;
	size_t nf = 0, nskip = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct finding *f = &r->findings[i];

		if (f->layer != layer)
			continue;
		nf++;
		if (f->status == STATUS_SKIPPED)
			nskip++;
		else if (f->status > worst)
			worst = f->status;
	}
	if (nf && nf == nskip)
		return STATUS_SKIPPED;
	return worst;
}

void report_block(struct report *r, enum layer_id layer, enum layer_id by)
{
	r->layers[layer].status = STATUS_BLOCKED;
	r->layers[layer].blocked_by = (int)by;
	/*
	 * A blocked layer is not failed: what its static checks found is still
	 * shown, but as a warning, so that the one failure is the link that
	 * broke first.
	 */
	for (size_t i = 0; i < r->n; i++) {
		struct finding *f = &r->findings[i];

		if (f->layer != layer || f->status != STATUS_FAIL)
			continue;
		f->status = STATUS_WARN;
		finding_evidence(f, "shown as a warning: the %s layer below failed first",
				 layer_name(by));
	}
}

void report_finish(struct report *r)
{
	r->status = STATUS_OK;
	for (int l = 0; l < LAYER_COUNT; l++) {
		if (r->layers[l].status != STATUS_BLOCKED)
			r->layers[l].status = report_layer_worst(r, (enum layer_id)l);
	}
	for (size_t i = 0; i < r->n; i++) {
		if (r->findings[i].status == STATUS_FAIL)
			r->status = STATUS_FAIL;
		else if (r->findings[i].status == STATUS_WARN && r->status == STATUS_OK)
			r->status = STATUS_WARN;
	}
}

const struct finding *report_find_cause(const struct report *r, enum cause_id cause)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].cause == cause)
			return &r->findings[i];
	return NULL;
}
