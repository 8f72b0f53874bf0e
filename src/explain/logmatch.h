/*
 * logmatch.h - match normalised log lines against explain's rules.
 *
 * Every rule has an anchor, a literal that each line it matches contains.
 * All anchors go into one Aho-Corasick automaton (lower-cased, over byte
 * classes), so a line costs one table step per byte whatever the number
 * of rules; only rules whose anchor occurs are then tried, in priority
 * order, and the first that matches wins the line.
 *
 * Matching is linear in the input.  The automaton records where each
 * candidate's anchor occurs, and a rule's pattern sees only a window of
 * LM_CONTEXT bytes on either side of an occurrence (overlapping windows
 * merge up to LM_WINDOW_MAX bytes), at most LM_WINDOWS_PER_RULE windows
 * per rule and LM_LINE_BUDGET bytes of windows per line, taken in the
 * rules' priority order.  glibc's regexec tries every start position, so a
 * pattern that sees a whole line costs up to the square of its length (a
 * 40 KB line took 9.5 s); a bounded window costs a constant.  A message
 * GPU stacks print is far shorter than a window; what the bounds give up
 * is an error repeated after LM_WINDOWS_PER_RULE decoys in one line.  The
 * text is matched by length (REG_STARTEND), never up to a NUL.  The
 * vocabulary tier's rows (logrule_is_term) give the same answer through
 * termre.h, linear in the window and sharing the work of parts that read
 * the same (the error vocabulary) among the rows that look at one window.
 *
 * A regex row is tried only when its required literals are in the line
 * too: the literals every match of its regex contains (reqlit.h), derived
 * at start-up and found by the same automaton.  A row skipped so spends the
 * window budget as if it had been tried, so the rows after it see the same
 * windows and every answer is the one the row's regex would give.
 *
 * The literals of the rules' cause conditions (logrules.h) go into the same
 * automaton; a line that contains one sets its flag in ev_seen, whether or
 * not a rule matches the line, and so do the traceback frames kept with an
 * exception line.  One literal is set by a test instead of by its text:
 * CTRPROMPT_EV, on a line that starts with a container's shell prompt
 * (ctrprompt.h).
 *
 * Matches are collected as hits: one per (rule, captured values), with the
 * number of lines, the first and last line numbers and the first line's
 * text, so that a log with ten thousand copies of one error yields one hit.
 * A line that reaches the patterns is looked up first in a memo of the
 * lines matched before (linememo.h): repeated lines cost one regexec pass.
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

#include "explain/linememo.h"
#include "explain/lognorm.h"
#include "explain/logrules.h"
#include "explain/termre.h"

#define LM_MAX_HITS 512		/* distinct (rule, captures) kept; more are counted */
#define LM_MAX_LINES 8		/* line numbers listed per hit */
#define LM_CONTEXT 512		/* bytes a pattern sees on either side of its anchor */
#define LM_WINDOW_MAX 1536	/* overlapping windows merge up to this size */
#define LM_WINDOWS_PER_RULE 4	/* windows tried per rule and line */
#define LM_LINE_BUDGET 65536	/* bytes of windows tried per line, all rules together */
#define LM_HIT_TEXT 4096	/* bytes of a matching line kept in its hit */

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
	int32_t *olen;			/* output cells: the anchor alternative's length */
	uint8_t *nwin;			/* per rule: windows recorded on this line */
	size_t *win;			/* per rule: LM_WINDOWS_PER_RULE (start, end) pairs */
	size_t won_start, won_end;	/* the window the last winning rule matched in */
	size_t nstates, nout;
	uint64_t *cand;			/* candidate bitset, per line */
	size_t ncand_words;
	const struct logrule *exc_rule;	/* the "exc" rule, or NULL */
	/* required literals (reqlit.h): automaton patterns n + nev .. on; a row whose
	   pattern needs one of a set of literals that the line lacks is not tried */
	char **req;			/* the literals, each once */
	size_t nreq;
	uint32_t *req_gen;		/* per literal: the line (gen) it was last seen in */
	uint32_t gen;			/* the line being scanned */
	size_t *rule_fac;		/* per rule: first factor (rule_fac[ri] .. rule_fac[ri + 1]) */
	size_t *fac;			/* per factor: first literal in fac_lit (fac[k] .. fac[k + 1]) */
	int32_t *fac_lit;		/* literal indices */
	long req_skipped;		/* rows not tried because of it (tests, profiling) */
	struct linememo memo;		/* line text -> match, for repeated lines (linememo.h) */
	struct termre_scratch trs;	/* the term rows' matcher's work space (termre.h) */
	/* results */
	struct logmatch_hit *hits;
	size_t nhits, hits_cap;
	uint8_t ev_seen[LR_MAX_EVIDENCE];	/* per evidence literal of the rules: seen in the log */
	int ev_prompt;			/* the evidence literal CTRPROMPT_EV stands for (ctrprompt.h), -1: none */
	long dropped;			/* matches beyond LM_MAX_HITS */
	int newest_first;		/* the log reads newest first (lognorm_newest_first()); set by the caller */
	long lines_seen;		/* normalised lines looked at */
	long input_lines;		/* last input line number seen */
};

void logmatch_init(struct logmatch *m, const struct logrules *rules);
void logmatch_release(struct logmatch *m);
/* Forget the hits (and counters), keep the automaton: for matching another log. */
void logmatch_clear(struct logmatch *m);
/* A lognorm callback: arg is the struct logmatch. */
void logmatch_line_cb(const struct lognorm_line *l, void *arg);
/*
 * A line's match, taken with logmatch_known_take() right after
 * logmatch_line() on the same text, and handed to logmatch_line_known()
 * later instead of matching the line again (logjoin matches the line it
 * holds back before it passes it on); k NULL: match it now.
 */
struct logmatch_known {
	const struct logrule *rule;
	size_t off[LR_MAX_CAPS], clen[LR_MAX_CAPS];
	size_t won_start, won_end;
};
void logmatch_known_take(const struct logmatch *m, const struct logrule *r, const size_t *off,
			 const size_t *clen, struct logmatch_known *k);
void logmatch_line_known(const struct lognorm_line *l, struct logmatch *m, const struct logmatch_known *k);
/* Whether one of a condition's literals occurred in the log seen so far. */
int logmatch_cond_seen(const struct logmatch *m, const struct lr_cond *c);
/* Which rule matches text (NULL: none); captures into off/len (LR_MAX_CAPS each). */
const struct logrule *logmatch_line(struct logmatch *m, const char *text, size_t len,
				    size_t *off, size_t *clen);
/*
 * The same, among the rules that rank before bound only (a rule of
 * m->rules; NULL: all): whether text makes a more specific message than
 * one already known.  Rules at or after the bound cost no regexec: logjoin
 * asks this of every line it could join (a 10 MB log of one message paid
 * three full matches a line).
 */
const struct logrule *logmatch_line_before(struct logmatch *m, const char *text, size_t len,
					   const struct logrule *bound, size_t *off, size_t *clen);

#endif
