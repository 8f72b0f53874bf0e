/* buf.c - growable string; see buf.h. */
#include "core/buf.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void buf_reserve(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	int fresh = b->s == NULL;

	if (need <= b->cap)
		return;
	if (b->cap * 2 > need)
		need = b->cap * 2;
	if (need < 64)
		need = 64;
	b->s = xrealloc(b->s, need);
	b->cap = need;
	/* Keep the invariant for a buffer that was never written (BUF_INIT). */
	if (fresh)
		b->s[b->len] = '\0';
}

void buf_init(struct buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
	buf_reserve(b, 0);
	b->s[0] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void buf_reset(struct buf *b)
{
	buf_reserve(b, 0);
	b->len = 0;
	b->s[0] = '\0';
}

void buf_add(struct buf *b, const void *data, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	buf_reserve(b, 0);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *buf_detach(struct buf *b)
{
	char *s;

	buf_reserve(b, 0);
	s = b->s;
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
	return s;
}

void buf_rtrim(struct buf *b)
{
	if (!b->s)
		return;
	while (b->len && isspace((unsigned char)b->s[b->len - 1]))
		b->len--;
	b->s[b->len] = '\0';
}

const char *buf_cstr(const struct buf *b)
{
	return b->s ? b->s : "";
}
