/*
 * logmatch.h - match normalised log lines against explain's rules.
 *
 * Every rule has an anchor, a literal that each line it matches contains.
 * All anchors go into one Aho-Corasick automaton (lower-cased, over byte
 * classes), so a line costs one table step per byte whatever the number
 * of rules; only rules whose anchor occurs are then tried, in priority
 * order, and the first that matches wins the line.
 *
 * Matches are collected as hits: one per (rule, captured values), with the
 * number of lines, the first and last line numbers and the first line's
 * text, so that a log with ten thousand copies of one error yields one hit.
 *
 *	struct logmatch m;
 *	logmatch_init(&m, &rules);
 *	lognorm_init(&n, logmatch_line_cb, &m);  ... feed ...
 *	for (size_t i = 0; i < m.nhits; i++) use(&m.hits[i]);
 *	logmatch_release(&m);
 */
#ifndef GD_LOGMATCH_H
#define GD_LOGMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "explain/lognorm.h"
#include "explain/logrules.h"

#define LM_MAX_HITS 512		/* distinct (rule, captures) kept; more are counted */
#define LM_MAX_LINES 8		/* line numbers listed per hit */

struct logmatch_hit {
	const struct logrule *rule;
	char *caps[LR_MAX_CAPS];	/* captured values (rule->ncaps) */
	char *text;			/* the first matching line, normalised */
	char *frames;			/* traceback frames of that line, or NULL */
	long count;			/* lines matched (folded repeats included) */
	long first, last;		/* input line numbers */
	long lines[LM_MAX_LINES];	/* first line numbers of the first matches */
	size_t nlines;
};

struct logmatch {
	const struct logrules *rules;
	/* automaton */
	uint8_t cls[256];
	int nclasses;
	int32_t *delta;			/* nstates * nclasses: next state */
	int32_t *row;			/* the same as row offsets, output flag in the sign */
	int32_t *ohead;			/* per state: first output cell, -1 */
	int32_t *dict;			/* per state: nearest suffix state with outputs, -1 */
	uint8_t *hasout;		/* per state: ohead or dict set */
	int32_t *orule, *onext;		/* output cells: rule index, next cell */
	size_t nstates, nout;
	uint64_t *cand;			/* candidate bitset, per line */
	size_t ncand_words;
	const struct logrule *exc_rule;	/* the "exc" rule, or NULL */
	/* results */
	struct logmatch_hit *hits;
	size_t nhits, hits_cap;
	long dropped;			/* matches beyond LM_MAX_HITS */
	long lines_seen;		/* normalised lines looked at */
	long input_lines;		/* last input line number seen */
};

void logmatch_init(struct logmatch *m, const struct logrules *rules);
void logmatch_release(struct logmatch *m);
/* Forget the hits (and counters), keep the automaton: for matching another log. */
void logmatch_clear(struct logmatch *m);
/* A lognorm callback: arg is the struct logmatch. */
void logmatch_line_cb(const struct lognorm_line *l, void *arg);
/* Which rule matches text (NULL: none); captures into off/len (LR_MAX_CAPS each). */
const struct logrule *logmatch_line(struct logmatch *m, const char *text, size_t len,
				    size_t *off, size_t *clen);

#endif
