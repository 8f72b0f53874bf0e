/*
 * logescape.c - undo the HTML escaping of a log copied from a web page or an
 * issue's rendered HTML; see logescape.h.  Bounded by len, never by a NUL.
 */
#include "explain/logescape.h"

#include <ctype.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* HTML's escapes of the characters logs use, and numeric ones below 128. */
int logescape_html_found(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '&', (size_t)(end - p))) && end - p >= 4) {
		if (!memcmp(p, "&lt;", 4) || !memcmp(p, "&gt;", 4) || (end - p >= 5 && !memcmp(p, "&amp;", 5)) ||
		    (end - p >= 6 && !memcmp(p, "&quot;", 6)) || p[1] == '#')
			return 1;
		p++;
	}
	return 0;
}

void logescape_html(struct buf *out, const char *s, size_t len)
{
	static const struct {
		const char *name;
		size_t len;
		char c;
	} named[] = { { "&lt;", 4, '<' }, { "&gt;", 4, '>' }, { "&amp;", 5, '&' },
		      { "&quot;", 6, '"' }, { "&apos;", 6, '\'' } };

	buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		size_t k;
		int done = 0;

		if (s[i] != '&') {
			buf_addc(out, s[i]);
			continue;
		}
		for (k = 0; k < sizeof(named) / sizeof(named[0]) && !done; k++) {
			if (len - i >= named[k].len && !memcmp(s + i, named[k].name, named[k].len)) {
				buf_addc(out, named[k].c);
				i += named[k].len - 1;
				done = 1;
			}
		}
		if (!done && i + 3 < len && s[i + 1] == '#') {
			int hex = s[i + 2] == 'x' || s[i + 2] == 'X';
			size_t j = i + 2 + (size_t)hex;
			unsigned v = 0;

			for (; j < len && j < i + 8 && isxdigit((unsigned char)s[j]) && (hex || is_digit(s[j])); j++)
				v = v * (hex ? 16u : 10u) +
				    (unsigned)(is_digit(s[j]) ? s[j] - '0' : (tolower((unsigned char)s[j]) - 'a' + 10));
			if (j < len && s[j] == ';' && j > i + 2 + (size_t)hex && v >= 0x20 && v < 0x7f) {
				buf_addc(out, (char)v);
				i = j;
				done = 1;
			}
		}
		if (!done)
			buf_addc(out, '&');
	}
}

