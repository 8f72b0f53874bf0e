/*
 * termre_parse.c - a term row's regex read as glibc's regcomp reads POSIX
 * ERE, the subset termre.h lists, into a tree (termre_int.h); anything else
 * is refused with the reason.
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

int termre_parse_fail(struct tr_parser *P, const char *why)
{
	if (!P->why)
		P->why = why;
	return -1;
}

int termre_parse_node(struct tr_parser *P, int type)
{
	if (P->nn >= TR_MAX_NODES)
		return termre_parse_fail(P, "a term regex too large for the vocabulary tier's matcher");
	if (P->nn == P->ncap) {
		P->ncap = P->ncap ? P->ncap * 2 : 64;
		P->n = xrealloc(P->n, P->ncap * sizeof(*P->n));
	}
	memset(&P->n[P->nn], 0, sizeof(P->n[0]));
	P->n[P->nn].type = (uint8_t)type;
	return (int)P->nn++;
}

static int new_set(struct tr_parser *P)
{
	if (P->nsets == P->scap) {
		P->scap = P->scap ? P->scap * 2 : 64;
		P->sets = xrealloc(P->sets, P->scap * sizeof(*P->sets));
	}
	memset(P->sets[P->nsets], 0, 32);
	return (int)P->nsets++;
}

/* Append n kids; k may point into P->kids itself (a slice of a node's kids). */
int termre_parse_kids(struct tr_parser *P, const int *k, size_t n)
{
	int at = (int)P->nk;

	if (P->nk + n > P->kcap) {
		int *old = P->kids;
		size_t cap = P->kcap;

		while (P->nk + n > cap)
			cap = cap ? cap * 2 : 64;
		P->kids = xmalloc(cap * sizeof(*P->kids));
		if (old)
			memcpy(P->kids, old, P->nk * sizeof(*old));
		memcpy(P->kids + P->nk, k, n * sizeof(*k));	/* before old goes: k may be in it */
		free(old);
		P->kcap = cap;
	} else {
		memmove(P->kids + P->nk, k, n * sizeof(*k));
	}
	P->nk += n;
	return at;
}

