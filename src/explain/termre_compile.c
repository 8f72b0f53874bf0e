/*
 * termre_compile.c - a term row's regex (POSIX ERE as glibc reads it, the
 * subset termre.h lists) parsed into chains of parts and each part compiled
 * for termre.c's machine, forwards and backwards.
 *
 * Case folding follows glibc's REG_ICASE in the C locale: the pattern and
 * the text are both upper-cased before they are compared, so a literal c
 * matches every byte b with toupper(b) == toupper(c), and a bracket is read
 * from the upper-cased pattern ("[a-z_]" is "[A-Z_]") and matches b when it
 * holds toupper(b).  '.' is every byte but NUL (RE_DOT_NOT_NULL).
 */
#include "explain/termre_int.h"

#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum an_type { AN_SET, AN_CAT, AN_ALT, AN_REP, AN_BOL, AN_EOL, AN_WB };

struct anode {
	uint8_t type;
	uint8_t dot;		/* a SET written '.' */
	int set;
	int kid0, nkids;	/* CAT, ALT: kids[kid0 ..]; REP: kids[kid0] */
	int min, max;		/* REP; max -1: no bound */
	const char *s, *e;	/* the source text of a piece */
};

struct parser {
	const char *p, *end;
	int icase;
	const char *why;
	int depth;
	struct anode *n;
	size_t nn, ncap;
	int *kids;
	size_t nk, kcap;
	uint8_t (*sets)[32];
	size_t nsets, scap;
};

#define MAX_NODES 4096
#define MAX_DEPTH 32

static int fail(struct parser *P, const char *why)
{
	if (!P->why)
		P->why = why;
	return -1;
}

static int new_node(struct parser *P, int type)
{
	if (P->nn >= MAX_NODES)
		return fail(P, "a term regex too large for the vocabulary tier's matcher");
	if (P->nn == P->ncap) {
		P->ncap = P->ncap ? P->ncap * 2 : 64;
		P->n = xrealloc(P->n, P->ncap * sizeof(*P->n));
	}
	memset(&P->n[P->nn], 0, sizeof(P->n[0]));
	P->n[P->nn].type = (uint8_t)type;
	return (int)P->nn++;
}

static int new_set(struct parser *P)
{
	if (P->nsets == P->scap) {
		P->scap = P->scap ? P->scap * 2 : 64;
		P->sets = xrealloc(P->sets, P->scap * sizeof(*P->sets));
	}
	memset(P->sets[P->nsets], 0, 32);
	return (int)P->nsets++;
}

static int add_kids(struct parser *P, const int *k, size_t n)
{
	int at = (int)P->nk;

	if (P->nk + n > P->kcap) {
		while (P->nk + n > P->kcap)
			P->kcap = P->kcap ? P->kcap * 2 : 64;
		P->kids = xrealloc(P->kids, P->kcap * sizeof(*P->kids));
	}
	memcpy(P->kids + P->nk, k, n * sizeof(*k));
	P->nk += n;
	return at;
}

