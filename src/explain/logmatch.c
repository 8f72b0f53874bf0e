/*
 * logmatch.c - the anchor automaton, the per-line match, and hit
 * collection; see logmatch.h.
 */
#include "explain/logmatch.h"

#include "core/xalloc.h"
#include "explain/ctrprompt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int32_t new_state(struct logmatch *m, size_t *cap)
{
	size_t nc = (size_t)m->nclasses;

	if (m->nstates + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;

		m->delta = xrealloc(m->delta, ncap * nc * sizeof(*m->delta));
		m->ohead = xrealloc(m->ohead, ncap * sizeof(*m->ohead));
		*cap = ncap;
	}
	for (size_t c = 0; c < nc; c++)
		m->delta[m->nstates * nc + c] = -1;
	m->ohead[m->nstates] = -1;
	return (int32_t)m->nstates++;
}

/*
 * The automaton's patterns: the rules' anchors (0 .. n-1), then the
 * evidence literals of their conditions (n .. n+nev-1), which are whole
 * literals ('|' was split off by the rules' parser).
 */
static const char *anchor_of(const struct logrules *r, size_t i)
{
	return i < r->n ? r->v[i].anchor : r->ev[i - r->n];
}

static int splits_at_bar(const struct logrules *r, size_t i)
{
	return i < r->n && r->v[i].kind == LR_RE;
}

static void build(struct logmatch *m)
{
	const struct logrules *r = m->rules;
	size_t cap = 0, ocap = 0, nc;
	int32_t *fail, *queue;
	size_t qh = 0, qt = 0;

	/* byte classes: every byte of an anchor (lower case) gets its own */
	memset(m->cls, 0, sizeof(m->cls));
	m->nclasses = 1;
	for (size_t i = 0; i < r->n + r->nev; i++)
		for (const char *a = anchor_of(r, i); a && *a; a++) {
			unsigned char c = (unsigned char)*a;

			if (c == '|' && splits_at_bar(r, i))
				continue;
			if (!m->cls[c] && m->nclasses < 255) {
				m->cls[c] = (uint8_t)m->nclasses++;
			}
		}
	for (int c = 'A'; c <= 'Z'; c++)
		m->cls[c] = m->cls[tolower(c)];
	nc = (size_t)m->nclasses;
	new_state(m, &cap);
	for (size_t i = 0; i < r->n + r->nev; i++) {
		const char *a = anchor_of(r, i), *alt;
		int32_t s = 0;

		if (!a || !*a)
			continue;
	next_alternative:
		s = 0;
		alt = a;
		for (; *a && !(*a == '|' && splits_at_bar(r, i)); a++) {
			size_t c = m->cls[(unsigned char)*a];
			int32_t t = m->delta[(size_t)s * nc + c];

			if (t < 0) {
				t = new_state(m, &cap);
				m->delta[(size_t)s * nc + c] = t;
			}
			s = t;
		}
		if (m->nout + 1 > ocap) {
			ocap = ocap ? ocap * 2 : 64;
			m->orule = xrealloc(m->orule, ocap * sizeof(*m->orule));
			m->onext = xrealloc(m->onext, ocap * sizeof(*m->onext));
			m->olen = xrealloc(m->olen, ocap * sizeof(*m->olen));
		}
		m->olen[m->nout] = (int32_t)(a - alt);
		m->orule[m->nout] = (int32_t)i;
		m->onext[m->nout] = m->ohead[s];
		m->ohead[s] = (int32_t)m->nout++;
		if (*a == '|') {
			a++;
			goto next_alternative;
		}
	}
	fail = xcalloc(m->nstates, sizeof(*fail));
	queue = xcalloc(m->nstates, sizeof(*queue));
	m->dict = xcalloc(m->nstates, sizeof(*m->dict));
	m->hasout = xcalloc(m->nstates, sizeof(*m->hasout));
	m->dict[0] = -1;
	for (size_t c = 0; c < nc; c++) {
		int32_t t = m->delta[c];

		if (t < 0) {
			m->delta[c] = 0;
		} else {
			fail[t] = 0;
			m->dict[t] = -1;
			queue[qt++] = t;
		}
	}
	while (qh < qt) {
		int32_t s = queue[qh++];

		for (size_t c = 0; c < nc; c++) {
			int32_t t = m->delta[(size_t)s * nc + c];
			int32_t f = m->delta[(size_t)fail[s] * nc + c];

			if (t < 0) {
				m->delta[(size_t)s * nc + c] = f;
				continue;
			}
			fail[t] = f;
			m->dict[t] = m->ohead[f] >= 0 ? f : m->dict[f];
			queue[qt++] = t;
		}
	}
	for (size_t s = 0; s < m->nstates; s++)
		m->hasout[s] = m->ohead[s] >= 0 || m->dict[s] >= 0;
	/*
	 * The scan's table: each entry is the next state's row offset
	 * (state * nclasses), negative when that state has outputs, so a byte
	 * costs two loads and no multiply.
	 */
	m->row = xmalloc(m->nstates * nc * sizeof(*m->row));
	for (size_t i = 0; i < m->nstates * nc; i++) {
		int32_t t = m->delta[i];

		m->row[i] = (int32_t)((size_t)t * nc) | (m->hasout[t] ? INT32_MIN : 0);
	}
	free(fail);
	free(queue);
}

