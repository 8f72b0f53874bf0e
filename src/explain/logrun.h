/*
 * logrun.h - get a log: read a file or stdin, or run a command and keep
 * what it printed.
 *
 * logrun_read() reads a whole file descriptor (a log of any size; the
 * normaliser reads it once).  logrun_command() runs argv with its stdout
 * and stderr on pipes, copies every byte unchanged to our own stdout and
 * stderr as it arrives (so the user sees what they would have seen), and
 * keeps a copy of both streams interleaved in arrival order.  When the copy
 * passes `cap` bytes, its oldest half is dropped (the error is at the end)
 * and *dropped_lines counts the lines that went.  Once the command's own
 * process has ended, its pipes are read until they close or stay quiet for
 * a second (five at most): a process it left behind that keeps them open
 * does not hang us; what it prints after that is passed on to our stdout
 * and stderr by a relay child (not kept), so it is neither cut off nor
 * killed by a closed pipe.
 *
 *	struct buf log = BUF_INIT;
 *	int status;
 *	if (logrun_command(argv, 128 << 20, &log, &dropped, &status, &e) < 0) ...
 *	// status: the command's exit status, 128+N when killed by signal N,
 *	// 127 when it could not be run
 */
#ifndef GD_LOGRUN_H
#define GD_LOGRUN_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

int logrun_read(int fd, size_t cap, struct buf *out, long *dropped_lines, struct err *e);
/*
 * A regular file mapped read-only (no copy: a 100 MB log costs no
 * allocation); 0 and *data, *len set, or -1 when fd is not a regular
 * non-empty file (read it with logrun_read instead).  logrun_unmap frees it.
 */
int logrun_map(int fd, const char **data, size_t *len);
void logrun_unmap(const char *data, size_t len);
int logrun_command(char *const *argv, size_t cap, struct buf *out, long *dropped_lines,
		   int *status, struct err *e);
/*
 * The command runs in a process group of its own; SIGINT, SIGTERM and
 * SIGHUP sent to gpudoctor meanwhile are forwarded to that group (and a
 * terminal's foreground is handed to it).  The last signal forwarded by the
 * last logrun_command(), or 0.
 */
int logrun_forwarded(void);

#endif
