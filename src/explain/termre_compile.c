/*
 * termre_compile.c - a term row's regex into chains of parts joined by
 * gaps (termre_int.h): the tree (termre_parse.c) split at the top-level
 * ".{0,N}", each part compiled both ways (termre_prog.c), parts that read
 * the same compiled once.
 */
#include "explain/termre_int.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int is_gap(const struct tr_parser *P, int id)
{
	const struct tr_anode *n = &P->n[id];

	return n->type == AN_REP && n->min == 0 && P->n[P->kids[n->kid0]].dot;
}

/* Part [from, to) of a branch's pieces: the same text as an earlier part is that part. */
static int add_part(struct tr_parser *P, struct termre *t, const int *pieces, size_t from, size_t to)
{
	const char *s = P->n[pieces[from]].s, *e = P->n[pieces[to - 1]].e;
	size_t len = (size_t)(e - s);
	struct tr_part *part;
	int id, f;

	for (size_t i = 0; i < t->nparts; i++)
		if (strlen(t->parts[i].key) == len + 1 && t->parts[i].key[0] == (P->icase ? 'i' : 'c') &&
		    !memcmp(t->parts[i].key + 1, s, len))
			return (int)i;
	if (t->nparts == TR_MAX_PARTS)
		return termre_parse_fail(P, "more than 32 parts in a term regex");
	if (to - from == 1) {
		id = pieces[from];
	} else {
		if ((id = termre_parse_node(P, AN_CAT)) < 0)
			return -1;
		P->n[id].kid0 = termre_parse_kids(P, pieces + from, to - from);
		P->n[id].nkids = (int)(to - from);
	}
	part = &t->parts[t->nparts++];
	part->key = xmalloc(len + 2);
	part->key[0] = P->icase ? 'i' : 'c';
	memcpy(part->key + 1, s, len);
	part->key[len + 1] = 0;
	part->hash = 1469598103934665603ull;	/* FNV-1a */
	for (const char *k = part->key; *k; k++)
		part->hash = (part->hash ^ (unsigned char)*k) * 1099511628211ull;
	if (P->check_only)
		return (int)(t->nparts - 1);
	if ((f = termre_prog_factor(P, id, 0)) < 0 || termre_prog_build(P, &part->fwd, f, 0) < 0 ||
	    (f = termre_prog_factor(P, id, 1)) < 0 || termre_prog_build(P, &part->bwd, f, 1) < 0)
		return -1;
	part->fixed = termre_prog_fixed_len(P, id);
	for (int c = 0; c < 256; c++)
		part->nfirst += part->fwd.first[c] != 0;
	return (int)(t->nparts - 1);
}

/* One top-level alternative: its pieces split at the gaps into parts. */
static int chain_parts(struct tr_parser *P, struct termre *t, const int *pieces, size_t np)
{
	struct tr_chain *c;
	size_t from = 0;

	if (t->nchains == TR_MAX_CHAINS)
		return termre_parse_fail(P, "more than 16 alternatives at the top of a term regex");
	c = &t->chains[t->nchains++];
	for (size_t i = 0; i <= np; i++) {
		int part;

		if (i < np && !is_gap(P, pieces[i]))
			continue;
		if (i == from)
			return termre_parse_fail(P, "a gap .{0,N} that does not stand between two parts");
		if (c->nparts == TR_MAX_CHAIN_PARTS)
			return termre_parse_fail(P, "more than 8 parts in one alternative of a term regex");
		if ((part = add_part(P, t, pieces, from, i)) < 0)
			return -1;
		c->part[c->nparts] = part;
		c->gap[c->nparts] = i < np ? P->n[pieces[i]].max : 0;
		if (i < np && c->gap[c->nparts] < 0)
			return termre_parse_fail(P, "a gap .* or .{n,} without a bound");
		c->nparts++;
		from = i + 1;
	}
	return 0;
}

static int add_chain(struct tr_parser *P, struct termre *t, int branch)
{
	int cat = P->n[branch].type == AN_CAT, rc;
	size_t np = cat ? (size_t)P->n[branch].nkids : 1;
	/* a copy: compiling the parts adds kids, which may move P->kids */
	int *pieces = xmalloc(np * sizeof(*pieces));

	if (cat)
		memcpy(pieces, &P->kids[P->n[branch].kid0], np * sizeof(*pieces));
	else
		pieces[0] = branch;
	rc = chain_parts(P, t, pieces, np);
	free(pieces);
	return rc;
}

void termre_free(struct termre *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nparts; i++) {
		free(t->parts[i].key);
		free(t->parts[i].sets);
		free(t->parts[i].fwd.in);
		free(t->parts[i].fwd.altv);
		free(t->parts[i].fwd.slot);
		free(t->parts[i].bwd.in);
		free(t->parts[i].bwd.altv);
		free(t->parts[i].bwd.slot);
	}
	free(t);
}

static int compile(const char *pattern, int icase, int check_only, struct termre **out, const char **why)
{
	struct tr_parser P;
	struct termre *t = xcalloc(1, sizeof(*t));
	int root, rc = -1;

	memset(&P, 0, sizeof(P));
	P.p = pattern;
	P.end = pattern + strlen(pattern);
	P.icase = icase;
	P.check_only = check_only;
	*out = NULL;
	if (!*pattern) {
		termre_parse_fail(&P, "an empty regex");
		goto done;
	}
	root = termre_parse(&P);
	if (root < 0)
		goto done;
	if (P.n[root].type == AN_ALT) {
		for (int i = 0; i < P.n[root].nkids; i++)
			if (add_chain(&P, t, P.kids[P.n[root].kid0 + i]) < 0)
				goto done;
	} else if (add_chain(&P, t, root) < 0) {
		goto done;
	}
	/* every part shares the parser's sets (a copy each: parts are freed one by one) */
	for (size_t i = 0; i < t->nparts; i++) {
		t->parts[i].sets = xmalloc((P.nsets ? P.nsets : 1) * sizeof(*P.sets));
		if (P.nsets)
			memcpy(t->parts[i].sets, P.sets, P.nsets * sizeof(*P.sets));
		t->parts[i].nsets = P.nsets;
	}
	rc = 0;
done:
	free(P.n);
	free(P.kids);
	free(P.sets);
	if (rc < 0) {
		*why = P.why ? P.why : "a regex the vocabulary tier's matcher cannot read";
		termre_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

int termre_compile(const char *pattern, int icase, struct termre **out, const char **why)
{
	return compile(pattern, icase, 0, out, why);
}

/* What the reading and the split at the gaps refuse; a part too large for a program is refused when the row is compiled. */
int termre_check(const char *pattern, const char **why)
{
	struct termre *t;

	if (compile(pattern, 1, 1, &t, why) < 0)
		return -1;
	termre_free(t);
	return 0;
}
