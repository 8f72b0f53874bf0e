/*
 * logescape.h - HTML entities in a pasted log (&lt; &gt; &amp; &quot;
 * &apos; &nbsp; &lsquo; &rsquo; &ldquo; &rdquo; and numeric ones for
 * printable ASCII and those characters), for the normaliser (lognorm.c),
 * which unescapes a line only when it carries one; and the typography a web
 * page or an editor puts in pasted text (a no-break space, curly quotes, a
 * zero-width space), which rules written in ASCII would not match:
 * "couldn’t" is "couldn't" again.
 *
 *	if (logescape_html_found(s, len)) {
 *		logescape_html(&out, s, len);	// out: the unescaped line
 */
#ifndef GD_LOGESCAPE_H
#define GD_LOGESCAPE_H

#include <stddef.h>

#include "core/buf.h"

/* The line carries an entity that logescape_html() decodes. */
int logescape_html_found(const char *s, size_t len);
/* s without its entities into out (reset first); unknown entities stay. */
void logescape_html(struct buf *out, const char *s, size_t len);

/* The line carries UTF-8 typography that logescape_typo() turns into ASCII. */
int logescape_typo_found(const char *s, size_t len);
/* s with no-break spaces as ' ', curly quotes as ' and ", zero-width spaces dropped. */
void logescape_typo(struct buf *out, const char *s, size_t len);

#endif
