/*
 * reqlit.h - the literals every match of a POSIX ERE must contain, derived
 * from the pattern, for explain's prefilter (logmatch.h).
 *
 * A row's anchor says which literal a matching line contains; a line
 * crafted (or unlucky) to repeat the anchors of many rows sent every one of
 * them to regexec, each costing a pass over its window (a 100 MB paste of
 * "fabric manager erro fai unabl ..." took 8 s, two thirds of it in rows
 * whose other words never occur).  The pattern itself says more: in
 * "fabric[ -]?manager ... (not|never) (running|started)" every match holds
 * "fabric", "manager", one of "not"/"never" and one of "running"/"started".
 * reqlit_derive() returns such facts as factors: sets of literals (lower
 * case) of which every match contains at least one.  A line that lacks
 * every literal of some factor cannot match, so the row's regexec is skipped
 * and the answer is the same.
 *
 * The derivation is conservative: a construct it does not read (a bracket
 * with a range or a class, an escape such as \w, a back-reference, '.')
 * says nothing, it never says something false; a pattern it cannot parse
 * gives no factor at all (the row always runs).  Sets are bounded
 * (REQLIT_MAX_SET literals) and a literal longer than REQLIT_MAX_LEN is cut
 * to its prefix (which every match still contains).  Factors with a literal
 * under REQLIT_MIN_LEN bytes are dropped: they filter nothing and would
 * fire on most lines.  tests/unit/test_reqlit.c checks, for every re/rei
 * row of the embedded table and every line of the corpus and of generated
 * texts, that a line regexec matches holds every factor.
 *
 *	struct reqlit_factor *f; size_t n;
 *	reqlit_derive(pattern, &f, &n);	// n == 0: nothing known
 *	for each f[k]: the text must contain one of f[k].lit[0 .. f[k].n)
 *	reqlit_free(f, n);
 */
#ifndef GD_REQLIT_H
#define GD_REQLIT_H

#include <stddef.h>

#define REQLIT_MAX_SET 64	/* literals in one factor */
#define REQLIT_MAX_LEN 12	/* bytes of one literal (longer: its prefix): each byte is a state of the automaton */
#define REQLIT_MIN_LEN 3	/* shorter literals make no factor */
#define REQLIT_MAX_OUT 6	/* factors kept per pattern */
#define REQLIT_MAX_DEPTH 64	/* nested groups read */
#define REQLIT_MAX_MERGES 512	/* '|' read in one pattern (197 in the longest row at round 13; past it, no factor) */

struct reqlit_factor {
	char **lit;		/* lower case, NUL-terminated, owned */
	size_t n;
};

/* Factors of pattern (an ERE as regcomp(REG_EXTENDED) reads it, with or without REG_ICASE). */
void reqlit_derive(const char *pattern, struct reqlit_factor **out, size_t *nout);
void reqlit_free(struct reqlit_factor *f, size_t n);

#endif
