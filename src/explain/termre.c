/*
 * termre.c - running a compiled term regex over one text; see termre.h.
 *
 * A pass runs one part's program from many sources at once (every start
 * forwards, every end backwards, or the starts a gap allows) and shares one
 * table of the (instruction, position) pairs it tried among them: what a
 * pair leads to does not depend on where the pass came from, so each pair
 * is tried once and a pass costs at most instructions x (bytes + 1) steps.
 */
#include "explain/termre_int.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t *word_table(void)
{
	static uint8_t w[256];
	static int done;

	if (!done) {
		/* glibc's IS_WORD_CHAR in the C locale: ASCII letters, digits and '_' */
		for (int c = 0; c < 256; c++)
			w[c] = (uint8_t)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					 (c >= '0' && c <= '9') || c == '_');
		done = 1;
	}
	return w;
}

void termre_scratch_init(struct termre_scratch *s)
{
	memset(s, 0, sizeof(*s));
}

void termre_scratch_release(struct termre_scratch *s)
{
	free(s->vis);
	free(s->stack);
	free(s->tmp[0]);
	free(s->tmp[1]);
	for (size_t i = 0; i < TERMRE_CACHE; i++)
		free(s->cache[i].bits);
	memset(s, 0, sizeof(*s));
}

void termre_scratch_newtext(struct termre_scratch *s)
{
	s->text_serial++;
	s->ncache = 0;
	s->win_text = NULL;
}

static void grow_stack(struct termre_scratch *s)
{
	s->stack_cap = s->stack_cap ? s->stack_cap * 2 : 1024;
	s->stack = xrealloc(s->stack, s->stack_cap * sizeof(*s->stack));
}

static inline void push(struct termre_scratch *s, size_t *sp, int32_t pc, size_t pos)
{
	if (*sp + 2 > s->stack_cap)
		grow_stack(s);
	s->stack[(*sp)++] = pc;
	s->stack[(*sp)++] = (int32_t)pos;
}

static int bit(const uint64_t *b, size_t i)
{
	return (int)((b[i >> 6] >> (i & 63)) & 1);
}

/* May a pass from src (a start forwards, an end backwards) find anything: the part's first two bytes. */
static inline int may_start(const struct tr_prog *g, const unsigned char *t, size_t L, size_t src, int back)
{
	unsigned c0;

	if (g->len0)
		return 1;
	if (!back) {
		if (src >= L)
			return 0;
		c0 = t[src];
		return g->one[c0] || (src + 1 < L && tr_in_set(g->pair[c0], t[src + 1]));
	}
	if (src == 0)
		return 0;
	c0 = t[src - 1];
	return g->one[c0] || (src >= 2 && tr_in_set(g->pair[c0], t[src - 2]));
}

/*
 * One pass of g over t[0 .. L).  Sources: every position, or those in
 * allowed.  out NULL: 1 as soon as a match is found; else every position a
 * match reaches (its end forwards, its start backwards) is set in out.
 * -1: the visit table would be too large.
 */
static int pass(const struct tr_part *part, const struct tr_prog *g, const unsigned char *t, size_t L,
		int notbol, int noteol, int back, const uint64_t *allowed, uint64_t *out,
		struct termre_scratch *s)
{
	const uint8_t *word = word_table();
	const size_t row = L + 1;
	size_t need, sp = 0;
	uint64_t *vis;
	int found = 0;

