/*
 * reqlit.c - required literals of an ERE; see reqlit.h.
 *
 * Each piece of the pattern gets an info: an exact set (a finite set of
 * strings that holds every string the piece can match, when known) and
 * factors (sets of which every match contains one member).  Sequences
 * multiply exact sets (bounded) and pool factors; alternatives pool one
 * factor from each branch; '?' adds the empty string to an exact set, '*'
 * forgets everything, '+' keeps what one copy says.  Case is folded to
 * lower case (ASCII, as the C locale's REG_ICASE does): the prefilter
 * compares ignoring case, which for a case-sensitive row only lets more
 * lines through.
 */
#include "explain/reqlit.h"

#include "core/xalloc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sets hold their literals inline (REQLIT_MAX_SET of REQLIT_MAX_LEN bytes
 * at most, by construction: products and unions are checked against the
 * bounds before they are made), so deriving the factors of the 400 rows
 * costs no allocation per literal: start-up pays for it on every run.
 */
struct rl_set {
	size_t n;
	int over;	/* a literal did not fit: the set is not to be trusted as exact */
	char s[REQLIT_MAX_SET][REQLIT_MAX_LEN + 1];
};

struct rl_info {
	int exact_ok;
	struct rl_set exact;
	struct rl_set f[REQLIT_MAX_OUT * 2];
	size_t nf;
};

struct rl_parser {
	const char *p;
	int failed;
	int depth;
	int merges;	/* alternatives pooled so far (REQLIT_MAX_MERGES) */
};

static void set_clear(struct rl_set *s)
{
	s->n = 0;
	s->over = 0;
}

static int set_has(const struct rl_set *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->s[i], str))
			return 1;
	return 0;
}

/* Add str (len bytes) unless there (dedup 0: the caller knows it is not). */
static void set_add(struct rl_set *s, const char *str, size_t len, int dedup)
{
	char c[REQLIT_MAX_LEN + 1];

	if (len > REQLIT_MAX_LEN || s->n >= REQLIT_MAX_SET) {
		s->over = 1;
		return;
	}
	memcpy(c, str, len);
	c[len] = 0;
	if (dedup && set_has(s, c))
		return;
	memcpy(s->s[s->n++], c, len + 1);
}

static void info_free(struct rl_info *in)
{
	in->exact_ok = 0;
	set_clear(&in->exact);
	in->nf = 0;
}

static size_t min_len(const struct rl_set *s)
{
	size_t m = (size_t)-1;

	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->s[i]) < m)
			m = strlen(s->s[i]);
	return m;
}

/* Whether factor a filters better than b: its shortest literal is longer, or it has fewer. */
static int better(const struct rl_set *a, const struct rl_set *b)
{
	size_t la = min_len(a), lb = min_len(b);

	return la != lb ? la > lb : a->n < b->n;
}

/* Take s as a factor of in, when it can filter anything. */
static void add_factor(struct rl_info *in, const struct rl_set *s)
{
	const size_t cap = sizeof(in->f) / sizeof(in->f[0]);
	size_t at = in->nf;

	if (s->n == 0 || s->over || min_len(s) == 0)
		return;		/* the empty string: every text contains it */
	if (at == cap) {
		/* full: the new one replaces the worst, when it is better */
		at = 0;
		for (size_t k = 1; k < cap; k++)
			if (better(&in->f[at], &in->f[k]))
				at = k;
		if (!better(s, &in->f[at]))
			return;
	}
	in->f[at] = *s;
	if (at == in->nf)
		in->nf++;
}

/*
 * Fewer literals, each a prefix or a suffix of one before (a text holding a
 * literal holds its parts): the longest cut that leaves at most max
 * literals; 0 when none does (s unchanged).
 */
static int shrink(struct rl_set *s, size_t max)
{
	size_t longest = 0;
	struct rl_set out;

	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->s[i]) > longest)
			longest = strlen(s->s[i]);
	for (size_t l = longest; l >= REQLIT_MIN_LEN; l--)
		for (int suffix = 0; suffix < 2; suffix++) {
			set_clear(&out);
			for (size_t i = 0; i < s->n && out.n <= max; i++) {
				size_t n = strlen(s->s[i]);
				const char *from = s->s[i];

				if (n > l) {
					from += suffix ? n - l : 0;
					n = l;
				}
				set_add(&out, from, n, 1);
			}
			if (out.n <= max && !out.over) {
				*s = out;
				return 1;
			}
		}
	return 0;
}

