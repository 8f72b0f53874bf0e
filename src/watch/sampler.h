/*
 * sampler.h - the parent side of the long-lived NVML sampler child
 * (sampler_child.c): start it, ask it for a sample, never wait on it.
 *
 * The event loop polls sampler_fd() and calls sampler_readable(); each
 * sweep calls sampler_tick(), which enforces the deadline of the request in
 * flight and starts the next one.  The deadline (--timeout) runs from the
 * child's last answer: the child flushes after each GPU, so it bounds the
 * NVML calls of one GPU.  A child that misses its deadline is
 * killed (its process group) and restarted at the next sweep; when it is
 * stuck in the kernel (state D, where even SIGKILL waits) it is reported as
 * a driver hang, and no second child is started until the first is gone.
 *
 *	struct sampler s;
 *	sampler_init(&s, self_exe, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", 10.0);
 *	loop: poll(sampler_fd(&s)) -> sampler_readable(&s, now);
 *	      every interval: sampler_tick(&s, now);  ... s.last (kv of the last sample) ...
 *	sampler_release(&s);
 */
#ifndef GD_WATCH_SAMPLER_H
#define GD_WATCH_SAMPLER_H

#include "core/buf.h"
#include "core/kv.h"

enum sampler_state {
	SAMPLER_OFF,		/* no child: not started yet, or exited and reaped */
	SAMPLER_STARTING,	/* waiting for the child's init answer */
	SAMPLER_IDLE,		/* ready for a request */
	SAMPLER_BUSY,		/* a request in flight */
	SAMPLER_STUCK,		/* killed after a missed deadline, not yet reaped */
};

struct sampler {
	const char *self_exe;
	char *lib;
	double timeout;		/* per request, seconds */
	enum sampler_state state;
	int pid, infd, outfd;
	double deadline;
	struct buf in;		/* the answer being read */
	struct kvlist last;	/* the last complete sample (or init answer) */
	double last_ok;		/* monotonic time of that sample; 0 never */
	int have_sample;
	int init_failed;	/* NVML did not load or initialise: last holds why */
	unsigned long long restarts, deadlines_missed, requests;
	int hang;		/* the current child missed a deadline */
	int in_kernel;		/* ... while in state D: a driver hang */
	char hang_what[400];	/* evidence: what it was doing */
	double hang_since;
};

void sampler_init(struct sampler *s, const char *self_exe, const char *lib, double timeout);
void sampler_release(struct sampler *s);
int sampler_fd(const struct sampler *s);	/* -1 when none to poll */
void sampler_readable(struct sampler *s, double now);
void sampler_tick(struct sampler *s, double now);
/* RSS (bytes) and CPU seconds of the live child, or -1. */
long long sampler_child_rss(const struct sampler *s);

#endif
