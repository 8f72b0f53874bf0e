/*
 * selfstat.h - the watch daemon's clock and its own resource use (RSS, CPU
 * time, its children's CPU time), for /metrics and the report.
 *
 * A leaf of src/watch/: it knows nothing of the daemon's state, so that
 * loop.c (which runs the daemon), server.c (which serves), prom.c and
 * report.c (which render) each depend on it instead of on one another in a
 * circle (prom and report used to reach back into loop.c for these).
 *
 *	double now = wd_now();			monotonic seconds (core/child.h's clock)
 *	long long rss = wd_self_rss();		bytes, -1 when /proc cannot say
 *	long long crss = wd_proc_rss(pid);	another process's (the NVML sampler's)
 */
#ifndef GD_WATCH_SELFSTAT_H
#define GD_WATCH_SELFSTAT_H

double wd_now(void);
long long wd_self_rss(void);
/* Resident bytes of process pid (0: this one) from /proc/PID/statm; -1 unknown. */
long long wd_proc_rss(int pid);
double wd_self_cpu(void);
double wd_children_cpu(void);

#endif
