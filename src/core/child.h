/*
 * child.h - isolated probes: gpudoctor re-executing itself in a child.
 *
 * Anything that loads a foreign library or touches the driver runs in a
 * child, "gpudoctor __probe NAME ARGS...", so that the child starts with a
 * clean address space and reads LD_LIBRARY_PATH itself, as the framework
 * would.  The parent waits at most `timeout` seconds, then kills the child's
 * whole process group.  A hang, a signal or output without the final "end"
 * line is reported through the outcome, never by crashing or hanging here.
 *
 *	struct child_result r = CHILD_RESULT_INIT;
 *	const char *args[] = { "/usr/lib/libnvidia-ml.so.1", NULL };
 *	if (child_run_probe(ctx, "nvml", args, NULL, &r, &e) == 0 &&
 *	    r.outcome == CHILD_OK)
 *		use(kv_get(&r.kv, "driver_version"));
 *	child_result_release(&r);
 */
#ifndef GD_CHILD_H
#define GD_CHILD_H

#include "core/buf.h"
#include "core/err.h"
#include "core/kv.h"

struct gd_ctx;

enum child_outcome {
	CHILD_OK,		/* exited 0 and wrote "end" */
	CHILD_EXIT_ERROR,	/* exited non-zero */
	CHILD_SIGNALED,		/* killed by a signal it raised (crash) */
	CHILD_TIMEOUT,		/* still running at the deadline; killed */
	CHILD_INCOMPLETE,	/* exited 0 but without "end": garbage or cut short */
};

struct child_result {
	enum child_outcome outcome;
	int exit_code;		/* when CHILD_EXIT_ERROR */
	int signal;		/* when CHILD_SIGNALED */
	double seconds;		/* wall time of the child */
	struct kvlist kv;	/* parsed stdout */
	struct buf out;		/* raw stdout (capped) */
	struct buf err;		/* stderr (capped), for evidence */
};

#define CHILD_RESULT_INIT { CHILD_OK, 0, 0, 0.0, KVLIST_INIT, BUF_INIT, BUF_INIT }

/*
 * Run "self_exe __probe name args..." with envp (NULL: our environment).
 * Returns -1 only when the child could not be started at all.
 */
int child_run_probe(const struct gd_ctx *ctx, const char *name,
		    const char *const *args, char *const *envp,
		    struct child_result *r, struct err *e);

/*
 * The same in two steps, so that independent probes can run at the same
 * time: child_start_* returns at once, child_finish waits (never past the
 * deadline set at start), child_cancel kills and reaps.  A started child
 * must be finished or cancelled exactly once.
 */
struct child {
	int pid;
	int outfd, errfd;
	double start, deadline;
	struct buf out, err;
};

int child_start_argv(const char *const *argv, char *const *envp, double timeout,
		     struct child *c, struct err *e);
int child_start_probe(const struct gd_ctx *ctx, const char *name,
		      const char *const *args, char *const *envp,
		      struct child *c, struct err *e);
void child_finish(struct child *c, struct child_result *r);
void child_cancel(struct child *c, struct child_result *r);

/*
 * child_finish that returns as soon as the child has written its "end" line:
 * a child whose teardown is slow (the CUDA child releasing its contexts)
 * is not waited for once its answer is known.  A child still running then
 * is left to exit on its own and reaped later by child_reap_detached() (or
 * by init once gpudoctor exits); its pipes are closed.  The outcome is that
 * of the answer: CHILD_OK when "end" came, else as child_finish.
 */
void child_finish_at_end(struct child *c, struct child_result *r);
/* Reap, without waiting, the children child_finish_at_end() left running. */
void child_reap_detached(void);

/* Run any argv (argv[0] a path) under the same rules. */
int child_run_argv(const char *const *argv, char *const *envp, double timeout,
		   struct child_result *r, struct err *e);

void child_result_release(struct child_result *r);

/* "timed out after 10 s", "crashed with SIGSEGV", ... for evidence. */
const char *child_outcome_describe(const struct child_result *r, struct buf *out);

/* Seconds on the monotonic clock, for timing probes. */
double child_now(void);

#endif
