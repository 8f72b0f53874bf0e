/*
 * ctr_require.c - NVIDIA_REQUIRE_* constraints evaluated the way
 * libnvidia-container does (NVIDIA/libnvidia-container src/cli/dsl.c,
 * dsl_evaluate and dsl_compare_version): a constraint is "key op value"
 * with op one of = != < <= > >= and key cuda, driver, arch or brand;
 * constraints joined by ',' must all hold, alternatives separated by ' '
 * need one to hold.  Versions compare number by number ("12.8" vs
 * "12.8.0" are equal); brands compare without case.  A fact we do not
 * know makes its constraint unknown, never false: the result is 1 holds,
 * 0 fails (failed names the first failing constraint), -1 unknown.
 */
#include "rules/ctr_require.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

static int all_version_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return 0;
	return n > 0;
}

/* -1: a or b is not a version; else compares like dsl_compare_version. */
static int version_cmp(const char *a, size_t na, const char *b, size_t nb, int *out)
{
	size_t i = 0, j = 0;

	if (!all_version_chars(a, na) || !all_version_chars(b, nb))
		return -1;
	while (i < na || j < nb) {
		unsigned long long x = 0, y = 0;

		while (i < na && a[i] == '.')
			i++;
		while (j < nb && b[j] == '.')
			j++;
		for (int k = 0; i < na && a[i] != '.'; i++, k++)
			if (k < 18)
				x = x * 10 + (unsigned)(a[i] - '0');
		for (int k = 0; j < nb && b[j] != '.'; j++, k++)
			if (k < 18)
				y = y * 10 + (unsigned)(b[j] - '0');
		if (x != y) {
			*out = x < y ? -1 : 1;
			return 0;
		}
	}
	*out = 0;
	return 0;
}

static int apply(enum cmp op, int c)
{
	switch (op) {
	case CMP_EQ: return c == 0;
	case CMP_NE: return c != 0;
	case CMP_LT: return c < 0;
	case CMP_LE: return c <= 0;
	case CMP_GT: return c > 0;
	case CMP_GE: return c >= 0;
	}
	return 0;
}

/* One "key op value" (not NUL-terminated): 1, 0 or -1 unknown. */
static int atom(const char *s, size_t n, const struct ctr_require_facts *f)
{
	size_t k = 0, o;
	enum cmp op;
	const char *fact = NULL;
	int c;

	while (k < n && !strchr("<>=!", s[k]))
		k++;
	o = k;
	while (o < n && strchr("<>=!", s[o]))
		o++;
	if (k == 0 || o == k || o == n)
		return -1;	/* not an expression: the toolkit refuses it, we cannot judge */
	if (o - k == 1 && s[k] == '=')
		op = CMP_EQ;
	else if (o - k == 2 && !memcmp(s + k, "!=", 2))
		op = CMP_NE;
	else if (o - k == 1 && s[k] == '<')
		op = CMP_LT;
	else if (o - k == 2 && !memcmp(s + k, "<=", 2))
		op = CMP_LE;
	else if (o - k == 1 && s[k] == '>')
		op = CMP_GT;
	else if (o - k == 2 && !memcmp(s + k, ">=", 2))
		op = CMP_GE;
	else
		return -1;
	if (k == 4 && !strncasecmp(s, "cuda", 4))
		fact = f->cuda;
	else if (k == 6 && !strncasecmp(s, "driver", 6))
		fact = f->driver;
	else if (k == 4 && !strncasecmp(s, "arch", 4))
		fact = f->arch;
	else if (k == 5 && !strncasecmp(s, "brand", 5)) {
		if (!f->brand || (op != CMP_EQ && op != CMP_NE))
			return -1;
		c = strlen(f->brand) == n - o && !strncasecmp(f->brand, s + o, n - o) ? 0 : 1;
		return apply(op, c);
	} else {
		return -1;
	}
	if (!fact || version_cmp(fact, strlen(fact), s + o, n - o, &c) < 0)
		return -1;
	return apply(op, c);
}

int ctr_require_eval(const char *pred, const struct ctr_require_facts *f, char *failed,
		     size_t failedsz)
{
	const char *p = pred;
	int any_unknown = 0, nalts = 0;

	if (failedsz)
		failed[0] = '\0';
	while (*p) {
		const char *alt_end = strchr(p, ' ');
		size_t alen = alt_end ? (size_t)(alt_end - p) : strlen(p);
		int all = 1, unknown = 0;

		for (const char *a = p; a < p + alen;) {
			const char *c = memchr(a, ',', (size_t)(p + alen - a));
			size_t clen = c ? (size_t)(c - a) : (size_t)(p + alen - a);

			if (clen) {
				int r = atom(a, clen, f);

				if (r == 0) {
					all = 0;
					if (failedsz && !failed[0])
						snprintf(failed, failedsz, "%.*s", (int)clen, a);
					break;
				}
				unknown |= r < 0;
			}
			a = c ? c + 1 : p + alen;
		}
		nalts += alen > 0;
		if (alen && all && !unknown)
			return 1;
		any_unknown |= alen && all && unknown;
		p = alt_end ? alt_end + 1 : p + alen;
	}
	if (any_unknown) {
		if (failedsz)
			failed[0] = '\0';
		return -1;
	}
	return nalts ? 0 : -1;
}
