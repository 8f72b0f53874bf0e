/*
 * termesc.h - making a value from the machine safe to print on a terminal.
 *
 * File contents, directory names and error messages can hold ESC sequences
 * (colours, cursor moves, window titles), BEL, CR and newlines: printed raw,
 * a venv named "x\n[ ok ] ..." forges a report line.  Every value a text
 * renderer or an error message prints goes through here: control bytes
 * (C0, DEL, C1), bytes that are not UTF-8 and the bidirectional overrides
 * (U+202A-U+202E, U+2066-U+2069) are written visibly as \n, \r, \t, \xNN or
 * \uNNNN; everything else, UTF-8 included, is kept.  A backslash is kept
 * as it is, so fixes with '\n' in them stay pasteable.
 *
 *	termesc_buf(&out, f->title);			// append to a buffer
 *	fprintf(stderr, "gpudoctor: %s\n", tesc(e.msg));	// or print
 *
 * tesc() returns one of TESC_RING buffers owned by this module (per
 * thread), valid for the next TESC_RING - 1 calls; NULL prints as "(null)".
 */
#ifndef GD_TERMESC_H
#define GD_TERMESC_H

#include <stddef.h>

#include "core/buf.h"

#define TESC_RING 16

void termesc_buf(struct buf *b, const char *s);
const char *tesc(const char *s);

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 when the
 * bytes there are not one (overlong, surrogate, past U+10FFFF, cut short). */
size_t utf8_seq_len(const unsigned char *p, size_t n);

#endif
