/* child.c - spawning, timing out and reaping isolated probes; see child.h. */
#include "core/child.h"
#include "core/ctx.h"
#include "core/signame.h"
#include "core/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CHILD_OUTPUT_MAX (4u << 20)

double child_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void child_result_release(struct child_result *r)
{
	kvlist_release(&r->kv);
	buf_release(&r->out);
	buf_release(&r->err);
}

/* Read what is available from fd into b; returns 0 at EOF, 1 if still open. */
static int child_drain(int fd, struct buf *b)
{
	char tmp[8192];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return (errno == EINTR || errno == EAGAIN) ? 1 : 0;
	if (n == 0)
		return 0;
	if (b->len < CHILD_OUTPUT_MAX)
		buf_add(b, tmp, (size_t)n);
	return 1;
}

static void child_exec(const char *const *argv, char *const *envp, int outfd, int errfd)
{
	int devnull;

	/* Our own process group, so that a timeout kills grandchildren too. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	dup2(outfd, 1);
	dup2(errfd, 2);
	execve(argv[0], (char *const *)argv, envp ? envp : environ);
	dprintf(2, "cannot execute '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int child_start_argv(const char *const *argv, char *const *envp, double timeout,
		     struct child *c, struct err *e)
{
	int outp[2], errp[2];
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	child_reap_detached();
	if (pipe2(outp, O_CLOEXEC) < 0)
		return err_set_errno(e, "pipe");
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(outp[0]);
		close(outp[1]);
		return err_set_errno(e, "pipe");
	}
	c->start = child_now();
	pid = fork();
	if (pid < 0) {
		close(outp[0]); close(outp[1]); close(errp[0]); close(errp[1]);
		return err_set_errno(e, "fork");
	}
	if (pid == 0)
		child_exec(argv, envp, outp[1], errp[1]);
	setpgid(pid, pid);
	close(outp[1]);
	close(errp[1]);
	c->pid = pid;
	c->outfd = outp[0];
	c->errfd = errp[0];
	c->deadline = c->start + (timeout > 0 ? timeout : 10.0);
	buf_init(&c->out);
	buf_init(&c->err);
	return 0;
}

/* Kill the group, reap, and turn what was read into a result. */
static void child_conclude(struct child *c, struct child_result *r, int timed_out, int status)
{
	pid_t pid = c->pid;

	if (timed_out) {
		double until = child_now() + 1.0;

		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		/*
		 * A child stuck in the kernel (state D, a wedged driver) dies
		 * only when the kernel lets it: bound the reap too, so that the
		 * caller's deadline holds; such a child is left unreaped.
		 */
		while (waitpid(pid, &status, WNOHANG) == 0 && child_now() < until)
			usleep(2000);
	} else {
		/* Reap any grandchildren left behind in the group. */
		kill(-pid, SIGKILL);
	}
	close(c->outfd);
	close(c->errfd);
	r->seconds = child_now() - c->start;
	buf_release(&r->out);
	buf_release(&r->err);
	/* The result takes over what was read. */
	r->out = c->out;
	r->err = c->err;
	memset(&c->out, 0, sizeof(c->out));
	memset(&c->err, 0, sizeof(c->err));
	kvlist_release(&r->kv);
	kvlist_parse(&r->kv, r->out.s, r->out.len);
	if (timed_out) {
		r->outcome = CHILD_TIMEOUT;
	} else if (WIFSIGNALED(status)) {
		r->outcome = CHILD_SIGNALED;
		r->signal = WTERMSIG(status);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		r->outcome = CHILD_EXIT_ERROR;
		r->exit_code = WEXITSTATUS(status);
	} else if (!r->kv.complete) {
		r->outcome = CHILD_INCOMPLETE;
	} else {
		r->outcome = CHILD_OK;
	}
	c->pid = -1;
}

/* The answer is complete: stdout ends with the "end" line (core/kv.h). */
static int child_answered(const struct buf *out)
{
	return (out->len == 4 && !memcmp(out->s, "end\n", 4)) ||
	       (out->len > 4 && !memcmp(out->s + out->len - 5, "\nend\n", 5));
}

/*
 * Reads the child's stdout and stderr until both close, or, with
 * until_answered, until stdout holds the "end" line.  Returns 1 when the
 * deadline passed first, else 0.
 */
static int child_pump(struct child *c, int *out_open, int *err_open, int until_answered)
{
	while (until_answered ? *out_open && !child_answered(&c->out) : *out_open || *err_open) {
		struct pollfd pfd[2];
		double left = c->deadline - child_now();
		int nfd = 0, rc;

		if (left <= 0)
			return 1;
		if (*out_open)
			pfd[nfd++] = (struct pollfd){ .fd = c->outfd, .events = POLLIN };
		if (*err_open)
			pfd[nfd++] = (struct pollfd){ .fd = c->errfd, .events = POLLIN };
		rc = poll(pfd, (nfds_t)nfd, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR)
			break;
		for (int i = 0; i < nfd && rc > 0; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pfd[i].fd == c->outfd)
				*out_open = child_drain(c->outfd, &c->out);
			else
				*err_open = child_drain(c->errfd, &c->err);
		}
	}
	return 0;
}

