/*
 * explain.c - from hits to the explanation: decode captures, confirm each
 * cause, and order the items bottom-up (see explain.h).
 */
#include "explain/explain.h"

#include "core/xalloc.h"
#include "explain/confirm.h"
#include "explain/errcodes.h"
#include "explain/logdecode.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *xconf_name(enum xconf c)
{
	switch (c) {
	case XC_NOT_CHECKED: return "not-checked";
	case XC_CONFIRMED: return "confirmed";
	case XC_NOT_REPRODUCED: return "not-reproduced";
	case XC_CANNOT_TELL: return "cannot-tell";
	}
	return "?";
}

/* causes bottom-up by layer, then by first line; then scope, then benign */
static int item_rank(const struct xitem *it)
{
	switch (it->cls) {
	case LR_CAUSE: return it->layer;
	case LR_SCOPE: return LAYER_COUNT + 1;
	case LR_BENIGN: return LAYER_COUNT + 2;
	}
	return LAYER_COUNT + 3;
}

static int item_cmp(const void *a, const void *b)
{
	const struct xitem *x = a, *y = b;
	int rx = item_rank(x), ry = item_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->hit->first < y->hit->first ? -1 : x->hit->first > y->hit->first;
}

/*
 * The causes a hit names: the rule's, or for an "@errcode" rule those the
 * error-code table gives the captured name or number.
 */
static size_t rule_causes(const struct logmatch *m, const struct logrule *r,
			  const struct logmatch_hit *h, enum cause_id out[LR_MAX_CAUSES])
{
	const struct errcode *ec = NULL;
	size_t n = 0;

	if (!r->by_code) {
		/*
		 * A conditional cause by its evidence in the log (logrules.h); a
		 * guess falls when the log has the evidence of another guess, or
		 * of a cause that is named only on evidence ("?+"): the most
		 * specific evidence wins (nvidia-smi's "couldn't communicate" in
		 * a WSL log is WSL's, not a guess at nouveau or Secure Boot).
		 */
		int guess_seen = 0;

		for (size_t k = 0; k < r->ncauses; k++)
			guess_seen |= (r->cond[k].kind == LR_COND_GUESS || r->cond[k].kind == LR_COND_IF) &&
				      logmatch_cond_seen(m, &r->cond[k]);
		for (size_t k = 0; k < r->ncauses; k++) {
			int seen = logmatch_cond_seen(m, &r->cond[k]), keep = 1;

			switch (r->cond[k].kind) {
			case LR_COND_NONE: break;
			case LR_COND_GUESS: keep = seen || !guess_seen; break;
			case LR_COND_IF: keep = seen; break;
			case LR_COND_UNLESS: keep = !seen; break;
			}
			if (keep)
				out[n++] = r->causes[k];
		}
		return n;
	}
	for (size_t k = 0; k < r->ncaps && !ec; k++) {
		const char *v = h->caps[k], *name = r->capnames[k];
		int fam;

		if (!v || !*v || !name)
			continue;
		if (!strcmp(name, "err_name"))
			ec = errcode_by_name(v, strlen(v));
		else if ((fam = errcode_family_of_short_capture(name)) >= 0)
			ec = errcode_by_short_name((enum errcode_family)fam, v, strlen(v));
		else if ((fam = errcode_family_of_capture(name)) >= 0)
			ec = errcode_by_number((enum errcode_family)fam, strtol(v, NULL, 10));
	}
	for (size_t k = 0; ec && k < sizeof(ec->causes) / sizeof(ec->causes[0]) && ec->causes[k] != CAUSE_NONE &&
	     n < LR_MAX_CAUSES; k++)
		out[n++] = ec->causes[k];
	return n;
}

/*
 * Values that mean something only together: PyTorch's out-of-memory numbers.
 * They also decide the cause: when this process itself holds the memory
 * (or much is free), nothing else holds it and the job does not fit, which
 * is the script's scope, not the stack's (returns 1: drop the causes).
 */
static int decode_together(struct xitem *it, const struct logrule *r, const struct logmatch_hit *h)
{
	const char *v[4] = { NULL, NULL, NULL, NULL };
	static const char *const names[4] = { "oom_total", "oom_allocated", "oom_free", "oom_reserved" };
	char *own = NULL;
	size_t at = 0;
	int drop;

	for (size_t k = 0; k < r->ncaps; k++)
		for (int q = 0; q < 4; q++)
			if (r->capnames[k] && !strcmp(r->capnames[k], names[q])) {
				v[q] = h->caps[k];
				if (q == 2)
					at = k + 1;
			}
	if (!at || !v[0] || !v[1] || !v[2])
		return 0;
	/* PyTorch 2.x without per-process numbers (Windows): the job's memory
	 * is what PyTorch allocated plus what it reserved and left unallocated */
	if (v[3] && logdecode_size(v[1]) >= 0 && logdecode_size(v[3]) >= 0)
		v[1] = own = xasprintf("%.0f bytes", logdecode_size(v[1]) + logdecode_size(v[3]));
	if (!it->decoded[at - 1])
		it->decoded[at - 1] = logdecode_oom(v[0], v[1], v[2]);
	drop = logdecode_oom_verdict(v[0], v[1], v[2]) == OOM_OWN;
	free(own);
	return drop;
}

