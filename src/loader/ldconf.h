/*
 * ldconf.h - /etc/ld.so.conf and its include globs, as ldconfig reads them.
 *
 * Follows glibc elf/ldconfig.c parse_conf: '#' starts a comment, blank lines
 * are skipped, "include PATTERN..." reads every file the glob matches
 * (relative patterns are relative to the including file's directory),
 * "hwcap" lines are ignored, and anything else is one directory (a trailing
 * "=TYPE" and trailing slashes are dropped).  Everything is read inside root.
 * Include patterns are globbed inside the root one component at a time, so
 * a wildcard in a directory (include /etc/ld.so.conf.d/x/conf) and
 * a conf.d that is a link to a directory of any name work as glob(3) on
 * the machine itself does.  Each file is read once: a file that includes
 * itself (or two that include each other) cost one reading each, not an
 * exponential number.
 *
 *	struct ldconf c;
 *	ldconf_load("/", "/etc/ld.so.conf", &c, &e);
 *	for (size_t i = 0; i < c.ndirs; i++) puts(c.dirs[i]);
 *	ldconf_release(&c);
 */
#ifndef GD_LDCONF_H
#define GD_LDCONF_H

#include <stddef.h>

#include "core/err.h"

struct ldconf {
	char **dirs;		/* machine paths, in order, without duplicates */
	size_t ndirs;
	char **files;		/* every configuration file read (machine paths) */
	size_t nfiles;
	char **read;		/* every file read, resolved inside the root: each is read once */
	size_t nread;
	size_t dirs_cap, files_cap, read_cap;
};

/* -1 only when the top file cannot be read; missing includes are skipped as ldconfig does. */
int ldconf_load(const char *root, const char *abs, struct ldconf *c, struct err *e);
/* The lines of one configuration file given as text (the fuzz target's
 * entry; includes are still read inside root). */
void ldconf_parse_text(const char *root, const char *abs, const char *text, size_t len,
		       struct ldconf *c);
void ldconf_release(struct ldconf *c);

#endif