	if (row > TERMRE_MAX_VISIT / g->nslots)
		return -1;
	/* a bit per (join, position), cleared per pass: small enough to stay in cache */
	need = (row * g->nslots + 63) / 64;
	if (need > s->vis_cap) {
		free(s->vis);
		s->vis = xmalloc(need * sizeof(*s->vis));
		s->vis_cap = need;
	}
	memset(s->vis, 0, need * sizeof(*s->vis));
	vis = s->vis;
	for (size_t src = 0; src <= L; src++) {
		/* most bytes cannot begin a match: skip them in a loop of one table load */
		if (!g->len0 && !allowed) {
			if (!back)
				while (src < L && !g->first[t[src]])
					src++;
			else
				while (src <= L && (src == 0 || !g->first[t[src - 1]]))
					src++;
			if (src > L || (!back && src == L))
				break;
		}
		if (allowed && !bit(allowed, src))
			continue;
		if (!may_start(g, t, L, src, back))
			continue;
		push(s, &sp, 0, src);
		while (sp) {
			size_t pos = (size_t)s->stack[--sp];
			int32_t pc = s->stack[--sp];

			for (;;) {
				const struct tr_inst *in = &g->in[pc];
				int ok = 0;

				if (g->slot[pc] >= 0) {
					size_t v = (size_t)g->slot[pc] * row + pos;
					uint64_t b = 1ull << (v & 63);

					if (vis[v >> 6] & b)
						break;
					vis[v >> 6] |= b;
				}
				if (in->op == TR_SET) {
					if (back ? pos == 0 || !tr_in_set(part->sets[in->x], t[pos - 1])
						 : pos >= L || !tr_in_set(part->sets[in->x], t[pos]))
						break;
					pos = back ? pos - 1 : pos + 1;
					pc++;
					continue;
				}
				switch (in->op) {
				case TR_JMP:
					pc = in->x;
					continue;
				case TR_SPLIT:
					push(s, &sp, in->y, pos);
					pc = in->x;
					continue;
				case TR_ALTN: {
					unsigned c = back ? (pos ? t[pos - 1] : 256u) : (pos < L ? t[pos] : 256u);
					int32_t a = g->altv[in->x + (int32_t)c], b = g->altv[in->x + (int32_t)c + 1];

					if (a == b)
						break;
					for (int32_t k = b - 1; k > a; k--)
						push(s, &sp, g->altv[k], pos);
					pc = g->altv[a];
					continue;
				}
				case TR_BOL:
					ok = pos == 0 && !notbol;
					break;
				case TR_EOL:
					ok = pos == L && !noteol;
					break;
				case TR_WB:
					ok = (pos > 0 && word[t[pos - 1]]) != (pos < L && word[t[pos]]);
					break;
				default:	/* TR_MATCH */
					if (!out)
						return 1;	/* what is left on the stack is dropped */
					out[pos >> 6] |= 1ull << (pos & 63);
					found = 1;
					ok = 0;
					break;
				}
				if (in->op == TR_ALTN || !ok)
					break;
				pc++;
			}
		}
	}
	return found;
}

static size_t words_for(size_t L)
{
	return (L + 1 + 63) / 64;
}

static uint64_t *tmp_bits(struct termre_scratch *s, int i, size_t L)
{
	size_t w = words_for(L);

	if (w > s->tmp_cap) {
		for (int k = 0; k < 2; k++) {
			free(s->tmp[k]);
			s->tmp[k] = xmalloc(w * sizeof(uint64_t));
		}
		s->tmp_cap = w;
	}
	memset(s->tmp[i], 0, w * sizeof(uint64_t));
	return s->tmp[i];
}

/*
 * The positions a whole pass of part gives (ends forwards, starts
 * backwards), kept for the window: rows whose parts read the same share
 * them.  avoid: an entry in use that must not be reused.
 */
static struct termre_cached *cached(const struct tr_part *part, int back, struct termre_scratch *s)
{
	for (size_t i = 0; i < s->ncache; i++)
		if ((back < 0 || s->cache[i].backward == back) && s->cache[i].hash == part->hash &&
		    (s->cache[i].key == part->key || !strcmp(s->cache[i].key, part->key)))
			if (back >= 0 || !s->cache[i].any)
				return &s->cache[i];
	return NULL;
}

static const struct termre_cached *all_of(const struct tr_part *part, int back, const unsigned char *t,
					  size_t L, int notbol, int noteol, struct termre_scratch *s,
					  const struct termre_cached *avoid)
{
	struct termre_cached *c = cached(part, back, s);
	size_t w = words_for(L);
	int rc;

	if (c)
		return c;
	if (s->ncache < TERMRE_CACHE)
		c = &s->cache[s->ncache++];
	else
		c = &s->cache[avoid == &s->cache[0] ? 1 : 0];
	if (c->cap < w) {
		free(c->bits);
		c->bits = xmalloc(w * sizeof(uint64_t));
		c->cap = w;
	}
	memset(c->bits, 0, w * sizeof(uint64_t));
	if (part->fixed >= 0) {
		/* every match is fixed bytes long: its starts are its ends shifted, no second pass */
		const struct termre_cached *o = cached(part, !back, s);

		if (o && o->bits != c->bits) {
			size_t k = (size_t)part->fixed;

			for (size_t p = 0; p <= L; p++) {
				size_t q = back ? p - k : p + k;

				if (bit(o->bits, p) && (back ? p >= k : q <= L))
					c->bits[q >> 6] |= 1ull << (q & 63);
			}
			c->key = part->key;
			c->hash = part->hash;
			c->backward = back;
			c->any = o->any;
			return c;
		}
	}
	c->key = part->key;
	c->hash = part->hash;
	c->backward = back;
	rc = pass(part, back ? &part->bwd : &part->fwd, t, L, notbol, noteol, back, NULL, c->bits, s);
	if (rc < 0) {
		c->key = "";	/* matches no key: every key starts 'i' or 'c' */
		return NULL;
	}
	c->any = rc;
	return c;
}

