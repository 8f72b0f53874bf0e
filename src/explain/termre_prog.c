/*
 * termre_prog.c - a part of a term regex (a tree from termre_parse.c)
 * compiled for termre.c's machine, forwards or backwards: the program, the
 * bytes a pass may start at, alternatives that begin alike factored, and
 * the one length of a part whose matches all have it.
 */
#include "explain/termre_int.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- first bytes: where a pass may start (over-approximated: a wider set only costs time) ---- */

struct fb {
	uint8_t b0[32], b1[32];
	int len;	/* bit 0: a match can be 0 bytes long, bit 1: 1 byte, bit 2: 2 or more */
};

static int len_sum(int a, int b)
{
	int r = 0;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if ((a >> i & 1) && (b >> j & 1))
				r |= 1 << (i + j > 2 ? 2 : i + j);
	return r;
}

static void fb_cat(struct fb *r, const struct fb *a, const struct fb *b)
{
	struct fb o;

	for (int i = 0; i < 32; i++) {
		o.b0[i] = a->b0[i] | ((a->len & 1) ? b->b0[i] : 0);
		o.b1[i] = a->b1[i] | ((a->len & 2) ? b->b0[i] : 0) | ((a->len & 1) ? b->b1[i] : 0);
	}
	o.len = len_sum(a->len, b->len);
	*r = o;
}

static void fb_of(const struct tr_parser *P, int id, int rev, struct fb *r)
{
	const struct tr_anode *n = &P->n[id];
	struct fb k, star;

	memset(r, 0, sizeof(*r));
	switch (n->type) {
	case AN_SET:
		memcpy(r->b0, P->sets[n->set], 32);
		r->len = 2;
		return;
	case AN_BOL:
	case AN_EOL:
	case AN_WB:
		r->len = 1;
		return;
	case AN_CAT:
		r->len = 1;
		for (int i = 0; i < n->nkids; i++) {
			fb_of(P, P->kids[n->kid0 + (rev ? n->nkids - 1 - i : i)], rev, &k);
			fb_cat(r, r, &k);
		}
		return;
	case AN_ALT:
		for (int i = 0; i < n->nkids; i++) {
			fb_of(P, P->kids[n->kid0 + i], rev, &k);
			for (int j = 0; j < 32; j++) {
				r->b0[j] |= k.b0[j];
				r->b1[j] |= k.b1[j];
			}
			r->len |= k.len;
		}
		return;
	default:	/* AN_REP */
		fb_of(P, P->kids[n->kid0], rev, &k);
		r->len = 1;
		for (int i = 0; i < n->min && i < 3; i++)
			fb_cat(r, r, &k);
		if (n->max < 0 || n->max > n->min) {
			memcpy(star.b0, k.b0, 32);
			for (int j = 0; j < 32; j++)
				star.b1[j] = k.b1[j] | ((k.len & 2) ? k.b0[j] : 0);
			star.len = 1 | (k.len & 2) | ((k.len & 6) ? 4 : 0);
			fb_cat(r, r, &star);
		}
		return;
	}
}

/* ---- programs ---- */

static int emit(struct tr_parser *P, struct tr_prog *g, int op, int32_t x, int32_t y)
{
	if (g->n >= TERMRE_MAX_PROG)
		return termre_parse_fail(P, "a term regex too large for the vocabulary tier's matcher");
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		g->in = xrealloc(g->in, g->cap * sizeof(*g->in));
	}
	g->in[g->n].op = (uint8_t)op;
	g->in[g->n].x = x;
	g->in[g->n].y = y;
	return (int)g->n++;
}

static void altv_push(struct tr_prog *g, int32_t v)
{
	if (g->naltv == g->altcap) {
		g->altcap = g->altcap ? g->altcap * 2 : 512;
		g->altv = xrealloc(g->altv, g->altcap * sizeof(*g->altv));
	}
	g->altv[g->naltv++] = v;
}

