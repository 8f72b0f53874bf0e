/* version.c - dotted version parsing and comparison; see version.h. */
#include "core/version.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int version_parse(const char *s, struct version *v)
{
	v->n = 0;
	if (!s)
		return -1;
	while (v->n < VERSION_MAX_PARTS && isdigit((unsigned char)*s)) {
		long long part = 0;

		/* digits by hand, not strtol: this runs millions of times in the
		 * knowledge-base walks.  "R9223372036854775807" from a 20-digit
		 * driver version: a part that does not fit is no version at all */
		while (isdigit((unsigned char)*s) && part <= VERSION_PART_MAX)
			part = part * 10 + (*s++ - '0');
		if (part > VERSION_PART_MAX) {
			v->n = 0;
			break;
		}
		v->part[v->n++] = (long)part;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	for (int i = v->n; i < VERSION_MAX_PARTS; i++)
		v->part[i] = 0;
	return v->n ? 0 : -1;
}

int version_cmp(const struct version *a, const struct version *b)
{
	for (int i = 0; i < VERSION_MAX_PARTS; i++) {
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	}
	return 0;
}

/* The next dotted component of *s, advancing *s; -1 at the end, -2 for a
 * part that does not fit. */
static long next_part(const char **s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	v = strtol(*s, &end, 10);
	if (errno == ERANGE || v > VERSION_PART_MAX)
		return -2;
	*s = end;
	if (**s == '.' && isdigit((unsigned char)(*s)[1]))
		(*s)++;
	else
		*s = "";	/* the number ends here */
	return v;
}

/* Component by component with no limit on their number ("0.12.0.1",
 * "1.2.3.4.5.6.7"): struct version keeps VERSION_MAX_PARTS, this does not. */
int version_cmp_str(const char *a, const char *b)
{
	struct version va, vb;
	int ra = version_parse(a, &va), rb = version_parse(b, &vb);

	if (ra < 0 && rb < 0)
		return 0;
	if (ra < 0 || rb < 0)
		return ra < 0 ? -1 : 1;
	for (;;) {
		long x = next_part(&a), y = next_part(&b);

		if (x == -2 || y == -2)		/* version_parse() said both fit */
			return version_cmp(&va, &vb);
		if (x < 0 && y < 0)
			return 0;
		if (x < 0)
			x = 0;
		if (y < 0)
			y = 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
}

void version_from_cuda_int(int v, int *major, int *minor)
{
	*major = v / 1000;
	*minor = (v % 1000) / 10;
}
