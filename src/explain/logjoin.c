/*
 * logjoin.c - rejoin a message wrapped over two lines; see logjoin.h.
 *
 * The join is tried only for a line that ends mid-phrase before a line that
 * starts in lower case, so a plain log costs one copy per line; the joined
 * text is bounded (two lines of at most LJ_MAX bytes each).
 */
#include "explain/logjoin.h"

#include <ctype.h>
#include <string.h>

#define LJ_MAX 4096

void logjoin_init(struct logjoin *j, struct logmatch *m)
{
	memset(j, 0, sizeof(*j));
	j->m = m;
	buf_init(&j->text);
	buf_init(&j->frames);
	buf_init(&j->joined);
}

void logjoin_release(struct logjoin *j)
{
	buf_release(&j->text);
	buf_release(&j->frames);
	buf_release(&j->joined);
}

static void pass_held(struct logjoin *j)
{
	if (!j->have)
		return;
	j->held.text = buf_cstr(&j->text);
	j->held.len = j->text.len;
	j->held.frames = j->held.frames ? buf_cstr(&j->frames) : NULL;
	logmatch_line_cb(&j->held, j->m);
	j->have = 0;
}

static void hold(struct logjoin *j, const struct lognorm_line *l)
{
	j->held = *l;
	buf_reset(&j->text);
	buf_add(&j->text, l->text, l->len);
	buf_reset(&j->frames);
	if (l->frames)
		buf_puts(&j->frames, l->frames);
	j->have = 1;
}

/* The held line stops mid-phrase and l goes on with a lower-case word. */
static int wrapped(const struct logjoin *j, const struct lognorm_line *l)
{
	unsigned char last;

	if (!j->have || j->held.count != 1 || l->count != 1 || j->held.flags || l->flags ||
	    !j->text.len || !l->len || j->text.len > LJ_MAX || l->len > LJ_MAX)
		return 0;
	last = (unsigned char)j->text.s[j->text.len - 1];
	return isalnum(last) && islower((unsigned char)l->text[0]);
}

static int cause_rule(const struct logrule *r)
{
	return r && r->cls == LR_CAUSE;
}

void logjoin_line_cb(const struct lognorm_line *l, void *arg)
{
	struct logjoin *j = arg;
	size_t off[LR_MAX_CAPS], len[LR_MAX_CAPS];

	if (wrapped(j, l)) {
		const struct logrule *both, *first;

		buf_reset(&j->joined);
		buf_add(&j->joined, j->text.s, j->text.len);
		buf_addc(&j->joined, ' ');
		buf_add(&j->joined, l->text, l->len);
		both = logmatch_line(j->m, buf_cstr(&j->joined), j->joined.len, off, len);
		first = cause_rule(both) ? logmatch_line(j->m, buf_cstr(&j->text), j->text.len, off, len) : NULL;
		if (cause_rule(both) && first != both) {
			struct lognorm_line jl = *l;

			jl.text = buf_cstr(&j->joined);
			jl.len = j->joined.len;
			jl.first = j->held.first;
			j->have = 0;
			logmatch_line_cb(&jl, j->m);
			return;
		}
	}
	pass_held(j);
	hold(j, l);
}

void logjoin_finish(struct logjoin *j)
{
	pass_held(j);
}