static int gen(struct tr_parser *P, struct tr_prog *g, int id, int rev)
{
	const struct tr_anode *n = &P->n[id];
	int at, kid;

	switch (n->type) {
	case AN_SET:
		return emit(P, g, TR_SET, n->set, 0) < 0 ? -1 : 0;
	case AN_BOL:
		return emit(P, g, TR_BOL, 0, 0) < 0 ? -1 : 0;
	case AN_EOL:
		return emit(P, g, TR_EOL, 0, 0) < 0 ? -1 : 0;
	case AN_WB:
		return emit(P, g, TR_WB, 0, 0) < 0 ? -1 : 0;
	case AN_CAT:
		for (int i = 0; i < n->nkids; i++)
			if (gen(P, g, P->kids[n->kid0 + (rev ? n->nkids - 1 - i : i)], rev) < 0)
				return -1;
		return 0;
	case AN_ALT: {
		/* on the heap: groups nest 32 deep, and so does this frame */
		int32_t *start = xmalloc((size_t)n->nkids * sizeof(*start));
		int32_t *jmp = xmalloc((size_t)n->nkids * sizeof(*jmp));
		struct fb *f = xmalloc((size_t)n->nkids * sizeof(*f));
		int nk = n->nkids, rc = -1;
		int32_t tab;

		if ((at = emit(P, g, TR_ALTN, 0, 0)) < 0)
			goto alt_done;
		for (int i = 0; i < nk; i++) {
			kid = P->kids[P->n[id].kid0 + i];
			fb_of(P, kid, rev, &f[i]);
			start[i] = (int32_t)g->n;
			if (gen(P, g, kid, rev) < 0 || (jmp[i] = emit(P, g, TR_JMP, 0, 0)) < 0)
				goto alt_done;
		}
		for (int i = 0; i < nk; i++)
			g->in[jmp[i]].x = (int32_t)g->n;
		/* the table: per byte (256: the edge), the alternatives that can begin there */
		tab = (int32_t)g->naltv;
		for (int c = 0; c < 258; c++)
			altv_push(g, 0);
		for (int c = 0; c <= 256; c++) {
			g->altv[tab + c] = (int32_t)g->naltv;
			for (int i = 0; i < nk; i++)
				if ((f[i].len & 1) || (c < 256 && tr_in_set(f[i].b0, (unsigned)c)))
					altv_push(g, start[i]);
		}
		g->altv[tab + 257] = (int32_t)g->naltv;
		g->in[at].x = tab;
		rc = 0;
	alt_done:
		free(start);
		free(jmp);
		free(f);
		return rc;
	}
	default: {	/* AN_REP */
		int32_t loop, split, splits[256];
		int ns = 0;

		kid = P->kids[n->kid0];
		for (int i = 0; i < n->min; i++)
			if (gen(P, g, kid, rev) < 0)
				return -1;
		if (n->max < 0) {
			if ((loop = emit(P, g, TR_SPLIT, 0, 0)) < 0)
				return -1;
			g->in[loop].x = loop + 1;
			if (gen(P, g, kid, rev) < 0 || emit(P, g, TR_JMP, loop, 0) < 0)
				return -1;
			g->in[loop].y = (int32_t)g->n;
			return 0;
		}
		for (int i = n->min; i < n->max; i++) {
			if ((split = emit(P, g, TR_SPLIT, 0, 0)) < 0)
				return -1;
			g->in[split].x = split + 1;
			splits[ns++] = split;
			if (gen(P, g, kid, rev) < 0)
				return -1;
		}
		for (int i = 0; i < ns; i++)
			g->in[splits[i]].y = (int32_t)g->n;
		return 0;
	}
	}
}

/*
 * The consuming instructions reachable from pc without consuming (assertions
 * taken as passed: a wider set only costs time) into out; *match when the
 * end is.
 */
static void closure(const struct tr_prog *g, int32_t pc, uint8_t *seen, int32_t *out, size_t *nout,
		    int *match)
{
	const struct tr_inst *in;

	if (seen[pc])
		return;
	seen[pc] = 1;
	in = &g->in[pc];
	switch (in->op) {
	case TR_SET:
		out[(*nout)++] = pc;
		return;
	case TR_MATCH:
		*match = 1;
		return;
	case TR_JMP:
		closure(g, in->x, seen, out, nout, match);
		return;
	case TR_SPLIT:
		closure(g, in->x, seen, out, nout, match);
		closure(g, in->y, seen, out, nout, match);
		return;
	case TR_ALTN:
		for (int32_t k = g->altv[in->x]; k < g->altv[in->x + 257]; k++)
			closure(g, g->altv[k], seen, out, nout, match);
		return;
	default:
		closure(g, pc + 1, seen, out, nout, match);
		return;
	}
}