static void info_exact1(struct rl_info *in, const char *str, size_t len)
{
	info_free(in);
	in->exact_ok = 1;
	set_add(&in->exact, str, len, 0);
}

static void info_char(struct rl_info *in, unsigned char c)
{
	char l = (char)tolower(c);

	info_exact1(in, &l, 1);
}

/* run x e, when it stays within bounds: 1, else 0 and run unchanged. */
static int set_product(struct rl_set *run, const struct rl_set *e)
{
	struct rl_set out;

	if (run->n * e->n > REQLIT_MAX_SET || run->over || e->over)
		return 0;
	set_clear(&out);
	for (size_t i = 0; i < run->n; i++)
		for (size_t j = 0; j < e->n; j++) {
			size_t a = strlen(run->s[i]), b = strlen(e->s[j]);
			char buf[2 * REQLIT_MAX_LEN + 2];

			if (a + b > REQLIT_MAX_LEN)
				return 0;
			memcpy(buf, run->s[i], a);
			memcpy(buf + a, e->s[j], b);
			/* one suffix keeps distinct strings distinct */
			set_add(&out, buf, a + b, e->n > 1);
		}
	*run = out;
	return 1;
}

static void parse_alt(struct rl_parser *ps, struct rl_info *out);

/* A bracket expression, after its '[': a few plain characters are an exact set, anything else says nothing. */
static void parse_bracket(struct rl_parser *ps, struct rl_info *out)
{
	const char *p = ps->p;
	int plain = 1;
	struct rl_set chars;

	set_clear(&chars);
	info_free(out);
	if (*p == '^') {
		plain = 0;
		p++;
	}
	if (*p == ']') {
		set_add(&chars, "]", 1, 1);
		p++;
	}
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char kind = p[1];

			plain = 0;
			p += 2;
			while (*p && !(p[0] == kind && p[1] == ']'))
				p++;
			if (!*p)
				break;
			p += 2;
			continue;
		}
		if (p[1] == '-' && p[2] && p[2] != ']') {
			if (p[2] == '[') {
				ps->failed = 1;	/* a range to a collating element: not read */
				break;
			}
			plain = 0;
			p += 3;
			continue;
		}
		if (chars.n < 8 && (unsigned char)*p < 0x80) {	/* a byte of a multibyte character: as a locale may read it, not a set of bytes */
			char l = (char)tolower((unsigned char)*p);

			set_add(&chars, &l, 1, 1);
		} else {
			plain = 0;
		}
		p++;
	}
	if (*p != ']') {
		ps->failed = 1;
		return;
	}
	ps->p = p + 1;
	if (plain && chars.n && !chars.over) {
		out->exact_ok = 1;
		out->exact = chars;
	}
}

static void parse_atom(struct rl_parser *ps, struct rl_info *out)
{
	unsigned char c = (unsigned char)*ps->p;

	info_free(out);
	switch (c) {
	case '(':
		ps->p++;
		if (++ps->depth > REQLIT_MAX_DEPTH) {
			ps->failed = 1;
			return;
		}
		parse_alt(ps, out);
		ps->depth--;
		if (*ps->p != ')') {
			ps->failed = 1;
			return;
		}
		ps->p++;
		return;
	case '[':
		ps->p++;
		parse_bracket(ps, out);
		return;
	case '.':
		ps->p++;
		return;		/* any character: says nothing */
	case '^':
	case '$':
		ps->p++;
		info_exact1(out, "", 0);
		return;
	case '\\':
		c = (unsigned char)ps->p[1];
		if (!c) {
			ps->failed = 1;
			return;
		}
		ps->p += 2;
		if (strchr("bB<>`'", c)) {
			info_exact1(out, "", 0);	/* glibc's zero-width assertions */
		} else if (isalnum(c)) {
			;	/* \w, \s, a back-reference...: says nothing */
		} else {
			info_char(out, c);
		}
		return;
	case '*':
	case '+':
	case '?':
	case '{':
	case '|':
	case ')':
	case 0:
		ps->failed = 1;	/* the caller's business, or not a pattern read here */
		return;
	default:
		ps->p++;
		info_char(out, c);
		return;
	}
}

