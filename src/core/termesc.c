/* termesc.c - visible escapes for terminals, and the UTF-8 check JSON shares; see termesc.h. */
#include "core/termesc.h"

#include <string.h>

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of a valid sequence of len bytes. */
static unsigned long utf8_cp(const unsigned char *p, size_t len)
{
	unsigned long cp = len == 1 ? p[0] : len == 2 ? (p[0] & 0x1fu) : len == 3 ? (p[0] & 0x0fu) : (p[0] & 0x07u);

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (p[i] & 0x3fu);
	return cp;
}

void termesc_buf(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		buf_puts(b, "(null)");
		return;
	}
	n = strlen(s);
	while (n) {
		size_t len = utf8_seq_len(p, n);
		unsigned long cp;

		if (len == 0) {
			buf_printf(b, "\\x%02x", *p);
			p++;
			n--;
			continue;
		}
		cp = utf8_cp(p, len);
		if (cp == '\n')
			buf_puts(b, "\\n");
		else if (cp == '\r')
			buf_puts(b, "\\r");
		else if (cp == '\t')
			buf_puts(b, "\\t");
		else if (cp < 0x20 || cp == 0x7f)
			buf_printf(b, "\\x%02lx", cp);
		else if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
			 (cp >= 0x2066 && cp <= 0x2069))
			buf_printf(b, "\\u%04lx", cp);
		else
			buf_add(b, p, len);
		p += len;
		n -= len;
	}
}

const char *tesc(const char *s)
{
	static _Thread_local struct buf ring[TESC_RING];
	static _Thread_local unsigned next;
	struct buf *b = &ring[next++ % TESC_RING];

	buf_reset(b);
	termesc_buf(b, s);
	return b->s;
}
