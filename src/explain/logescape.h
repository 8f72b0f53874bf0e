/*
 * logescape.h - HTML entities in a pasted log (&lt; &gt; &amp; &quot;
 * &apos; and numeric ones for printable ASCII), for the normaliser
 * (lognorm.c), which unescapes a line only when it carries one.
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

#endif
