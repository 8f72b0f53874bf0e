/*
 * libscan_inv.c - grow the libraries inventory: a note, a copy (see
 * libscan.h).  Kept apart from libraries.c, which drives the scan, so that
 * the file scanner (libscan_files.c) that adds copies needs nothing of the
 * driver: the scan's files call downward only.
 */
#include "probes/libraries/libscan.h"

#include "core/buf.h"
#include "core/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void libraries_note(struct libraries_inventory *li, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	char tmp[1024];

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_puts(&b, tmp);
	XGROW(li->notes, li->nnotes, li->notes_cap);
	li->notes[li->nnotes++] = buf_detach(&b);
}

struct lib_copy *libraries_add_copy(struct libraries_inventory *li)
{
	struct lib_copy *c;

	XGROW(li->copies, li->n, li->cap);
	c = &li->copies[li->n++];
	memset(c, 0, sizeof(*c));
	c->size_bytes = -1;
	c->readable = -1;
	return c;
}