void child_finish(struct child *c, struct child_result *r)
{
	int status = 0, out_open = 1, err_open = 1;
	int timed_out = child_pump(c, &out_open, &err_open, 0);

	/* Pipes closed: the child is exiting; still bound the wait. */
	while (!timed_out) {
		pid_t w = waitpid(c->pid, &status, WNOHANG);

		if (w == c->pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (child_now() >= c->deadline) {
			timed_out = 1;
			break;
		}
		usleep(1000);
	}
	child_conclude(c, r, timed_out, status);
}

/* Children left to finish their teardown alone: reaped without waiting. */
static pthread_mutex_t detached_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t detached[64];
static size_t ndetached;

void child_reap_detached(void)
{
	pthread_mutex_lock(&detached_lock);
	for (size_t i = 0; i < ndetached;) {
		pid_t w = waitpid(detached[i], NULL, WNOHANG);

		if (w == detached[i] || (w < 0 && errno == ECHILD))
			detached[i] = detached[--ndetached];
		else
			i++;
	}
	pthread_mutex_unlock(&detached_lock);
}

static int child_detach(pid_t pid)
{
	int ok = 0;

	child_reap_detached();
	pthread_mutex_lock(&detached_lock);
	if (ndetached < sizeof(detached) / sizeof(detached[0])) {
		detached[ndetached++] = pid;
		ok = 1;
	}
	pthread_mutex_unlock(&detached_lock);
	return ok;
}

void child_finish_at_end(struct child *c, struct child_result *r)
{
	int status = 0, out_open = 1, err_open = 1;
	pid_t w;

	child_pump(c, &out_open, &err_open, 1);
	if (!child_answered(&c->out)) {
		/* No answer: the usual way, with its deadline and its verdicts. */
		child_finish(c, r);
		return;
	}
	/* What stderr already holds is evidence; nothing more is waited for. */
	while (err_open) {
		struct pollfd p = { .fd = c->errfd, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
			break;
		err_open = child_drain(c->errfd, &c->err);
	}
	w = waitpid(c->pid, &status, WNOHANG);
	if (w == c->pid) {
		child_conclude(c, r, 0, status);
		return;
	}
	if (!child_detach(c->pid)) {
		child_finish(c, r);
		return;
	}
	/* child_conclude without the kill: the group is still tearing down. */
	close(c->outfd);
	close(c->errfd);
	r->seconds = child_now() - c->start;
	buf_release(&r->out);
	buf_release(&r->err);
	r->out = c->out;
	r->err = c->err;
	memset(&c->out, 0, sizeof(c->out));
	memset(&c->err, 0, sizeof(c->err));
	kvlist_release(&r->kv);
	kvlist_parse(&r->kv, r->out.s, r->out.len);
	r->outcome = r->kv.complete ? CHILD_OK : CHILD_INCOMPLETE;
	c->pid = -1;
}

void child_cancel(struct child *c, struct child_result *r)
{
	child_conclude(c, r, 1, 0);
}

int child_run_argv(const char *const *argv, char *const *envp, double timeout,
		   struct child_result *r, struct err *e)
{
	struct child c;

	if (child_start_argv(argv, envp, timeout, &c, e) < 0)
		return -1;
	child_finish(&c, r);
	return 0;
}

int child_start_probe(const struct gd_ctx *ctx, const char *name,
		      const char *const *args, char *const *envp,
		      struct child *c, struct err *e)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = ctx->self_exe;
	argv[n++] = "__probe";
	argv[n++] = name;
	for (; args && *args && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return child_start_argv(argv, envp, ctx->timeout, c, e);
}

int child_run_probe(const struct gd_ctx *ctx, const char *name,
		    const char *const *args, char *const *envp,
		    struct child_result *r, struct err *e)
{
	struct child c;

	if (child_start_probe(ctx, name, args, envp, &c, e) < 0)
		return -1;
	child_finish(&c, r);
	return 0;
}

const char *child_outcome_describe(const struct child_result *r, struct buf *out)
{
	buf_reset(out);
	switch (r->outcome) {
	case CHILD_OK:
		buf_puts(out, "completed");
		break;
	case CHILD_EXIT_ERROR:
		buf_printf(out, "exited with status %d", r->exit_code);
		break;
	case CHILD_SIGNALED:
		buf_printf(out, "crashed with SIG%s (signal %d)", signame(r->signal)
			   ? signame(r->signal) : "?", r->signal);
		break;
	case CHILD_TIMEOUT:
		buf_printf(out, "did not finish within %.1f s and was killed", r->seconds);
		break;
	case CHILD_INCOMPLETE:
		buf_puts(out, "stopped before reporting all its results");
		break;
	}
	return out->s;
}