static void set_add(uint8_t *set, unsigned c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

/* Case folding as REG_ICASE does it: raw holds upper-cased pattern bytes; b matches when raw holds toupper(b). */
static void fold(struct parser *P, uint8_t *set)
{
	uint8_t raw[32];

	if (!P->icase)
		return;
	memcpy(raw, set, 32);
	memset(set, 0, 32);
	for (unsigned b = 0; b < 256; b++)
		if (tr_in_set(raw, (unsigned)toupper((int)b)))
			set_add(set, b);
}

static int pc(struct parser *P)
{
	unsigned char c = (unsigned char)*P->p;

	return P->icase ? toupper(c) : c;
}

static int parse_bracket(struct parser *P, uint8_t *set)
{
	int neg = 0, first = 1;

	P->p++;		/* '[' */
	if (P->p < P->end && *P->p == '^') {
		neg = 1;
		P->p++;
	}
	for (;;) {
		int lo, hi;

		if (P->p >= P->end)
			return fail(P, "an unclosed bracket expression");
		if (*P->p == ']' && !first)
			break;
		first = 0;
		if (*P->p == '[' && P->p + 1 < P->end &&
		    (P->p[1] == ':' || P->p[1] == '.' || P->p[1] == '='))
			return fail(P, "a character class, equivalence class or collating element in a bracket (the vocabulary tier's matcher reads bytes only)");
		lo = pc(P);
		P->p++;
		hi = lo;
		if (P->p + 1 < P->end && *P->p == '-' && P->p[1] != ']') {
			P->p++;
			if (*P->p == '[')
				return fail(P, "a range ending in '[' in a bracket");
			hi = pc(P);
			P->p++;
			if (hi < lo)
				return fail(P, "a range in a bracket that runs backwards");
		}
		for (int c = lo; c <= hi; c++)
			set_add(set, (unsigned)c);
	}
	P->p++;		/* ']' */
	if (neg)
		for (int i = 0; i < 32; i++)
			set[i] = (uint8_t)~set[i];
	fold(P, set);
	return 0;
}

static int parse_alt(struct parser *P);

static int parse_atom(struct parser *P)
{
	const char c = *P->p;
	int id, s;

	switch (c) {
	case '(':
		if (++P->depth > MAX_DEPTH)
			return fail(P, "groups nested too deep");
		P->p++;
		if (P->p < P->end && *P->p == ')')
			return fail(P, "an empty group");
		id = parse_alt(P);
		if (id < 0)
			return -1;
		if (P->p >= P->end || *P->p != ')')
			return fail(P, "an unclosed group");
		P->p++;
		P->depth--;
		return id;
	case ')':
		return fail(P, "an unmatched ')'");
	case '[':
		if ((id = new_node(P, AN_SET)) < 0)
			return -1;
		s = new_set(P);
		P->n[id].set = s;
		return parse_bracket(P, P->sets[s]) < 0 ? -1 : id;
	case '^':
	case '$':
		P->p++;
		return new_node(P, c == '^' ? AN_BOL : AN_EOL);
	case '*':
	case '+':
	case '?':
	case '{':
		return fail(P, "a repetition with nothing before it, or a literal '{'");
	default:
		break;
	}
	if ((id = new_node(P, AN_SET)) < 0)
		return -1;
	s = new_set(P);
	P->n[id].set = s;
	if (c == '.') {
		memset(P->sets[s], 0xff, 32);
		P->sets[s][0] &= (uint8_t)~1u;	/* not NUL */
		P->n[id].dot = 1;
		P->p++;
		return id;
	}
	if (c == '\\') {
		unsigned char e;

		if (P->p + 1 >= P->end)
			return fail(P, "a regex that ends in '\\'");
		e = (unsigned char)P->p[1];
		P->p += 2;
		if (e == 'b') {
			P->n[id].type = AN_WB;
			return id;
		}
		if (isalnum(e) || e >= 0x80 || e == '<' || e == '>' || e == '`' || e == '\'')
			return fail(P, "an escape other than \\b or an escaped punctuation character");
		set_add(P->sets[s], P->icase ? (unsigned)toupper(e) : e);
		fold(P, P->sets[s]);
		return id;
	}
	set_add(P->sets[s], (unsigned)pc(P));
	P->p++;
	fold(P, P->sets[s]);
	return id;
}

static int parse_bound(struct parser *P, int *min, int *max)
{
	char *q;
	long lo, hi;

	P->p++;		/* '{' */
	lo = strtol(P->p, &q, 10);
	if (q == P->p || lo < 0 || lo > 255)
		return fail(P, "a repetition bound that is not a number up to 255");
	hi = lo;
	if (*q == ',') {
		const char *h = q + 1;

		if (*h == '}') {
			hi = -1;
			q = (char *)h;
		} else {
			hi = strtol(h, &q, 10);
			if (q == h || hi < lo || hi > 255)
				return fail(P, "a repetition bound that is not a number up to 255");
		}
	}
	if (q >= P->end || *q != '}')
		return fail(P, "a malformed repetition bound");
	P->p = q + 1;
	*min = (int)lo;
	*max = (int)hi;
	return 0;
}

static int parse_piece(struct parser *P)
{
	const char *s = P->p;
	int a = parse_atom(P), r, min, max;

	if (a < 0)
		return -1;
	if (P->p < P->end && strchr("*+?{", *P->p)) {
		uint8_t t = P->n[a].type;

		if (t == AN_BOL || t == AN_EOL || t == AN_WB)
			return fail(P, "a repetition of an anchor");
		switch (*P->p) {
		case '*': min = 0, max = -1, P->p++; break;
		case '+': min = 1, max = -1, P->p++; break;
		case '?': min = 0, max = 1, P->p++; break;
		default:
			if (parse_bound(P, &min, &max) < 0)
				return -1;
		}
		if (P->p < P->end && strchr("*+?{", *P->p))
			return fail(P, "a repetition stacked on a repetition");
		if ((r = new_node(P, AN_REP)) < 0)
			return -1;
		P->n[r].kid0 = add_kids(P, &a, 1);
		P->n[r].nkids = 1;
		P->n[r].min = min;
		P->n[r].max = max;
		a = r;
	}
	P->n[a].s = s;
	P->n[a].e = P->p;
	return a;
}

static int parse_cat(struct parser *P)
{
	int k[256], id;
	size_t n = 0;

	while (P->p < P->end && *P->p != '|' && *P->p != ')') {
		if (n == sizeof(k) / sizeof(k[0]))
			return fail(P, "a term regex too large for the vocabulary tier's matcher");
		if ((k[n++] = parse_piece(P)) < 0)
			return -1;
	}
	if (!n)
		return fail(P, "an empty alternative");
	if (n == 1)
		return k[0];
	if ((id = new_node(P, AN_CAT)) < 0)
		return -1;
	P->n[id].kid0 = add_kids(P, k, n);
	P->n[id].nkids = (int)n;
	return id;
}

static int parse_alt(struct parser *P)
{
	int k[256], id;
	size_t n = 0;

	for (;;) {
		if (n == sizeof(k) / sizeof(k[0]))
			return fail(P, "a term regex too large for the vocabulary tier's matcher");
		if ((k[n++] = parse_cat(P)) < 0)
			return -1;
		if (P->p >= P->end || *P->p != '|')
			break;
		P->p++;
	}
	if (n == 1)
		return k[0];
	if ((id = new_node(P, AN_ALT)) < 0)
		return -1;
	P->n[id].kid0 = add_kids(P, k, n);
	P->n[id].nkids = (int)n;
	return id;
}

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

static void fb_of(const struct parser *P, int id, int rev, struct fb *r)
{
	const struct anode *n = &P->n[id];
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

static int emit(struct parser *P, struct tr_prog *g, int op, int32_t x, int32_t y)
{
	if (g->n >= TERMRE_MAX_PROG)
		return fail(P, "a term regex too large for the vocabulary tier's matcher");
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

static int gen(struct parser *P, struct tr_prog *g, int id, int rev)
{
	const struct anode *n = &P->n[id];
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
static void first_pairs(const struct parser *P, struct tr_prog *g)
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

static int build_prog(struct parser *P, struct tr_prog *g, int id, int rev)
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

/* The one length every match of node id has, or -1. */
static long fixed_len(const struct parser *P, int id)
{
	const struct anode *n = &P->n[id];
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
			if ((l = fixed_len(P, P->kids[n->kid0 + i])) < 0)
				return -1;
			sum += l;
		}
		return sum;
	case AN_ALT:
		sum = fixed_len(P, P->kids[n->kid0]);
		for (int i = 1; i < n->nkids && sum >= 0; i++)
			if (fixed_len(P, P->kids[n->kid0 + i]) != sum)
				return -1;
		return sum;
	default:
		if (n->max != n->min || (l = fixed_len(P, P->kids[n->kid0])) < 0)
			return -1;
		return l * n->min;
	}
}

static int is_gap(const struct parser *P, int id)
{
	const struct anode *n = &P->n[id];

	return n->type == AN_REP && n->min == 0 && P->n[P->kids[n->kid0]].dot;
}

/* Part [from, to) of a branch's pieces: the same text as an earlier part is that part. */
static int add_part(struct parser *P, struct termre *t, const int *pieces, size_t from, size_t to)
{
	const char *s = P->n[pieces[from]].s, *e = P->n[pieces[to - 1]].e;
	size_t len = (size_t)(e - s);
	struct tr_part *part;
	int id;

	for (size_t i = 0; i < t->nparts; i++)
		if (strlen(t->parts[i].key) == len + 1 && t->parts[i].key[0] == (P->icase ? 'i' : 'c') &&
		    !memcmp(t->parts[i].key + 1, s, len))
			return (int)i;
	if (t->nparts == TR_MAX_PARTS)
		return fail(P, "more than 32 parts in a term regex");
	if (to - from == 1) {
		id = pieces[from];
	} else {
		if ((id = new_node(P, AN_CAT)) < 0)
			return -1;
		P->n[id].kid0 = add_kids(P, pieces + from, to - from);
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
	if (build_prog(P, &part->fwd, id, 0) < 0 || build_prog(P, &part->bwd, id, 1) < 0)
		return -1;
	part->fixed = fixed_len(P, id);
	for (int c = 0; c < 256; c++)
		part->nfirst += part->fwd.first[c] != 0;
	return (int)(t->nparts - 1);
}

static int add_chain(struct parser *P, struct termre *t, int branch)
{
	const struct anode *b = &P->n[branch];
	int one = branch;
	const int *pieces = b->type == AN_CAT ? &P->kids[b->kid0] : &one;
	size_t np = b->type == AN_CAT ? (size_t)b->nkids : 1, from = 0;
	struct tr_chain *c;

	if (t->nchains == TR_MAX_CHAINS)
		return fail(P, "more than 16 alternatives at the top of a term regex");
	c = &t->chains[t->nchains++];
	for (size_t i = 0; i <= np; i++) {
		int part;

		if (i < np && !is_gap(P, pieces[i]))
			continue;
		if (i == from)
			return fail(P, "a gap .{0,N} that does not stand between two parts");
		if (c->nparts == TR_MAX_CHAIN_PARTS)
			return fail(P, "more than 8 parts in one alternative of a term regex");
		if ((part = add_part(P, t, pieces, from, i)) < 0)
			return -1;
		c->part[c->nparts] = part;
		c->gap[c->nparts] = i < np ? P->n[pieces[i]].max : 0;
		if (i < np && c->gap[c->nparts] < 0)
			return fail(P, "a gap .* or .{n,} without a bound");
		c->nparts++;
		from = i + 1;
	}
	return 0;
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

int termre_compile(const char *pattern, int icase, struct termre **out, const char **why)
{
	struct parser P;
	struct termre *t = xcalloc(1, sizeof(*t));
	int root, rc = -1;

	memset(&P, 0, sizeof(P));
	P.p = pattern;
	P.end = pattern + strlen(pattern);
	P.icase = icase;
	*out = NULL;
	if (!*pattern) {
		fail(&P, "an empty regex");
		goto done;
	}
	root = parse_alt(&P);
	if (root < 0)
		goto done;
	if (P.p != P.end) {
		fail(&P, "an unmatched ')'");
		goto done;
	}
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

int termre_check(const char *pattern, const char **why)
{
	struct termre *t;

	if (termre_compile(pattern, 1, &t, why) < 0)
		return -1;
	termre_free(t);
	return 0;
}
