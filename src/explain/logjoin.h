/*
 * logjoin.h - put back together a message that a terminal or an issue
 * renderer wrapped over two lines.
 *
 * "DataLoader worker (pid 3002) is killed by signal: Bus" followed by
 * "error. It is possible that ..." matches no rule, line by line.  logjoin
 * sits between the normaliser and the matcher and holds one line back: when
 * that line ends mid-phrase (a letter, digit or ')', no sentence end) and the next
 * one starts with a lower-case letter, or with a capital after a word no
 * sentence ends with ("insufficient for" / "CUDA runtime version"), it tries
 * the two joined with a space (so too a call on a prompt's line, ">>> torch.cuda.is_available()",
 * and the bare value echoed on the next, "False"), and for a long line (LJ_WRAP_MIN) cut inside
 * a word by a fixed-width wrap ("insuffic" / "ient") joined without one;
 * an interactive Python's result under its expression (">>> f()" / "False",
 * IPython's "Out[2]: False") is tried joined too;
 * if the joined line makes a known message (a cause rule matches it) that the
 * first line alone does not, the joined line goes to the matcher instead of
 * the two; when the first line alone names a cause already, only a rule
 * ranked before that one may take the joined line (logmatch_line_before),
 * and the first line's own match is kept for when it is passed on, so a line
 * costs at most one full match and an anchor scan.  Any other line passes
 * through unchanged, one line late.
 *
 *	struct logjoin j;
 *	logjoin_init(&j, &m);			// m: a struct logmatch
 *	lognorm_init(&n, logjoin_line_cb, &j);	... feed, finish ...
 *	logjoin_finish(&j);			// passes the line held back
 *	logjoin_release(&j);
 */
#ifndef GD_LOGJOIN_H
#define GD_LOGJOIN_H

#include "core/buf.h"
#include "explain/logmatch.h"
#include "explain/lognorm.h"

struct logjoin {
	struct logmatch *m;
	struct lognorm_line held;	/* its text and frames live in the buffers below */
	struct buf text, frames, joined;
	int have;
	int known;			/* the held line was matched already: its match */
	struct logmatch_known match;
	struct logmatch_known jmatch;	/* the joined line's match, found by try_join() */
};

void logjoin_init(struct logjoin *j, struct logmatch *m);
void logjoin_line_cb(const struct lognorm_line *l, void *arg);
void logjoin_finish(struct logjoin *j);
void logjoin_release(struct logjoin *j);

#endif
