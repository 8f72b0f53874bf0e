/*
 * buf.h - a growable NUL-terminated string (git's strbuf idea).
 *
 * Invariant: after any buf_* call, b->s is non-NULL and NUL-terminated, and
 * b->len is strlen-compatible unless binary data was added with buf_add.
 * buf_detach hands the storage to the caller (free() it) and re-inits b.
 *
 *	struct buf b = BUF_INIT;
 *	buf_printf(&b, "%s/%s", dir, name);
 *	use(b.s);
 *	buf_release(&b);
 */
#ifndef GD_BUF_H
#define GD_BUF_H

#include <stddef.h>

struct buf {
	char *s;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *data, size_t n);
void buf_addc(struct buf *b, char c);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *buf_detach(struct buf *b);
/* Remove trailing whitespace (newlines from /proc and /sys files). */
void buf_rtrim(struct buf *b);
/* Always a valid C string, "" for a buffer never written. */
const char *buf_cstr(const struct buf *b);

#endif