void logmatch_init(struct logmatch *m, const struct logrules *rules)
{
	memset(m, 0, sizeof(*m));
	m->rules = rules;
	for (size_t i = 0; i < rules->n; i++)
		if (rules->v[i].kind == LR_EXC && !m->exc_rule)
			m->exc_rule = &rules->v[i];
	build(m);
	termre_scratch_init(&m->trs);
	m->ev_prompt = -1;
	for (size_t k = 0; k < rules->nev; k++)
		if (!strcmp(rules->ev[k], CTRPROMPT_EV))
			m->ev_prompt = (int)k;
	m->ncand_words = (rules->n + 63) / 64 + 1;
	m->cand = xcalloc(m->ncand_words, sizeof(*m->cand));
	m->nwin = xcalloc(rules->n + 1, sizeof(*m->nwin));
	m->win = xcalloc((rules->n + 1) * LM_WINDOWS_PER_RULE * 2, sizeof(*m->win));
}

void logmatch_clear(struct logmatch *m)
{
	for (size_t i = 0; i < m->nhits; i++) {
		struct logmatch_hit *h = &m->hits[i];

		for (size_t k = 0; k < LR_MAX_CAPS; k++)
			free(h->caps[k]);
		free(h->text);
		free(h->frames);
	}
	m->nhits = 0;
	memset(m->ev_seen, 0, sizeof(m->ev_seen));
	m->dropped = m->lines_seen = m->input_lines = 0;
}

void logmatch_release(struct logmatch *m)
{
	logmatch_clear(m);
	free(m->hits);
	free(m->delta);
	free(m->row);
	free(m->ohead);
	free(m->dict);
	free(m->hasout);
	free(m->orule);
	free(m->onext);
	free(m->olen);
	free(m->cand);
	free(m->nwin);
	free(m->win);
	linememo_release(&m->memo);
	termre_scratch_release(&m->trs);
	memset(m, 0, sizeof(*m));
}

