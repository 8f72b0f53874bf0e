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
#include <strings.h>

#define LJ_MAX 4096
#define LJ_WRAP_MIN 60	/* a terminal or mail wrap cuts lines of 72, 80 or more */

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

/* a known message: an exact cause row (a term row's words are too loose to justify a join) */
static int cause_rule(const struct logrule *r)
{
	return r && r->cls == LR_CAUSE && !logrule_is_term(r);
}

static void pass_held(struct logjoin *j)
{
	if (!j->have)
		return;
	j->held.text = buf_cstr(&j->text);
	j->held.len = j->text.len;
	j->held.frames = j->held.frames ? buf_cstr(&j->frames) : NULL;
	logmatch_line_known(&j->held, j->m, j->known ? &j->match : NULL);
	j->have = 0;
	j->known = 0;
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
	j->known = 0;
}

/*
 * The held line ends with a word no sentence ends with ("insufficient for",
 * "out of", "the"): what follows continues it even when it starts with a
 * capital ("CUDA runtime version").
 */
static int ends_open(const char *s, size_t len)
{
	static const char *const open_words[] = {
		"a", "an", "the", "of", "for", "to", "with", "in", "on", "at", "by", "from", "and",
		"or", "is", "are", "was", "be", "not", "no", "than", "that", "this", "your", "its",
	};
	size_t b = len;

	while (b > 0 && isalpha((unsigned char)s[b - 1]))
		b--;
	if (b == len || len - b > 5 || (b > 0 && s[b - 1] != ' '))
		return 0;
	for (size_t i = 0; i < sizeof(open_words) / sizeof(open_words[0]); i++)
		if (strlen(open_words[i]) == len - b && !strncasecmp(open_words[i], s + b, len - b))
			return 1;
	return 0;
}

/*
 * l is the value an interactive prompt echoed for the call on the held line
 * (">>> torch.cuda.is_available()" then "False"; "tf.config.list_physical_devices('GPU')"
 * then "[]"; IPython's "Out[2]: False"): the question and its answer are one
 * statement that rows are written for on one line ("is_available() False"),
 * and users paste them from a REPL or a notebook on two (issue 20, round 11,
 * fwlib and ctr found it apart).  Only the bare values such probes answer
 * with, so a log line that happens to start with "True" is not glued to a call.
 */
static int repl_value(const char *s, size_t len)
{
	static const char *const values[] = { "False", "True", "None", "[]", "0", "'cpu'", "'gpu'" };
	size_t i = 0;

	if (len > 4 && !strncmp(s, "Out[", 4)) {
		for (i = 4; i < len && isdigit((unsigned char)s[i]); i++)
			;
		if (i == 4 || i + 2 > len || s[i] != ']' || s[i + 1] != ':')
			return 0;
		for (i += 2; i < len && s[i] == ' '; i++)
			;
		s += i;
		len -= i;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++)
		if (strlen(values[k]) == len && !memcmp(values[k], s, len))
			return 1;
	return 0;
}

/*
 * The held line stops mid-phrase and l goes on with a lower-case word, or
 * with any word after a word that cannot end a sentence; or the held line is
 * a call and l the value a prompt echoed for it (repl_value()).
 */
static int wrapped(const struct logjoin *j, const struct lognorm_line *l)
{
	unsigned char last, first;

	/* the next line may not start a record of its own (a logger's level or
	   source prefix other than the held line's: vLLM's formatter repeats a
	   record's prefix on each of its lines) nor come from another writer
	   (rank, host); an NCCL INFO line is one whole record ("host:pid:tid
	   [0] NCCL INFO ...") */
	if (!j->have || j->held.count != 1 || l->count != 1 || (j->held.flags & ~LN_RECORD) ||
	    (l->flags & ~LN_RECORD) || ((l->flags & LN_RECORD) && j->held.record != l->record) ||
	    j->held.writer != l->writer || !j->text.len || !l->len ||
	    j->text.len > LJ_MAX || l->len > LJ_MAX)
		return 0;
	last = (unsigned char)j->text.s[j->text.len - 1];
	first = (unsigned char)l->text[0];
	/* "cuInit(0)" on a line of its own before "failed with ..." ends a call, not a sentence */
	return (((isalnum(last) || last == ')') &&
		 (islower(first) || (isupper(first) && ends_open(j->text.s, j->text.len)))) ||
		(last == ')' && repl_value(l->text, l->len))) &&
	       !memmem(j->text.s, j->text.len, "NCCL INFO", 9);
}

/*
 * The joined line (with a space, or without: a word cut by a fixed-width
 * wrap) makes a known message that the held line alone (first, its winner)
 * does not.  When the held line alone already names a cause, only a more
 * specific rule (one ranked before it) can replace it, so only those are
 * tried: a log of one message repeated, each line "wrapped" into the next
 * by the test above, costs an anchor scan per line, not a regexec.
 */
static const struct logrule *try_join(struct logjoin *j, const struct lognorm_line *l, int space,
				      const struct logrule *first)
{
	size_t off[LR_MAX_CAPS], len[LR_MAX_CAPS];
	const struct logrule *both;

	buf_reset(&j->joined);
	buf_add(&j->joined, j->text.s, j->text.len);
	if (space)
		buf_addc(&j->joined, ' ');
	buf_add(&j->joined, l->text, l->len);
	both = logmatch_line_before(j->m, buf_cstr(&j->joined), j->joined.len,
				    cause_rule(first) ? first : NULL, off, len);
	if (!cause_rule(both) || first == both)
		return NULL;
	/* every rule ranked before it was tried and failed: it is the joined
	   line's full match, kept so the line is not matched again */
	logmatch_known_take(j->m, both, off, len, &j->jmatch);
	return both;
}

void logjoin_line_cb(const struct lognorm_line *l, void *arg)
{
	struct logjoin *j = arg;

	if (wrapped(j, l)) {
		size_t off[LR_MAX_CAPS], len[LR_MAX_CAPS];
		const struct logrule *first = logmatch_line(j->m, buf_cstr(&j->text), j->text.len, off, len);

		/* kept for pass_held(): the held line is not matched twice */
		logmatch_known_take(j->m, first, off, len, &j->match);
		j->known = 1;

		/* a mid-word cut only where a fixed-width wrap can put it: a long line, a lower-case rest */
		if (try_join(j, l, 1, first) ||
		    (j->text.len >= LJ_WRAP_MIN && islower((unsigned char)l->text[0]) &&
		     isalpha((unsigned char)j->text.s[j->text.len - 1]) && try_join(j, l, 0, first))) {
			struct lognorm_line jl = *l;

			jl.text = buf_cstr(&j->joined);
			jl.len = j->joined.len;
			jl.first = j->held.first;
			j->have = 0;
			j->known = 0;
			logmatch_line_known(&jl, j->m, &j->jmatch);
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
