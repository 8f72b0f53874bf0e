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

/* What a typographic character stands for in a log: ' ', '\'', '"'; 0 for another. */
static char typo_ascii(unsigned v)
{
	switch (v) {
	case 0xa0: case 0x2007: case 0x202f: return ' ';	/* no-break spaces */
	case 0x2018: case 0x2019: return '\'';
	case 0x201c: case 0x201d: return '"';
	}
	return 0;
}

/* The code point of a 2- or 3-byte UTF-8 sequence at s (n bytes left) that typo_ascii knows, or 0; *used its length. */
static unsigned typo_at(const unsigned char *s, size_t n, size_t *used)
{
	if (n >= 2 && s[0] == 0xc2 && s[1] == 0xa0) {
		*used = 2;
		return 0xa0;
	}
	if (n >= 3 && s[0] == 0xe2 && (s[1] == 0x80 || s[1] == 0x81) && s[2] >= 0x80 && s[2] < 0xc0) {
		unsigned v = 0x2000u + ((unsigned)(s[1] & 0x3f) << 6) + (s[2] & 0x3fu);

		*used = 3;
		return v == 0x200b || typo_ascii(v) ? v : 0;	/* 0x200b: zero-width space */
	}
	return 0;
}

int logescape_typo_found(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t used;

	for (; p < end; p++)
		if ((*p == 0xc2 || *p == 0xe2) && typo_at(p, (size_t)(end - p), &used))
			return 1;
	return 0;
}

void logescape_typo(struct buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		size_t used = 1;
		unsigned v = (p[i] == 0xc2 || p[i] == 0xe2) ? typo_at(p + i, len - i, &used) : 0;

		if (!v) {
			buf_addc(out, s[i]);
			continue;
		}
		if (v != 0x200b)
			buf_addc(out, typo_ascii(v));
		i += used - 1;
	}
}

/* HTML's escapes of the characters logs use, and numeric ones below 128. */
int logescape_html_found(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '&', (size_t)(end - p))) && end - p >= 4) {
		if (!memcmp(p, "&lt;", 4) || !memcmp(p, "&gt;", 4) || (end - p >= 5 && !memcmp(p, "&amp;", 5)) ||
		    (end - p >= 6 && (!memcmp(p, "&quot;", 6) || !memcmp(p, "&nbsp;", 6))) ||
		    (end - p >= 7 && (!memcmp(p + 2, "squo;", 5) || !memcmp(p + 2, "dquo;", 5))) || p[1] == '#')
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
		      { "&quot;", 6, '"' }, { "&apos;", 6, '\'' }, { "&nbsp;", 6, ' ' },
		      { "&lsquo;", 7, '\'' }, { "&rsquo;", 7, '\'' }, { "&ldquo;", 7, '"' },
		      { "&rdquo;", 7, '"' } };

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
			if (j < len && s[j] == ';' && j > i + 2 + (size_t)hex &&
			    ((v >= 0x20 && v < 0x7f) || typo_ascii(v))) {
				buf_addc(out, v < 0x7f ? (char)v : typo_ascii(v));
				i = j;
				done = 1;
			}
		}
		if (!done)
			buf_addc(out, '&');
	}
}

