/*
 * signame.h - the abbreviation of a signal number ("SEGV" for 11).
 *
 * glibc's sigabbrev_np() would do, but it appeared in glibc 2.32 and the
 * released binary must run on glibc 2.28 (RHEL 8); this is the same table
 * for Linux's signal numbers, which are fixed by the kernel ABI.
 *
 *   buf_printf(out, "SIG%s", signame(sig) ? signame(sig) : "?");
 */
#ifndef GD_CORE_SIGNAME_H
#define GD_CORE_SIGNAME_H

/* The name without "SIG", or NULL for a number that is no standard signal
 * (real-time signals included). */
const char *signame(int sig);

#endif
