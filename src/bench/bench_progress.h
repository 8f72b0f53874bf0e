/*
 * bench_progress.h - the live progress line of `gpudoctor bench`.
 *
 * The parent, when stderr is a terminal, hands the child a duplicate of its
 * stderr and names it in GPUDOCTOR_BENCH_PROGRESS_FD; the child rewrites one
 * line there as it goes ("\r" + erase), because the child's own stdout and
 * stderr are pipes the parent reads only at the end.  Without the variable
 * these calls do nothing.
 */
#ifndef GD_BENCH_PROGRESS_H
#define GD_BENCH_PROGRESS_H

#define BENCH_PROGRESS_ENV "GPUDOCTOR_BENCH_PROGRESS_FD"

void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erase the line (parent and child). */
void bench_progress_clear(int fd);

#endif