/* One window [ws, we) of text: the rule's pattern sees these bytes only; offsets stay the line's. */
static int try_window(struct logmatch *m, const struct logrule *r, const char *text, size_t len, size_t ws, size_t we,
		      size_t *off, size_t *clen)
{
	if (r->kind == LR_LIT) {
		if (!logrules_lit_match(r, text + ws, we - ws, off, clen))
			return 0;
		for (size_t k = 0; k < r->ncaps; k++)
			off[k] += ws;
		return 1;
	}
	if (r->kind == LR_RE && r->tm) {
		/* a term row: its own matcher, the same answer as regexec below (termre.h) */
		int rc = termre_match(r->tm, text + ws, we - ws, ws > 0, we < len, &m->trs);

		if (rc >= 0)
			return rc;
		/* declined: the regex, compiled now (the table's storage is ours to write; see logrules.h) */
		if (logrule_term_regex((struct logrule *)r) < 0)
			return 0;
	}
	if (r->kind == LR_RE && r->re_ok) {
		regmatch_t pm[LR_MAX_CAPS + 1];
		size_t n = r->ncaps + 1;
		int flags = REG_STARTEND;

		/* the window's edges are not the line's: ^ and $ must not match there */
		if (ws > 0)
			flags |= REG_NOTBOL;
		if (we < len)
			flags |= REG_NOTEOL;
		pm[0].rm_so = 0;
		pm[0].rm_eo = (regoff_t)(we - ws);
		if (regexec(&r->re, text + ws, n, pm, flags) != 0)
			return 0;
		for (size_t k = 0; k < r->ncaps; k++) {
			if (pm[k + 1].rm_so < 0) {
				off[k] = 0;
				clen[k] = 0;
			} else {
				off[k] = ws + (size_t)pm[k + 1].rm_so;
				clen[k] = (size_t)(pm[k + 1].rm_eo - pm[k + 1].rm_so);
			}
		}
		return 1;
	}
	return 0;
}

/* An occurrence of rule ri's anchor at [start, end) of a len-byte line: note its window. */
static void note_window(struct logmatch *m, size_t ri, size_t start, size_t end, size_t len)
{
	size_t ws = start > LM_CONTEXT ? start - LM_CONTEXT : 0;
	size_t we = len - end > LM_CONTEXT ? end + LM_CONTEXT : len;
	size_t *w = &m->win[ri * LM_WINDOWS_PER_RULE * 2];
	uint8_t n = m->nwin[ri];

	if (n) {
		size_t *last = &w[(n - 1) * 2];

		if (ws <= last[1]) {
			/* overlaps the last window: grow it, or keep it when the anchor is inside */
			if (we - last[0] <= LM_WINDOW_MAX) {
				last[1] = we;
				return;
			}
			if (end <= last[1])
				return;
			ws = last[1] > LM_CONTEXT ? last[1] - LM_CONTEXT : 0;
			if (ws < last[0])
				ws = last[0];
		}
	}
	if (n >= LM_WINDOWS_PER_RULE)
		return;
	w[n * 2] = ws;
	w[n * 2 + 1] = we;
	m->nwin[ri] = (uint8_t)(n + 1);
}

const struct logrule *logmatch_line(struct logmatch *m, const char *text, size_t len,
				    size_t *off, size_t *clen)
{
	return logmatch_line_before(m, text, len, NULL, off, clen);
}

