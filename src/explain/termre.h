/*
 * termre.h - the vocabulary tier's regexes (rows "term-*" of explain.tsv,
 * logrules.h) answered without glibc's regexec, in time linear in the text.
 *
 * A term row's regex is a list of chains, "DOMAIN.{0,80}ERROR|ERROR.{0,80}
 * DOMAIN": parts (small regexes: words, alternations, brackets, \b, ^, $)
 * joined by gaps ".{0,N}" at the top level.  glibc's regexec tries every
 * start position and runs each one up to the gap's 80 bytes, so a line
 * crafted to repeat a domain word beside error words that do not complete
 * cost about 10 s per 100 MB per row, 45 s with every row's word in it.
 * termre answers the same question -- does the pattern match somewhere in
 * these bytes, seen as regexec(REG_STARTEND) sees them with REG_NOTBOL /
 * REG_NOTEOL -- another way:
 *   - each part is compiled twice, forwards and with its concatenations
 *     reversed, for a backtracking machine that remembers every (instruction,
 *     position) it tried, so one pass over a text costs at most
 *     instructions x bytes, whatever the part;
 *   - one forward pass from every start gives the positions where some
 *     match of a part ends; one backward pass from every end gives the
 *     positions where some match starts (a pass starts only where the
 *     part's first two bytes can be, so most bytes cost one table load);
 *   - a gap ".{0,N}" joins an end e to a start s when e <= s <= e + N and
 *     no NUL lies between ('.' does not match NUL); a later end only widens
 *     the reach, so the latest end before s is the only one to look at;
 *   - a middle part of a longer chain is run forwards from the starts the
 *     gap allows only.
 * Parts that read the same (the shared error vocabulary of most rows) are
 * computed once per text: a scratch keeps their positions for the window
 * being matched, so the rows that look at one window share the work.
 *
 * The row's regex stays the specification: tests/unit/test_termre.c and
 * tests/fuzz/fuzz_termre.c compare termre_match with regexec on generated
 * and fuzzed texts.  termre_compile refuses what it does not handle, with
 * the reason (rulecheck.c refuses such a term row): back-references,
 * character classes [:name:] and collating elements, escapes other than \b
 * and an escaped punctuation character, a gap other than ".{0,N}" at the
 * top level, repetitions stacked on one another, anything too large.  It
 * runs in the C locale, as gpudoctor does (bytes, ASCII case folding,
 * ASCII letters, digits and '_' as word characters).
 *
 *	struct termre *t; const char *why;
 *	if (termre_compile(pattern, icase, &t, &why) < 0) ... refuse: why ...
 *	struct termre_scratch s; termre_scratch_init(&s);
 *	termre_scratch_newtext(&s);	// before each new text, and after a termre_free()
 *	int rc = termre_match(t, text, len, notbol, noteol, &s);  // 1, 0; -1: too large, ask regexec
 *	termre_scratch_release(&s); termre_free(t);
 */
#ifndef GD_TERMRE_H
#define GD_TERMRE_H

#include <stddef.h>
#include <stdint.h>

#define TERMRE_MAX_PROG 8192		/* instructions in one compiled part */
#define TERMRE_MAX_VISIT (64u << 20)	/* (join point, position) pairs one pass may remember (8 MB of bits) */
#define TERMRE_CACHE 32			/* part positions kept for the current window */

struct termre;

struct termre_cached {
	uint64_t hash;
	const char *key;	/* the part's identity: its text, shared by rows with the same text */
	int backward;
	uint64_t *bits;		/* len + 1 positions */
	size_t cap;		/* words */
	int any;
};

struct termre_scratch {
	uint64_t *vis;		/* visited bits, (len + 1) x join points */
	size_t vis_cap;		/* words */
	int32_t *stack;		/* (pc, pos) pairs */
	size_t stack_cap;
	uint64_t *tmp[2];	/* allowed starts, ends of a middle part */
	size_t tmp_cap;
	/* the window the cache is for */
	unsigned long text_serial;
	const char *win_text;
	size_t win_len;
	int win_flags;
	struct termre_cached cache[TERMRE_CACHE];
	size_t ncache;
};

int termre_compile(const char *pattern, int icase, struct termre **out, const char **why);
void termre_free(struct termre *t);
/* Whether pattern can be read and split into parts (rulecheck.c): 0, or -1 and *why; a part too large is refused by termre_compile. */
int termre_check(const char *pattern, const char **why);

void termre_scratch_init(struct termre_scratch *s);
void termre_scratch_release(struct termre_scratch *s);
/* The bytes behind the pointers passed before may change now: forget the cached positions. */
void termre_scratch_newtext(struct termre_scratch *s);

/*
 * Whether t matches somewhere in text[0 .. len), as regexec with
 * REG_STARTEND over the same bytes and REG_NOTBOL (notbol) / REG_NOTEOL
 * (noteol) would say: 1 or 0; -1 when the text is too long for the visit
 * table (TERMRE_MAX_VISIT): the caller asks regexec.
 */
int termre_match(const struct termre *t, const char *text, size_t len, int notbol, int noteol,
		 struct termre_scratch *s);

#endif
