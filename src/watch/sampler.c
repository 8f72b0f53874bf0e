/* sampler.c - driving the NVML sampler child; see sampler.h. */
#include "watch/sampler.h"
#include "watch/selfstat.h"
#include "core/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAMPLE_MAX (1u << 20)

void sampler_init(struct sampler *s, const char *self_exe, const char *lib, double timeout)
{
	memset(s, 0, sizeof(*s));
	s->self_exe = self_exe;
	s->lib = lib ? xstrdup(lib) : NULL;
	s->timeout = timeout;
	s->pid = s->infd = s->outfd = -1;
	buf_init(&s->in);
}

static void close_fds(struct sampler *s)
{
	if (s->infd >= 0)
		close(s->infd);
	if (s->outfd >= 0)
		close(s->outfd);
	s->infd = s->outfd = -1;
}

/* Reap the child if it is gone; 1 when no child is left. */
static int reap(struct sampler *s)
{
	int st;

	if (s->pid < 0)
		return 1;
	if (waitpid(s->pid, &st, WNOHANG) == s->pid || (errno == ECHILD)) {
		s->pid = -1;
		return 1;
	}
	return 0;
}

static int spawn(struct sampler *s, double now)
{
	int inp[2], outp[2];
	pid_t pid;

	if (pipe2(inp, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(outp, O_CLOEXEC) < 0) {
		close(inp[0]);
		close(inp[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(inp[0]);
		close(inp[1]);
		close(outp[0]);
		close(outp[1]);
		return -1;
	}
	if (pid == 0) {
		const char *argv[] = { s->self_exe, "__probe", "nvml-sampler", s->lib, NULL };
		int null = open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGPIPE, SIG_DFL);
		dup2(inp[0], 0);
		dup2(outp[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execv(s->self_exe, (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(inp[0]);
	close(outp[1]);
	s->pid = pid;
	s->infd = inp[1];
	s->outfd = outp[0];
	fcntl(s->outfd, F_SETFL, O_NONBLOCK);
	fcntl(s->infd, F_SETFL, O_NONBLOCK);
	buf_reset(&s->in);
	s->state = SAMPLER_STARTING;
	s->deadline = now + s->timeout;
	return 0;
}

/* 'R', 'S', 'D', 'Z' ... of /proc/PID/stat, or '?' */
static char proc_state(int pid)
{
	char path[64], b[512];
	ssize_t n;
	int fd;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	b[n] = '\0';
	p = strrchr(b, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

long long sampler_child_rss(const struct sampler *s)
{
	return s->pid > 0 ? wd_proc_rss(s->pid) : -1;
}

static void kill_child(struct sampler *s)
{
	if (s->pid > 0) {
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
	}
	close_fds(s);
	s->state = reap(s) ? SAMPLER_OFF : SAMPLER_STUCK;
}

/* The last line the child completed: where a hung request got to. */
static void last_line(const struct buf *b, char *out, size_t size)
{
	const char *end = b->s + b->len, *p;

	while (end > b->s && end[-1] == '\n')
		end--;
	p = end;
	while (p > b->s && p[-1] != '\n')
		p--;
	snprintf(out, size, "%.*s", (int)(end - p > 120 ? 120 : end - p), p);
}

static void complete(struct sampler *s, double now)
{
	kvlist_release(&s->last);
	kvlist_parse(&s->last, s->in.s, s->in.len);
	buf_reset(&s->in);
	if (s->state == SAMPLER_STARTING) {
		const char *r = kv_get(&s->last, "init.result");

		s->init_failed = !r || strcmp(r, "0");
		s->state = SAMPLER_IDLE;
		if (s->init_failed) {
			s->have_sample = 1;	/* the failure is the sample */
			s->last_ok = now;
			kill_child(s);
		} else if (write(s->infd, "sample\n", 7) == 7) {
			/* The first sample at once, not an interval later. */
			s->state = SAMPLER_BUSY;
			s->deadline = now + s->timeout;
		}
		return;
	}
	s->state = SAMPLER_IDLE;
	s->have_sample = 1;
	s->init_failed = 0;
	s->last_ok = now;
	s->hang = s->in_kernel = 0;
}

void sampler_readable(struct sampler *s, double now)
{
	char tmp[8192];
	ssize_t n;

	for (;;) {
		n = read(s->outfd, tmp, sizeof(tmp));
		if (n > 0) {
			if (s->in.len < SAMPLE_MAX)
				buf_add(&s->in, tmp, (size_t)n);
			/*
			 * The child answers GPU by GPU: the deadline runs from its last
			 * answer, so it bounds each GPU's calls, not the whole sample.
			 */
			if (s->state == SAMPLER_BUSY)
				s->deadline = now + s->timeout;
			if (s->in.len >= 4 && !memcmp(s->in.s + s->in.len - 4, "end\n", 4) &&
			    (s->in.len == 4 || s->in.s[s->in.len - 5] == '\n'))
				complete(s, now);
			continue;
		}
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		/* EOF: the child is gone (crashed, or exited after an error). */
		if (s->state == SAMPLER_STARTING || s->state == SAMPLER_BUSY) {
			kvlist_release(&s->last);
			kvlist_parse(&s->last, s->in.s, s->in.len);
			kvlist_add(&s->last, "child_exited", "1");
			s->init_failed = 1;
			s->have_sample = 1;
			s->last_ok = now;
		}
		kill_child(s);
		return;
	}
}

void sampler_tick(struct sampler *s, double now)
{
	if (!s->lib)
		return;
	if (s->state == SAMPLER_STUCK) {
		if (reap(s))
			s->state = SAMPLER_OFF;
		else
			s->in_kernel = proc_state(s->pid) == 'D';
	}
	if ((s->state == SAMPLER_STARTING || s->state == SAMPLER_BUSY) && now >= s->deadline) {
		char what[140];

		last_line(&s->in, what, sizeof(what));
		s->in_kernel = proc_state(s->pid) == 'D';
		snprintf(s->hang_what, sizeof(s->hang_what), "%s did not answer within %.0f s%s%s%s",
			 s->state == SAMPLER_STARTING ? "nvmlInit" : "an NVML call",
			 s->timeout, s->in_kernel ? " (stuck in the kernel, state D)" : "",
			 what[0] ? "; last answer: " : "", what);
		if (!s->hang)
			s->hang_since = now;
		s->hang = 1;
		s->deadlines_missed++;
		buf_reset(&s->in);
		kill_child(s);
	}
	if (s->state == SAMPLER_OFF) {
		if (s->requests)
			s->restarts++;
		if (spawn(s, now) == 0)
			s->requests++;
		return;
	}
	if (s->state == SAMPLER_IDLE) {
		if (write(s->infd, "sample\n", 7) == 7) {
			s->state = SAMPLER_BUSY;
			s->deadline = now + s->timeout;
			s->requests++;
		} else {
			kill_child(s);
		}
	}
}

int sampler_fd(const struct sampler *s)
{
	return (s->state == SAMPLER_STARTING || s->state == SAMPLER_BUSY) ? s->outfd : -1;
}

void sampler_release(struct sampler *s)
{
	if (s->pid > 0) {
		close_fds(s);	/* EOF on stdin: the child shuts NVML down and exits */
		for (int i = 0; i < 50 && !reap(s); i++)
			usleep(10000);
		if (s->pid > 0) {
			kill(-s->pid, SIGKILL);
			reap(s);
		}
	}
	close_fds(s);
	kvlist_release(&s->last);
	buf_release(&s->in);
	free(s->lib);
}