static int item_confirmed(const struct xitem *it)
{
	for (size_t c = 0; c < it->ncauses; c++)
		if (it->causes[c].conf == XC_CONFIRMED)
			return 1;
	return 0;
}

/*
 * Most specific first: a confirmed cause outranks an unchecked one; a cause
 * outranks a restated symptom; a message that points to one cause ("Key was
 * rejected by service") outranks one that points to several ("NVIDIA-SMI
 * has failed ..."); then the rule's priority, then the lower layer (the
 * items are sorted by layer).
 */
/*
 * Causes that restate a failure rather than explain it ("cuInit failed"):
 * any other cause in the log is more specific than these.
 */
static int symptom_only(const struct xitem *it)
{
	static const enum cause_id symptoms[] = { CAUSE_CUDA_INIT_FAILED, CAUSE_GPU_COMPUTE_FAILED,
						  CAUSE_NCCL_CALL_FAILED, CAUSE_CUDNN_CALL_FAILED,
						  CAUSE_GPU_XID_ERROR };

	for (size_t c = 0; c < it->ncauses; c++) {
		int symptom = 0;

		for (size_t s = 0; s < sizeof(symptoms) / sizeof(symptoms[0]); s++)
			symptom |= it->causes[c].cause == symptoms[s];
		if (!symptom)
			return 0;
	}
	return 1;
}

static int more_specific(const struct xitem *a, const struct xitem *b)
{
	if (item_confirmed(a) != item_confirmed(b))
		return item_confirmed(a);
	if (symptom_only(a) != symptom_only(b))
		return !symptom_only(a);
	if (a->ncauses != b->ncauses)
		return a->ncauses < b->ncauses;
	return a->hit->rule->prio < b->hit->rule->prio;
}

static void pick_primary(struct explanation *x)
{
	const struct xitem *best = NULL;

	for (size_t i = 0; i < x->n; i++) {
		const struct xitem *it = &x->items[i];

		if (it->cls == LR_CAUSE && it->ncauses && (!best || more_specific(it, best)))
			best = it;
	}
	x->primary_item = best;
	x->primary = NULL;
	for (size_t c = 0; best && c < best->ncauses && !x->primary; c++)
		if (best->causes[c].conf == XC_CONFIRMED)
			x->primary = &best->causes[c];
	if (best && !x->primary)
		x->primary = &best->causes[0];
}

void explanation_build(struct explanation *x, const struct logmatch *m, const struct kb *kb,
		       const struct confirm_in *ci)
{
	snprintf(x->kb_as_of, sizeof(x->kb_as_of), "%s", kb && kb_as_of(kb) ? kb_as_of(kb) : "");
	x->lines_seen = m->lines_seen;
	x->input_lines = m->input_lines;
	x->dropped = m->dropped;
	x->live = ci != NULL;
	x->items = xcalloc(m->nhits + 1, sizeof(*x->items));
	x->n = m->nhits;
	for (size_t i = 0; i < m->nhits; i++) {
		struct xitem *it = &x->items[i];
		const struct logmatch_hit *h = &m->hits[i];
		const struct logrule *r = h->rule;
		enum cause_id causes[LR_MAX_CAUSES];
		size_t ncauses;

		it->hit = h;
		it->cls = r->cls;
		it->layer = r->layer;
		for (size_t k = 0; k < r->ncaps; k++)
			it->decoded[k] = logdecode_line(kb, r->capnames[k], h->caps[k], h->text);
		ncauses = rule_causes(m, r, h, causes);
		if (decode_together(it, r, h)) {
			it->cls = LR_SCOPE;
			it->layer = -1;
			ncauses = 0;
		}
		for (size_t c = 0; c < ncauses; c++) {
			struct xcause *xc = &it->causes[it->ncauses++];
			const struct cause *cat = cause_get(causes[c]);

			xc->cause = causes[c];
			xc->id = cat ? cat->id : "?";
			xc->layer = cat ? (int)cat->layer : r->layer;
			xc->title = cat ? cat->title : NULL;
			confirm_cause(ci, h, xc);
		}
		switch (it->cls) {
		case LR_CAUSE: x->ncause_items++; break;
		case LR_SCOPE: x->nscope_items++; break;
		case LR_BENIGN: x->nbenign_items++; break;
		}
	}
	qsort(x->items, x->n, sizeof(*x->items), item_cmp);
	pick_primary(x);
}

void explanation_release(struct explanation *x)
{
	for (size_t i = 0; i < x->n; i++) {
		struct xitem *it = &x->items[i];

		for (size_t k = 0; k < LR_MAX_CAPS; k++)
			free(it->decoded[k]);
		for (size_t c = 0; c < it->ncauses; c++) {
			for (size_t e = 0; e < it->causes[c].nevidence; e++)
				free(it->causes[c].evidence[e]);
			free(it->causes[c].evidence);
			free(it->causes[c].fix);
		}
	}
	free(x->items);
	memset(x, 0, sizeof(*x));
}

int explanation_exit(const struct explanation *x)
{
	return x->ncause_items || x->nscope_items ? 0 : 3;
}
