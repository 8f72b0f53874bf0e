/*
 * script_exec.h - what program a one-line shell wrapper runs.
 *
 * Distributions and images often put a tiny script on PATH in place of a
 * tool ("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"").  To judge
 * which toolkit such a wrapper belongs to, gpudoctor reads the script as
 * text, never runs it.
 *
 *	if (script_exec_target(head, len, "nvcc", &target) == 0)
 *		nvcc = target.s;	// "/usr/local/cuda-13.0/bin/nvcc"
 */
#ifndef GD_SCRIPT_EXEC_H
#define GD_SCRIPT_EXEC_H

#include "core/buf.h"

#include <stddef.h>

/*
 * text[0..len) is a file's first bytes (it need not be NUL-terminated).
 * When it is a "#!" script with a command line whose program is an absolute
 * path whose last component is `name` (with or without a leading "exec"),
 * put that path in *out and return 0.  Paths with shell expansions ($, `,
 * ~, *, ?) are not followed: their value is not known without running the
 * shell.  Returns -1 when there is no such line.
 */
int script_exec_target(const char *text, size_t len, const char *name, struct buf *out);

#endif