/* The bytes a match can begin with, one and two at a time (struct tr_prog). */
static void first_pairs(const struct tr_parser *P, struct tr_prog *g)
{
	uint8_t *seen = xcalloc(g->n, 1);
	int32_t *first = xmalloc(g->n * sizeof(*first)), *second = xmalloc(g->n * sizeof(*second));
	size_t nf = 0;
	int m = 0;

	closure(g, 0, seen, first, &nf, &m);
	g->len0 = m;
	for (size_t i = 0; i < nf; i++) {
		const uint8_t *s1 = P->sets[g->in[first[i]].x];
		uint8_t row[32] = { 0 };
		size_t ns = 0;
		int one = 0;

		memset(seen, 0, g->n);
		closure(g, first[i] + 1, seen, second, &ns, &one);
		for (size_t k = 0; k < ns; k++)
			for (int j = 0; j < 32; j++)
				row[j] |= P->sets[g->in[second[k]].x][j];
		for (unsigned c = 0; c < 256; c++) {
			if (!tr_in_set(s1, c))
				continue;
			g->one[c] |= (uint8_t)one;
			for (int j = 0; j < 32; j++)
				g->pair[c][j] |= row[j];
		}
	}
	for (unsigned c = 0; c < 256; c++) {
		g->first[c] = g->one[c];
		for (int j = 0; j < 32; j++)
			g->first[c] |= g->pair[c][j] != 0;
	}
	free(seen);
	free(first);
	free(second);
}

int termre_prog_build(struct tr_parser *P, struct tr_prog *g, int id, int rev)
{
	memset(g, 0, sizeof(*g));
	if (gen(P, g, id, rev) < 0 || emit(P, g, TR_MATCH, 0, 0) < 0)
		return -1;
	g->slot = xmalloc(g->n * sizeof(*g->slot));
	for (size_t i = 0; i < g->n; i++)
		g->slot[i] = i == 0 ? 0 : -1;
	for (size_t i = 0; i < g->n; i++) {
		const struct tr_inst *in = &g->in[i];

		if (in->op == TR_JMP || in->op == TR_SPLIT)
			g->slot[in->x] = 0;
		if (in->op == TR_SPLIT)
			g->slot[in->y] = 0;
		if (in->op == TR_ALTN)
			for (int32_t k = g->altv[in->x]; k < g->altv[in->x + 257]; k++)
				g->slot[g->altv[k]] = 0;
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->slot[i] == 0)
			g->slot[i] = (int32_t)g->nslots++;
	first_pairs(P, g);
	return 0;
}

/* ---- left-factoring: alternatives that begin alike are tried once ---- */

static int is_head(const struct tr_parser *P, int id)
{
	uint8_t t = P->n[id].type;

	return t == AN_SET || t == AN_WB || t == AN_BOL || t == AN_EOL;
}

static int same_head(const struct tr_parser *P, int a, int b)
{
	uint8_t t = P->n[a].type;

	if (t != P->n[b].type)
		return 0;
	return t != AN_SET || !memcmp(P->sets[P->n[a].set], P->sets[P->n[b].set], 32);
}

/* The first element of kid in the direction of the pass, when it is a byte set or an assertion; its rest in *tail. */
static int split_head(struct tr_parser *P, int kid, int rev, int *tail)
{
	int nk, k0, head, t;

	*tail = -1;
	if (P->n[kid].type != AN_CAT)
		return -1;
	nk = P->n[kid].nkids;
	k0 = P->n[kid].kid0;
	head = P->kids[k0 + (rev ? nk - 1 : 0)];
	if (!is_head(P, head))
		return -1;
	if (nk == 2) {
		*tail = P->kids[k0 + (rev ? 0 : 1)];
		return head;
	}
	if ((t = termre_parse_node(P, AN_CAT)) < 0)
		return -2;
	P->n[t].kid0 = rev ? k0 : k0 + 1;	/* the same kids, one fewer: a slice of the same array */
	P->n[t].nkids = nk - 1;
	*tail = t;
	return head;
}

