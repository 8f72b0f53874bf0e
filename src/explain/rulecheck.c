/* rulecheck.c - refusing rule ids and regexes that are unsafe to print or run; see rulecheck.h. */
#include "explain/rulecheck.h"

#include "explain/termre.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

static int id_ok(const char *id)
{
	if (!*id)
		return 0;
	for (const char *p = id; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-'))
			return 0;
	return 1;
}

/* The end of the bracket expression that starts at p ('['), or NULL. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p; p++) {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *e = strchr(p + 2, p[1]);

			while (e && e[1] != ']')
				e = strchr(e + 1, p[1]);
			if (!e)
				return NULL;
			p = e + 1;
		} else if (*p == ']') {
			return p;
		}
	}
	return NULL;
}

/* The upper bound of the interval at p ('{'), its end in *end; -1 when malformed. */
static long interval_max(const char *p, const char **end)
{
	char *q;
	long lo = strtol(p + 1, &q, 10), hi = lo;

	if (q == p + 1)
		return -1;
	if (*q == ',') {
		const char *h = q + 1;

		hi = *h == '}' ? lo : strtol(h, &q, 10);	/* "{n,}": n copies and a star */
		if (*h == '}')
			q = (char *)h;
	}
	if (*q != '}')
		return -1;
	*end = q;
	return hi;
}

int rulecheck_row(const char *id, const char *pattern, const char **why)
{
	/* per open group: whether it holds a bounded repetition */
	int inner[MAX_DEPTH + 1] = { 0 };
	int depth = 0;
	/* what the last token was: 1 a bounded repetition, 2 a group holding one */
	int last = 0;

	if (!id_ok(id))
		return *why = "a rule id is lower-case letters, digits and '-'", -1;
	/* a vocabulary-tier row runs on termre, which reads a subset of what regcomp reads */
	if (pattern && !strncmp(id, "term-", 5) && termre_check(pattern, why) < 0)
		return -1;
	for (const char *p = pattern; p && *p; p++) {
		int prev = last;

		last = 0;
		if (*p == '\\') {
			if (p[1] >= '1' && p[1] <= '9')
				return *why = "a back-reference (\\1..\\9) in a regex: its cost has no bound", -1;
			if (p[1])
				p++;
		} else if (*p == '[') {
			const char *e = bracket_end(p);

			if (!e)
				return *why = "an unclosed bracket expression in a regex", -1;
			p = e;
		} else if (*p == '(') {
			if (depth == MAX_DEPTH)
				return *why = "groups nested deeper than 32 in a regex", -1;
			inner[++depth] = 0;
		} else if (*p == ')' && depth > 0) {
			last = inner[depth] ? 2 : 0;
			depth--;
			inner[depth] |= last != 0;
		} else if (*p == '{') {
			const char *e;
			long hi = interval_max(p, &e);

			if (hi < 0)
				continue;	/* a literal '{': regcomp decides */
			if (prev)
				return *why = "a bounded repetition on a bounded repetition in a regex", -1;
			if (hi > RULECHECK_MAX_BOUND)
				return *why = "a repetition bound above 255 in a regex", -1;
			inner[depth] = 1;
			last = 1;
			p = e;
		}
	}
	return 0;
}