/*
 * Whether a start in S lies within gap bytes after an end in E with no NUL
 * between ('.' does not match NUL); the latest end before a position
 * reaches furthest, so it is the only one kept.  reach: NULL, or every
 * position so reached is set in it.
 */
static int join(const uint64_t *E, const uint64_t *S, long gap, const unsigned char *t, size_t L,
		int has_nul, uint64_t *reach)
{
	long last = -1;
	int any = 0;

	for (size_t p = 0; p <= L; p++) {
		/* a word with no end, and the last end out of reach: nothing in it can join */
		if ((p & 63) == 0 && !E[p >> 6] && (last < 0 || (long)p - last > gap)) {
			p += 63;
			continue;
		}
		if (bit(E, p))
			last = (long)p;
		if (last >= 0 && (long)p - last <= gap && (!S || bit(S, p))) {
			if (!reach)
				return 1;
			reach[p >> 6] |= 1ull << (p & 63);
			any = 1;
		}
		if (has_nul && p < L && t[p] == 0)
			last = -1;
	}
	return any;
}

int termre_match(const struct termre *re, const char *text, size_t len, int notbol, int noteol,
		 struct termre_scratch *s)
{
	const unsigned char *t = (const unsigned char *)text;
	int flags = (notbol ? 1 : 0) | (noteol ? 2 : 0), has_nul;

	if (s->win_text != text || s->win_len != len || s->win_flags != flags) {
		s->ncache = 0;
		s->win_text = text;
		s->win_len = len;
		s->win_flags = flags;
	}
	has_nul = memchr(t, 0, len) != NULL;
	for (size_t ci = 0; ci < re->nchains; ci++) {
		const struct tr_chain *c = &re->chains[ci];
		const struct tr_part *p0 = &re->parts[c->part[0]], *pn = &re->parts[c->part[c->nparts - 1]];
		const struct termre_cached *first = NULL, *last = NULL;
		const uint64_t *E;
		size_t j;

		/* a part the window has no match of (either way) rules the chain out at once */
		for (j = 0; j < c->nparts; j++)
			if (cached(&re->parts[c->part[j]], -1, s))
				break;
		if (j < c->nparts)
			continue;
		/*
		 * What the window was already searched for first (the shared error
		 * vocabulary: when the window has none of its words no row's chain
		 * needs more), else the part that can begin at fewer bytes.
		 */
		if (c->nparts > 1 && (cached(pn, 1, s) ? !cached(p0, 0, s) || cached(p0, 0, s)->any
						       : !cached(p0, 0, s) && pn->nfirst < p0->nfirst)) {
			if (!(last = all_of(pn, 1, t, len, notbol, noteol, s, NULL)))
				return -1;
			if (!last->any)
				continue;
		}
		if (!(first = all_of(p0, 0, t, len, notbol, noteol, s, last)))
			return -1;
		if (!first->any)
			continue;
		if (c->nparts == 1)
			return 1;
		E = first->bits;
		for (j = 1; j < c->nparts; j++) {
			const struct tr_part *part = &re->parts[c->part[j]];

			if (j == c->nparts - 1) {
				if (!last && !(last = all_of(part, 1, t, len, notbol, noteol, s, first)))
					return -1;
				if (last->any && join(E, last->bits, c->gap[j - 1], t, len, has_nul, NULL))
					return 1;
			} else {
				uint64_t *allowed = tmp_bits(s, 0, len), *ends;
				int rc;

				if (!join(E, NULL, c->gap[j - 1], t, len, has_nul, allowed))
					break;
				ends = tmp_bits(s, 1, len);
				rc = pass(part, &part->fwd, t, len, notbol, noteol, 0, allowed, ends, s);
				if (rc < 0)
					return -1;
				if (!rc)
					break;
				E = ends;
			}
		}
	}
	return 0;
}
