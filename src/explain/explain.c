/*
 * explain.c - from hits to the explanation: decode captures, confirm each
 * cause, and order the items bottom-up (see explain.h).
 */
#include "explain/explain.h"

#include "core/xalloc.h"
#include "explain/confirm.h"
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
	switch (it->hit->rule->cls) {
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

		it->hit = h;
		it->layer = r->layer;
		for (size_t k = 0; k < r->ncaps; k++)
			it->decoded[k] = logdecode_line(kb, r->capnames[k], h->caps[k], h->text);
		for (size_t c = 0; c < r->ncauses; c++) {
			struct xcause *xc = &it->causes[it->ncauses++];
			const struct cause *cat = cause_get(r->causes[c]);

			xc->cause = r->causes[c];
			xc->id = cat ? cat->id : "?";
			xc->layer = cat ? (int)cat->layer : r->layer;
			xc->title = cat ? cat->title : NULL;
			confirm_cause(ci, h, xc);
		}
		switch (r->cls) {
		case LR_CAUSE: x->ncause_items++; break;
		case LR_SCOPE: x->nscope_items++; break;
		case LR_BENIGN: x->nbenign_items++; break;
		}
	}
	qsort(x->items, x->n, sizeof(*x->items), item_cmp);
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
