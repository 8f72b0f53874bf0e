/*
 * err.h - operational errors as values.
 *
 * A function that can fail returns 0 on success or -1 on failure and fills an
 * optional struct err (NULL means "don't care").  The message names the path
 * or call and the reason, so that it can travel up to where a finding is made
 * and be shown as evidence.  Nothing below main() prints or exits.
 *
 *	struct err e = ERR_INIT;
 *	if (fs_read_file(path, 4096, &b, &e) < 0)
 *		finding_evidence(f, "%s", e.msg);
 */
#ifndef GD_ERR_H
#define GD_ERR_H

#include <stdarg.h>

struct err {
	int code;		/* errno value, or 0 when not from a system call */
	char msg[512];
};

#define ERR_INIT { 0, { 0 } }

/* Record a message and return -1, so that `return err_set(e, ...)` reads well. */
int err_set(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* As err_set, with ": strerror(errno)" appended and code = errno. */
int err_set_errno(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