const struct logrule *logmatch_line_before(struct logmatch *m, const char *text, size_t len,
					   const struct logrule *bound, size_t *off, size_t *clen)
{
	const size_t nc = (size_t)m->nclasses;
	const int32_t *row = m->row;
	const uint8_t *cls = m->cls;
	const unsigned char *p = (const unsigned char *)text;
	int32_t at = 0;
	int any = 0;
	const struct logrule *won = NULL;
	size_t budget = LM_LINE_BUDGET;
	const size_t nrules = m->rules->n;
	const size_t limit = bound ? (size_t)(bound - m->rules->v) : nrules;
	uint64_t hash;
	const struct linememo_slot *memo = linememo_find(&m->memo, text, len, &hash);
	struct linememo_slot put = {.nev = 0};

	if (memo) {
		/* the line was seen: its evidence literals and its winner among all rules */
		for (uint8_t k = 0; k < memo->nev; k++)
			m->ev_seen[memo->ev[k]] = 1;
		if (!memo->rule || (size_t)(memo->rule - m->rules->v) >= limit)
			return NULL;
		memcpy(off, memo->off, LR_MAX_CAPS * sizeof(*off));
		memcpy(clen, memo->clen, LR_MAX_CAPS * sizeof(*clen));
		m->won_start = memo->won_start;
		m->won_end = memo->won_end;
		return memo->rule;
	}
	for (size_t i = 0; i < len; i++) {
		int32_t e = row[at + cls[p[i]]];

		at = e & INT32_MAX;
		if (e < 0) {
			int32_t s = (int32_t)((size_t)at / nc);

			for (int32_t q = m->ohead[s] >= 0 ? s : m->dict[s]; q >= 0; q = m->dict[q])
				for (int32_t o = m->ohead[q]; o >= 0; o = m->onext[o]) {
					size_t ri = (size_t)m->orule[o];

					if (ri >= nrules) {
						m->ev_seen[ri - nrules] = 1;
						linememo_note_ev(&put, ri - nrules);
						continue;
					}
					m->cand[ri / 64] |= 1ull << (ri % 64);
					note_window(m, ri, i + 1 - (size_t)m->olen[o], i + 1, len);
				}
			any = 1;
		}
	}
	if (!any) {
		linememo_put(&m->memo, hash, text, len, &put);	/* no candidate: no rule, before any bound */
		return NULL;
	}
	termre_scratch_newtext(&m->trs);	/* what the term rows' parts found in the last text is stale */
	/* rules are sorted by priority: the lowest set bit that matches wins */
	for (size_t w = 0; w < m->ncand_words; w++) {
		while (m->cand[w]) {
			int b = __builtin_ctzll(m->cand[w]);
			size_t ri = w * 64 + (size_t)b;
			const struct logrule *r = &m->rules->v[ri];
			const size_t *win = &m->win[ri * LM_WINDOWS_PER_RULE * 2];

			m->cand[w] &= m->cand[w] - 1;
			/* past the bound only the candidates' state is reset */
			for (size_t k = 0; k < m->nwin[ri] && !won && ri < limit; k++) {
				size_t ws = win[k * 2], we = win[k * 2 + 1];

				if (we - ws > budget)
					break;
				budget -= we - ws;
				memset(off, 0, LR_MAX_CAPS * sizeof(*off));
				memset(clen, 0, LR_MAX_CAPS * sizeof(*clen));
				if (try_window(m, r, text, len, ws, we, off, clen)) {
					won = r;
					m->won_start = ws;
					m->won_end = we;
				}
			}
			m->nwin[ri] = 0;
		}
	}
	/* a miss before a bound says nothing of the rules after it: only a full answer is kept */
	if (won || limit == nrules) {
		/* the memo answers for any bound: it holds the winner among all rules */
		put.rule = won;
		if (won) {
			put.won_start = m->won_start;
			put.won_end = m->won_end;
			memcpy(put.off, off, sizeof(put.off));
			memcpy(put.clen, clen, sizeof(put.clen));
		}
		linememo_put(&m->memo, hash, text, len, &put);
	}
	return won;
}

static int same_caps(const struct logmatch_hit *h, const char *text, const size_t *off,
		     const size_t *clen)
{
	for (size_t k = 0; k < h->rule->ncaps; k++) {
		const char *c = h->caps[k];

		if (strlen(c) != clen[k] || memcmp(c, text + off[k], clen[k]))
			return 0;
	}
	return 1;
}

