/*
 * linememo.h - which rule a log line matched, remembered by the line's
 * text, so that a log that repeats its lines pays the rules' regexec once
 * per distinct line.
 *
 * Big logs repeat: a crash loop prints the same report every restart, each
 * rank of a job prints the same NCCL warning, a training loop the same OOM
 * every step.  lognorm folds only consecutive copies; a repeated block of
 * five lines reached the rules every time (50 MB of one repeated NCCL
 * report took 9 s, regexec being most of it).  A line's match is a pure
 * function of its text and the rule table, so logmatch keeps one memo per
 * table and asks it before the line is scanned at all; it never goes
 * stale.  The evidence literals the line holds are remembered with it, so
 * a remembered line still counts as evidence in the next log.
 *
 * The memo is direct-mapped by a hash of the text and verifies the text
 * byte for byte, so a collision costs a miss, never a wrong answer.
 * Lines over LINEMEMO_MAX_LINE bytes are not remembered (they are rare
 * and the copy would cost more than it saves); memory stays under
 * LINEMEMO_SLOTS * LINEMEMO_MAX_LINE bytes of text.
 *
 *	uint64_t h;
 *	const struct linememo_slot *s = linememo_find(&memo, text, len, &h);
 *	if (s) use(s->rule, s->off, s->clen, s->ev, ...);
 *	else { match, linememo_note_ev(&result, ev) per literal; linememo_put(&memo, h, text, len, &result); }
 *	linememo_release(&memo);
 */
#ifndef GD_LINEMEMO_H
#define GD_LINEMEMO_H

#include <stddef.h>
#include <stdint.h>

#include "explain/logrules.h"

#define LINEMEMO_SLOTS 8192
#define LINEMEMO_MAX_LINE 1024
#define LINEMEMO_MAX_EV 8	/* evidence literals a remembered line may carry */

struct linememo_slot {
	uint64_t hash;
	size_t len;			/* 0: empty */
	char *text;			/* len bytes, owned */
	size_t cap;
	const struct logrule *rule;	/* the winning rule, NULL: none matched */
	size_t off[LR_MAX_CAPS], clen[LR_MAX_CAPS];
	size_t won_start, won_end;
	uint16_t ev[LINEMEMO_MAX_EV];	/* the evidence literals (logmatch's ev_seen indices) in the line */
	uint8_t nev;			/* LINEMEMO_MAX_EV + 1: too many, the line is not remembered */
};

struct linememo {
	struct linememo_slot *slot;	/* LINEMEMO_SLOTS, allocated on first put */
	unsigned long found, missed;	/* for tests and profiling */
};

/* The slot remembered for text, or NULL; *hash gets the text's hash for linememo_put(). */
const struct linememo_slot *linememo_find(struct linememo *mm, const char *text, size_t len,
					  uint64_t *hash);
/* Note evidence literal ev in the line (more than LINEMEMO_MAX_EV: the line will not be remembered). */
static inline void linememo_note_ev(struct linememo_slot *r, size_t ev)
{
	for (uint8_t k = 0; k < r->nev && k < LINEMEMO_MAX_EV; k++)
		if (r->ev[k] == ev)
			return;
	if (r->nev < LINEMEMO_MAX_EV)
		r->ev[r->nev] = (uint16_t)ev;
	if (r->nev <= LINEMEMO_MAX_EV)
		r->nev++;
}
/* Remember r's result for text (whose hash linememo_find() gave); too long a line is ignored. */
void linememo_put(struct linememo *mm, uint64_t hash, const char *text, size_t len,
		  const struct linememo_slot *r);
void linememo_release(struct linememo *mm);

#endif