/*
 * "gres|grid" as "gr(es|id)" (backwards: on common last elements), so the
 * machine tries a shared beginning once instead of once per alternative
 * (cgroup's five alternatives began "cgroup").  The language is the same;
 * only existence is asked, so the order of alternatives does not matter.
 * Returns the node to compile, id itself when nothing changed, -1 on error.
 */
int termre_prog_factor(struct tr_parser *P, int id, int rev)
{
	int type = P->n[id].type, nk = P->n[id].nkids, k0 = P->n[id].kid0, changed = 0, r = -1;
	int *ks, *out, *tails, *heads, *rest;
	size_t nout = 0;

	if (type != AN_CAT && type != AN_ALT && type != AN_REP)
		return id;
	ks = xmalloc((size_t)nk * 5 * sizeof(*ks));
	out = ks + nk;
	tails = out + nk;
	heads = tails + nk;
	rest = heads + nk;
	for (int i = 0; i < nk; i++) {
		if ((ks[i] = termre_prog_factor(P, P->kids[k0 + i], rev)) < 0)
			goto done;
		changed |= ks[i] != P->kids[k0 + i];
	}
	if (type == AN_ALT) {
		/* each alternative's head and tail, once */
		for (int i = 0; i < nk; i++)
			if ((heads[i] = split_head(P, ks[i], rev, &rest[i])) == -2)
				goto done;
		for (int i = 0; i < nk; i++) {
			int n = 0, alt, cat, pair[2];

			if (ks[i] < 0)
				continue;
			if (heads[i] >= 0) {
				tails[n++] = rest[i];
				for (int j = i + 1; j < nk; j++)
					if (ks[j] >= 0 && heads[j] >= 0 && same_head(P, heads[i], heads[j])) {
						tails[n++] = rest[j];
						ks[j] = -1;
					}
			}
			if (n < 2) {
				out[nout++] = ks[i];
				continue;
			}
			if ((alt = termre_parse_node(P, AN_ALT)) < 0)
				goto done;
			P->n[alt].kid0 = termre_parse_kids(P, tails, (size_t)n);
			P->n[alt].nkids = n;
			if ((alt = termre_prog_factor(P, alt, rev)) < 0 || (cat = termre_parse_node(P, AN_CAT)) < 0)
				goto done;
			pair[rev ? 1 : 0] = heads[i];
			pair[rev ? 0 : 1] = alt;
			P->n[cat].kid0 = termre_parse_kids(P, pair, 2);
			P->n[cat].nkids = 2;
			out[nout++] = cat;
			changed = 1;
		}
		if (nout == 1) {
			r = out[0];
			goto done;
		}
	} else {
		memcpy(out, ks, (size_t)nk * sizeof(*ks));
		nout = (size_t)nk;
	}
	if (!changed) {
		r = id;
		goto done;
	}
	if ((r = termre_parse_node(P, type)) < 0)
		goto done;
	P->n[r].kid0 = termre_parse_kids(P, out, nout);
	P->n[r].nkids = (int)nout;
	P->n[r].min = P->n[id].min;
	P->n[r].max = P->n[id].max;
done:
	free(ks);
	return r;
}

/* The one length every match of node id has, or -1. */
long termre_prog_fixed_len(const struct tr_parser *P, int id)
{
	const struct tr_anode *n = &P->n[id];
	long sum = 0, l;

	switch (n->type) {
	case AN_SET:
		return 1;
	case AN_BOL:
	case AN_EOL:
	case AN_WB:
		return 0;
	case AN_CAT:
		for (int i = 0; i < n->nkids; i++) {
			if ((l = termre_prog_fixed_len(P, P->kids[n->kid0 + i])) < 0)
				return -1;
			sum += l;
		}
		return sum;
	case AN_ALT:
		sum = termre_prog_fixed_len(P, P->kids[n->kid0]);
		for (int i = 1; i < n->nkids && sum >= 0; i++)
			if (termre_prog_fixed_len(P, P->kids[n->kid0 + i]) != sum)
				return -1;
		return sum;
	default:
		if (n->max != n->min || (l = termre_prog_fixed_len(P, P->kids[n->kid0])) < 0)
			return -1;
		return l * n->min;
	}
}
