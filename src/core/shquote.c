/* shquote.c - one word for a POSIX shell; see shquote.h. */
#include "core/shquote.h"

#include <string.h>

int shquote_is_safe(const char *s)
{
	if (!s || !*s)
		return 0;
	/* '~' and '=' at the start would expand or assign; '-' could be an option,
	 * but quoting does not change that, so it is left as it is. */
	if (*s == '~')
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_@%+=:,./-", c)))
			return 0;
	}
	return 1;
}

void shquote_buf(struct buf *b, const char *s)
{
	if (shquote_is_safe(s)) {
		buf_puts(b, s);
		return;
	}
	/* Inside single quotes nothing is special but the quote itself, which
	 * is closed, escaped and reopened: ' -> '\'' */
	buf_addc(b, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

const char *shq(const char *s)
{
	static _Thread_local struct buf ring[SHQ_RING];
	static _Thread_local unsigned next;
	struct buf *b = &ring[next++ % SHQ_RING];

	buf_reset(b);
	shquote_buf(b, s);
	return b->s;
}