/* "{m}", "{m,}", "{m,n}", "{,n}" after its '{': 0 and the bounds (n -1: none), or -1. */
static int parse_interval(struct rl_parser *ps, long *m, long *n)
{
	const char *p = ps->p;

	*m = 0;
	while (isdigit((unsigned char)*p) && *m < 100000)
		*m = *m * 10 + (*p++ - '0');
	if (*p == ',') {
		p++;
		*n = -1;
		if (isdigit((unsigned char)*p)) {
			*n = 0;
			while (isdigit((unsigned char)*p) && *n < 100000)
				*n = *n * 10 + (*p++ - '0');
		}
	} else {
		if (p == ps->p)
			return -1;
		*n = *m;
	}
	if (*p != '}' || (*n >= 0 && *n < *m))
		return -1;
	ps->p = p + 1;
	return 0;
}

/* One repetition operator applied to in. */
static void repeat(struct rl_info *in, long m, long n)
{
	if (m == 1 && n == 1)
		return;
	if (m == 0 && n == 0) {
		info_free(in);
		info_exact1(in, "", 0);
		return;
	}
	if (m == 0) {
		int opt = n == 1 && in->exact_ok && in->exact.n < REQLIT_MAX_SET;

		in->nf = 0;
		if (opt) {
			set_add(&in->exact, "", 0, 1);
		} else {
			set_clear(&in->exact);
			in->exact_ok = 0;
		}
		return;
	}
	/* at least one copy: what one copy contains stays required */
	if (in->exact_ok) {
		in->exact_ok = 0;
		add_factor(in, &in->exact);
		set_clear(&in->exact);
	}
}

static void move_factors(struct rl_info *to, struct rl_info *from)
{
	for (size_t k = 0; k < from->nf; k++)
		add_factor(to, &from->f[k]);
	from->nf = 0;
}

static struct rl_info *info_new(void)
{
	struct rl_info *in = xmalloc(sizeof(*in));

	info_free(in);
	return in;
}

/* A sequence of atoms with their repetitions, up to '|', ')' or the end. */
static void parse_concat(struct rl_parser *ps, struct rl_info *out)
{
	struct rl_set run;
	struct rl_info *a = info_new();	/* on the heap: a frame per nested group stays small */
	int whole = 1;

	info_free(out);
	set_clear(&run);
	set_add(&run, "", 0, 0);
	while (!ps->failed && *ps->p && *ps->p != '|' && *ps->p != ')') {
		parse_atom(ps, a);
		while (!ps->failed && (*ps->p == '*' || *ps->p == '+' || *ps->p == '?' || *ps->p == '{')) {
			char op = *ps->p++;
			long m = 0, n = -1;

			if (op == '+')
				m = 1;
			else if (op == '?')
				n = 1;
			else if (op == '{' && parse_interval(ps, &m, &n) < 0)
				ps->failed = 1;
			if (!ps->failed)
				repeat(a, m, n);
		}
		if (ps->failed)
			break;
		move_factors(out, a);
		if (a->exact_ok && !a->exact.over && set_product(&run, &a->exact))
			continue;
		/* the run so far is one required piece; a new run starts after it */
		whole = 0;
		add_factor(out, &run);
		set_clear(&run);
		if (a->exact_ok && !a->exact.over)
			run = a->exact;
		else
			set_add(&run, "", 0, 0);
	}
	free(a);
	if (whole) {
		out->exact_ok = 1;
		out->exact = run;
	} else {
		add_factor(out, &run);
	}
}

/* The factors of in, its exact set counted as one (copies, into list; at most max). */
static size_t all_factors(const struct rl_info *in, struct rl_set *list, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < in->nf && n < max; k++)
		list[n++] = in->f[k];
	if (in->exact_ok && n < max && !in->exact.over && in->exact.n && min_len(&in->exact) > 0)
		list[n++] = in->exact;
	return n;
}

/* Sort list (n sets) best first; n. */
static size_t best_first(struct rl_set *list, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && better(&list[j], &list[j - 1]); j--) {
			struct rl_set t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	return n;
}

/* Whether every literal of a is in b: then a text that holds a's holds b's, b says nothing more. */
static int subset(const struct rl_set *a, const struct rl_set *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (!set_has(b, a->s[i]))
			return 0;
	return 1;
}

/* Keep, in order, the sets no kept one is a subset of, at most max; how many. */
static size_t distinct_first(struct rl_set *list, size_t n, size_t max)
{
	size_t kept = 0;

	for (size_t i = 0; i < n && kept < max; i++) {
		size_t k = 0;

		while (k < kept && !subset(&list[k], &list[i]))
			k++;
		if (k < kept)
			continue;
		if (kept != i)
			list[kept] = list[i];
		kept++;
	}
	return kept;
}

