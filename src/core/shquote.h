/*
 * shquote.h - quoting a value from the machine for a POSIX shell.
 *
 * Every value a "fix:" command interpolates (a directory name, a library
 * path, a Python interpreter, a package name read from METADATA, a PCI
 * address from sysfs) is hostile: a directory named `cuda-13.0$(touch x)`
 * must stay one word that runs nothing when the fix is pasted.  Values of
 * only safe characters are left as they are, so the common fix still reads
 * "sudo ln -sfn /usr/local/cuda-13.0 /usr/local/cuda".
 *
 *	finding_fix_cmd(f, "sudo", "ln", "-sfn", dir, "/usr/local/cuda", NULL);
 *					// report.h quotes each word with it
 *	shquote_buf(&cmd, dir);			// or append to a buffer
 *
 * shq() returns one of SHQ_RING buffers owned by this module (per thread):
 * a result stays valid for the next SHQ_RING - 1 calls, enough for one
 * format call.  NULL is quoted as '' (an empty word).
 */
#ifndef GD_SHQUOTE_H
#define GD_SHQUOTE_H

#include "core/buf.h"

#define SHQ_RING 16

/* Append s to b as one shell word. */
void shquote_buf(struct buf *b, const char *s);
/* s as one shell word, in a ring buffer (see above). */
const char *shq(const char *s);
/* 1 when s needs no quoting (only [A-Za-z0-9_@%+=:,./-], not empty). */
int shquote_is_safe(const char *s);

#endif