static void add_hit(struct logmatch *m, const struct logrule *r, const struct lognorm_line *l,
		    const size_t *off, const size_t *clen)
{
	struct logmatch_hit *h = NULL;

	for (size_t i = 0; i < m->nhits; i++)
		if (m->hits[i].rule == r && same_caps(&m->hits[i], l->text, off, clen)) {
			h = &m->hits[i];
			break;
		}
	if (!h) {
		if (m->nhits >= LM_MAX_HITS) {
			m->dropped += l->count;
			return;
		}
		XGROW(m->hits, m->nhits, m->hits_cap);
		h = &m->hits[m->nhits++];
		memset(h, 0, sizeof(*h));
		h->rule = r;
		for (size_t k = 0; k < r->ncaps; k++)
			h->caps[k] = xstrndup(l->text + off[k], clen[k]);
		if (l->len <= LM_HIT_TEXT)
			h->text = xstrndup(l->text, l->len);
		else	/* a long line: the part the rule matched in */
			h->text = xstrndup(l->text + m->won_start, m->won_end - m->won_start);
		h->frames = l->frames && *l->frames ? xstrdup(l->frames) : NULL;
		h->first = l->first;
	}
	h->count += l->count;
	h->last = l->last;
	if (h->nlines < LM_MAX_LINES)
		h->lines[h->nlines++] = l->first;
}

/* Only the evidence literals in text (traceback frames: paths such as /mnt/c/...). */
static void scan_evidence(struct logmatch *m, const char *text, size_t len)
{
	const size_t nc = (size_t)m->nclasses, nrules = m->rules->n;
	const unsigned char *p = (const unsigned char *)text;
	int32_t at = 0;

	for (size_t i = 0; i < len; i++) {
		int32_t e = m->row[at + m->cls[p[i]]];

		at = e & INT32_MAX;
		if (e < 0) {
			int32_t s = (int32_t)((size_t)at / nc);

			for (int32_t q = m->ohead[s] >= 0 ? s : m->dict[s]; q >= 0; q = m->dict[q])
				for (int32_t o = m->ohead[q]; o >= 0; o = m->onext[o])
					if ((size_t)m->orule[o] >= nrules)
						m->ev_seen[(size_t)m->orule[o] - nrules] = 1;
		}
	}
}

int logmatch_cond_seen(const struct logmatch *m, const struct lr_cond *c)
{
	for (size_t k = 0; k < c->nev; k++)
		if (m->ev_seen[c->ev[k]])
			return 1;
	return 0;
}

void logmatch_line_cb(const struct lognorm_line *l, void *arg)
{
	logmatch_line_known(l, arg, NULL);
}

void logmatch_known_take(const struct logmatch *m, const struct logrule *r, const size_t *off,
			 const size_t *clen, struct logmatch_known *k)
{
	k->rule = r;
	memcpy(k->off, off, sizeof(k->off));
	memcpy(k->clen, clen, sizeof(k->clen));
	k->won_start = m->won_start;
	k->won_end = m->won_end;
}

void logmatch_line_known(const struct lognorm_line *l, struct logmatch *m, const struct logmatch_known *k)
{
	size_t off[LR_MAX_CAPS], clen[LR_MAX_CAPS];
	const struct logrule *r;

	m->lines_seen++;
	m->input_lines = l->last;
	if (k) {
		r = k->rule;
		memcpy(off, k->off, sizeof(off));
		memcpy(clen, k->clen, sizeof(clen));
		m->won_start = k->won_start;
		m->won_end = k->won_end;
	} else {
		r = logmatch_line(m, l->text, l->len, off, clen);
	}
	/* once a prompt was seen the evidence holds: no line after needs the test */
	if (m->ev_prompt >= 0 && !m->ev_seen[m->ev_prompt] && ctrprompt_line(l->text, l->len))
		m->ev_seen[m->ev_prompt] = 1;
	if (l->frames && *l->frames && m->rules->nev)
		scan_evidence(m, l->frames, strlen(l->frames));
	if (!r && (l->flags & LN_EXCEPTION) && l->user_frames_only && m->exc_rule) {
		r = m->exc_rule;
		m->won_start = 0;
		m->won_end = l->len < LM_HIT_TEXT ? l->len : LM_HIT_TEXT;
		memset(off, 0, sizeof(off));
		memset(clen, 0, sizeof(clen));
	}
	if (r)
		add_hit(m, r, l, off, clen);
}