#define REQLIT_PAIRS 5	/* factors of each branch paired (all pairs of 13 cost 20 ms at start-up) */

/* Branches a | b: every match is a match of one, so one factor of each, pooled, is required. */
static void alt_merge(struct rl_info *a, const struct rl_info *b)
{
	struct rl_info *out;
	struct rl_set *la, *lb;
	size_t na, nb;
	const size_t lmax = REQLIT_MAX_OUT * 2 + 1;

	if (a->exact_ok && b->exact_ok && !a->exact.over && !b->exact.over &&
	    a->exact.n + b->exact.n <= REQLIT_MAX_SET) {
		for (size_t i = 0; i < b->exact.n; i++)
			set_add(&a->exact, b->exact.s[i], strlen(b->exact.s[i]), 1);
		a->nf = 0;
		return;
	}
	out = info_new();
	la = xmalloc(2 * lmax * sizeof(*la));
	lb = la + lmax;
	na = best_first(la, all_factors(a, la, lmax));
	nb = best_first(lb, all_factors(b, lb, lmax));
	/* the best few of each side, paired: the pool of one factor of each (add_factor keeps the best) */
	na = distinct_first(la, na, REQLIT_PAIRS);
	nb = distinct_first(lb, nb, REQLIT_PAIRS);
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++) {
			struct rl_set u = la[i], v = lb[j];

			if (u.n + v.n > REQLIT_MAX_SET &&
			    (!shrink(&u, REQLIT_MAX_SET / 2) || !shrink(&v, REQLIT_MAX_SET / 2)))
				continue;
			for (size_t k = 0; k < v.n; k++)
				set_add(&u, v.s[k], strlen(v.s[k]), 1);
			add_factor(out, &u);
		}
	*a = *out;
	free(out);
	free(la);
}

static void parse_alt(struct rl_parser *ps, struct rl_info *out)
{
	parse_concat(ps, out);
	while (!ps->failed && *ps->p == '|') {
		struct rl_info *b;

		/* each costs pairs of sets: a hostile --kb row of 10,000 branches gets no factor, not a slow start */
		if (++ps->merges > REQLIT_MAX_MERGES) {
			ps->failed = 1;
			break;
		}
		b = info_new();
		ps->p++;
		parse_concat(ps, b);
		alt_merge(out, b);
		free(b);
	}
}

/* Whether some other literal of s is inside s->s[i] (then s->s[i] adds nothing). */
static int covered(const struct rl_set *s, size_t i)
{
	for (size_t j = 0; j < s->n; j++)
		if (j != i && strstr(s->s[i], s->s[j]) && (strlen(s->s[j]) < strlen(s->s[i]) || j < i))
			return 1;
	return 0;
}

void reqlit_derive(const char *pattern, struct reqlit_factor **out, size_t *nout)
{
	struct rl_parser ps = {pattern, 0, 0, 0};
	struct rl_info *top = info_new();
	const size_t lmax = REQLIT_MAX_OUT * 2 + 1;
	struct rl_set *list = xmalloc(lmax * sizeof(*list));
	size_t n = 0, kept = 0;

	*out = NULL;
	*nout = 0;
	parse_alt(&ps, top);
	if (!ps.failed && !*ps.p)
		n = all_factors(top, list, lmax);
	free(top);
	/* the best first, none a superset of one before: only REQLIT_MAX_OUT are kept */
	n = distinct_first(list, best_first(list, n), REQLIT_MAX_OUT);
	for (size_t k = 0; k < n && kept < REQLIT_MAX_OUT; k++) {
		struct rl_set *s = &list[k];
		struct reqlit_factor *f;

		if (min_len(s) < REQLIT_MIN_LEN)
			continue;
		if (!*out)
			*out = xcalloc(REQLIT_MAX_OUT, sizeof(**out));
		f = &(*out)[kept++];
		f->lit = xcalloc(s->n, sizeof(*f->lit));
		/* "hang" makes "hangs" redundant: a text with "hangs" has "hang" */
		for (size_t i = 0; i < s->n; i++)
			if (!covered(s, i))
				f->lit[f->n++] = xstrdup(s->s[i]);
	}
	*nout = kept;
	free(list);
}

void reqlit_free(struct reqlit_factor *f, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < f[k].n; i++)
			free(f[k].lit[i]);
		free(f[k].lit);
	}
	free(f);
}
