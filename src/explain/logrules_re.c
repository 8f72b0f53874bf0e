/*
 * logrules_re.c - a rule's regexes, compiled at their first use: the row's
 * own (logrule_regex()) and the cheaper one that says only whether it
 * matches (logrule_presence()); see logrules.h.
 */
#include "explain/logrules.h"

#include <ctype.h>
#include <string.h>

const regex_t *logrule_regex(const struct logrule *r)
{
	/* the rules are the table's own, not const: compiling one in place is its first use */
	struct logrule *w = (struct logrule *)r;

	if (r->re_later) {
		w->re_later = 0;
		w->re_ok = regcomp(&w->re, r->pattern, REG_EXTENDED | (r->icase ? REG_ICASE : 0)) == 0;
	}
	return r->re_ok ? &r->re : NULL;
}

const regex_t *logrule_presence(const struct logrule *r)
{
	static const char *const lead[] = {"(.*)", ".*"};
	struct logrule *w = (struct logrule *)r;	/* as in logrule_regex() */

	if (r->pre_state == 0) {
		w->pre_state = -1;
		for (size_t k = 0; k < sizeof(lead) / sizeof(lead[0]) && r->kind == LR_RE; k++) {
			size_t n = strlen(lead[k]);
			const char *rest, *bs;

			if (strncmp(r->pattern, lead[k], n))
				continue;
			rest = bs = r->pattern + n;
			/* a back-reference's group would be renumbered */
			while ((bs = strchr(bs, '\\')) && bs[1] && !isdigit((unsigned char)bs[1]))
				bs += 2;
			/*
			 * the rest must not start with a repetition (it would bind to the
			 * prefix) or a branch's end, nor hold a '^' (after "(.*)", glibc
			 * lets it match after a newline; at the start of a pattern, never)
			 * or start with an assertion on the byte before it
			 */
			if (!*rest || strchr("*+?{|)\\", *rest) || strchr(rest, '^') || bs ||
			    (rest[0] == '(' && rest[1] == '\\'))
				break;
			if (regcomp(&w->pre, rest, REG_EXTENDED | REG_NOSUB | (r->icase ? REG_ICASE : 0)) == 0)
				w->pre_state = 1;
			break;
		}
	}
	return r->pre_state == 1 ? &r->pre : NULL;
}