static void set_add(uint8_t *set, unsigned c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

/* Case folding as REG_ICASE does it: raw holds upper-cased pattern bytes; b matches when raw holds toupper(b). */
static void fold(struct tr_parser *P, uint8_t *set)
{
	if (!P->icase)
		return;
	/* in the C locale only 'a'..'z' upper-case to another byte: they join their capitals */
	for (unsigned b = 'a'; b <= 'z'; b++) {
		unsigned up = b - 'a' + 'A';

		set[b >> 3] = (uint8_t)((set[b >> 3] & ~(1u << (b & 7))) | (tr_in_set(set, up) << (b & 7)));
	}
}

static int pc(struct tr_parser *P)
{
	unsigned char c = (unsigned char)*P->p;

	return P->icase ? toupper(c) : c;
}

static int parse_bracket(struct tr_parser *P, uint8_t *set)
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
			return termre_parse_fail(P, "an unclosed bracket expression");
		if (*P->p == ']' && !first)
			break;
		first = 0;
		if (*P->p == '[' && P->p + 1 < P->end &&
		    (P->p[1] == ':' || P->p[1] == '.' || P->p[1] == '='))
			return termre_parse_fail(P, "a character class, equivalence class or collating element in a bracket (the vocabulary tier's matcher reads bytes only)");
		lo = pc(P);
		P->p++;
		hi = lo;
		if (P->p + 1 < P->end && *P->p == '-' && P->p[1] != ']') {
			P->p++;
			if (*P->p == '[')
				return termre_parse_fail(P, "a range ending in '[' in a bracket");
			hi = pc(P);
			P->p++;
			if (hi < lo)
				return termre_parse_fail(P, "a range in a bracket that runs backwards");
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

static int parse_alt(struct tr_parser *P);

static int parse_atom(struct tr_parser *P)
{
	const char c = *P->p;
	int id, s;

	switch (c) {
	case '(':
		if (++P->depth > TR_MAX_DEPTH)
			return termre_parse_fail(P, "groups nested too deep");
		P->p++;
		if (P->p < P->end && *P->p == ')')
			return termre_parse_fail(P, "an empty group");
		id = parse_alt(P);
		if (id < 0)
			return -1;
		if (P->p >= P->end || *P->p != ')')
			return termre_parse_fail(P, "an unclosed group");
		P->p++;
		P->depth--;
		return id;
	case ')':
		return termre_parse_fail(P, "an unmatched ')'");
	case '[':
		if ((id = termre_parse_node(P, AN_SET)) < 0)
			return -1;
		s = new_set(P);
		P->n[id].set = s;
		return parse_bracket(P, P->sets[s]) < 0 ? -1 : id;
	case '^':
	case '$':
		P->p++;
		return termre_parse_node(P, c == '^' ? AN_BOL : AN_EOL);
	case '*':
	case '+':
	case '?':
	case '{':
		return termre_parse_fail(P, "a repetition with nothing before it, or a literal '{'");
	default:
		break;
	}
	if ((id = termre_parse_node(P, AN_SET)) < 0)
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
			return termre_parse_fail(P, "a regex that ends in '\\'");
		e = (unsigned char)P->p[1];
		P->p += 2;
		if (e == 'b') {
			P->n[id].type = AN_WB;
			return id;
		}
		if (isalnum(e) || e >= 0x80 || e == '<' || e == '>' || e == '`' || e == '\'')
			return termre_parse_fail(P, "an escape other than \\b or an escaped punctuation character");
		set_add(P->sets[s], P->icase ? (unsigned)toupper(e) : e);
		fold(P, P->sets[s]);
		return id;
	}
	set_add(P->sets[s], (unsigned)pc(P));
	P->p++;
	fold(P, P->sets[s]);
	return id;
}

static int parse_bound(struct tr_parser *P, int *min, int *max)
{
	char *q;
	long lo, hi;

	P->p++;		/* '{' */
	lo = strtol(P->p, &q, 10);
	if (q == P->p || lo < 0 || lo > 255)
		return termre_parse_fail(P, "a repetition bound that is not a number up to 255");
	hi = lo;
	if (*q == ',') {
		const char *h = q + 1;

		if (*h == '}') {
			hi = -1;
			q = (char *)h;
		} else {
			hi = strtol(h, &q, 10);
			if (q == h || hi < lo || hi > 255)
				return termre_parse_fail(P, "a repetition bound that is not a number up to 255");
		}
	}
	if (q >= P->end || *q != '}')
		return termre_parse_fail(P, "a malformed repetition bound");
	P->p = q + 1;
	*min = (int)lo;
	*max = (int)hi;
	return 0;
}

static int parse_piece(struct tr_parser *P)
{
	const char *s = P->p;
	int a = parse_atom(P), r, min, max;

	if (a < 0)
		return -1;
	if (P->p < P->end && strchr("*+?{", *P->p)) {
		uint8_t t = P->n[a].type;

		if (t == AN_BOL || t == AN_EOL || t == AN_WB)
			return termre_parse_fail(P, "a repetition of an anchor");
		switch (*P->p) {
		case '*': min = 0, max = -1, P->p++; break;
		case '+': min = 1, max = -1, P->p++; break;
		case '?': min = 0, max = 1, P->p++; break;
		default:
			if (parse_bound(P, &min, &max) < 0)
				return -1;
		}
		if (P->p < P->end && strchr("*+?{", *P->p))
			return termre_parse_fail(P, "a repetition stacked on a repetition");
		if ((r = termre_parse_node(P, AN_REP)) < 0)
			return -1;
		P->n[r].kid0 = termre_parse_kids(P, &a, 1);
		P->n[r].nkids = 1;
		P->n[r].min = min;
		P->n[r].max = max;
		a = r;
	}
	P->n[a].s = s;
	P->n[a].e = P->p;
	return a;
}

/* n parsed parts as one node of type t (AN_CAT or AN_ALT); a single part is itself */
static int group(struct tr_parser *P, int t, const int *k, size_t n)
{
	int id;

	if (n == 1)
		return k[0];
	if ((id = termre_parse_node(P, t)) < 0)
		return -1;
	P->n[id].kid0 = termre_parse_kids(P, k, n);
	P->n[id].nkids = (int)n;
	return id;
}

static int parse_cat(struct tr_parser *P)
{
	int k[256];
	size_t n = 0;

	while (P->p < P->end && *P->p != '|' && *P->p != ')') {
		if (n == sizeof(k) / sizeof(k[0]))
			return termre_parse_fail(P, "a term regex too large for the vocabulary tier's matcher");
		if ((k[n++] = parse_piece(P)) < 0)
			return -1;
	}
	if (!n)
		return termre_parse_fail(P, "an empty alternative");
	return group(P, AN_CAT, k, n);
}

static int parse_alt(struct tr_parser *P)
{
	int k[256];
	size_t n = 0;

	for (;;) {
		if (n == sizeof(k) / sizeof(k[0]))
			return termre_parse_fail(P, "a term regex too large for the vocabulary tier's matcher");
		if ((k[n++] = parse_cat(P)) < 0)
			return -1;
		if (P->p >= P->end || *P->p != '|')
			break;
		P->p++;
	}
	return group(P, AN_ALT, k, n);
}

int termre_parse(struct tr_parser *P)
{
	int root = parse_alt(P);

	if (root >= 0 && P->p != P->end)
		return termre_parse_fail(P, "an unmatched ')'");
	return root;
}
