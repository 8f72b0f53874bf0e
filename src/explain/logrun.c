/* logrun.c - reading logs and running a command for explain --run; see logrun.h. */
#include "explain/logrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Keep the newest half when the copy passes cap; count the lines dropped. */
static void keep_tail(struct buf *out, size_t cap, long *dropped_lines)
{
	size_t cut;
	const char *nl;

	if (out->len <= cap || cap < 2)
		return;
	cut = out->len - cap / 2;
	nl = memchr(out->s + cut, '\n', out->len - cut);
	if (nl)
		cut = (size_t)(nl + 1 - out->s);
	for (size_t i = 0; i < cut; i++)
		*dropped_lines += out->s[i] == '\n';
	memmove(out->s, out->s + cut, out->len - cut);
	out->len -= cut;
	out->s[out->len] = 0;
}

int logrun_read(int fd, size_t cap, struct buf *out, long *dropped_lines, struct err *e)
{
	char chunk[1 << 16];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_set_errno(e, "read");
		}
		if (n == 0)
			return 0;
		buf_add(out, chunk, (size_t)n);
		keep_tail(out, cap, dropped_lines);
	}
}

int logrun_map(int fd, const char **data, size_t *len)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > (size_t)-1 / 2)
		return -1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	(void)madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	*data = p;
	*len = (size_t)st.st_size;
	return 0;
}

void logrun_unmap(const char *data, size_t len)
{
	if (data)
		munmap((void *)data, len);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Signals.  The command runs in a process group of its own, so that a
 * signal reaches everything it started (sh -c, torchrun's workers), not
 * only its first process.  SIGINT, SIGTERM and SIGHUP sent to gpudoctor
 * (a scheduler's kill, a closed terminal) are forwarded to that group;
 * without it they killed gpudoctor and left the command running.  When
 * gpudoctor owns the terminal, the command's group gets it (so ^C reaches
 * it directly and it can read the terminal), and gets it back when it
 * stops (^Z stops gpudoctor too, and fg resumes both) and when it ends.
 */
static const int fwd_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NFWD (sizeof(fwd_signals) / sizeof(fwd_signals[0]))
static volatile sig_atomic_t fwd_pgid;		/* the command's group, 0 before the fork */
static volatile sig_atomic_t fwd_pending;	/* a signal that came before the fork */
static volatile sig_atomic_t fwd_last;		/* the last signal forwarded */
static volatile sig_atomic_t fwd_count;		/* how many were */

static void on_forward(int sig)
{
	int saved = errno;

	fwd_last = sig;
	fwd_count++;
	if (fwd_pgid > 0)
		kill(-(pid_t)fwd_pgid, sig);
	else
		fwd_pending = sig;
	errno = saved;
}

static void on_child(int sig)
{
	(void)sig;	/* only interrupts poll(), to look at a stopped command */
}

int logrun_forwarded(void)
{
	return fwd_last;
}

/* Give the terminal's foreground to group pg; SIGTTOU blocked, as we may be in the background. */
static void tty_give(int tty, pid_t pg)
{
	sigset_t b, old;

	if (tty < 0)
		return;
	sigemptyset(&b);
	sigaddset(&b, SIGTTOU);
	sigprocmask(SIG_BLOCK, &b, &old);
	(void)tcsetpgrp(tty, pg);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The command stopped (^Z): stop ourselves the same way; when continued, continue it. */
static void follow_stop(int tty, pid_t pid, int ws)
{
	int sig = WSTOPSIG(ws);

	tty_give(tty, getpgrp());
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU && sig != SIGSTOP)
		sig = SIGTSTP;
	if (sig == SIGSTOP)
		sig = SIGTSTP;	/* a SIGSTOP of ours could not be told from the shell's */
	{
		struct sigaction dfl = { .sa_handler = SIG_DFL }, old;

		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, &old);
		raise(sig);
		sigaction(sig, &old, NULL);
	}
	tty_give(tty, pid);
	kill(-pid, SIGCONT);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * How long, once the command's own process has ended, its pipes are still
 * read.  A process it left behind (`daemon &`, a worker whose launcher
 * died, or a child caught between fork and exec when a signal came, which
 * then never sees it) keeps the pipes open, possibly for ever; waiting for
 * their EOF hung gpudoctor.  What such a process still prints within the
 * quiet gap is kept; after the gap, or after the cap however chatty it is,
 * we explain what came, and a relay (pass_on_rest) keeps copying what it
 * prints to where it went before, as the command alone would have: closing
 * the pipes instead would kill it with SIGPIPE at its next write.
 */
#define DRAIN_QUIET_MS 1000
#define DRAIN_CAP_MS 5000

/*
 * One read from a pipe poll() reported on: the byte count; 0 when the pipe
 * closed (its fd is then closed and set to -1); -1 when it had nothing for
 * us (not ready, or interrupted).  Both the copy loop and the relay read so.
 */
static ssize_t pipe_read(struct pollfd *f, char *chunk, size_t size)
{
	ssize_t n;

	if (f->fd < 0 || !(f->revents & (POLLIN | POLLHUP | POLLERR)))
		return -1;
	n = read(f->fd, chunk, size);
	if (n < 0 && errno == EINTR)
		return -1;
	if (n <= 0) {
		close(f->fd);
		f->fd = -1;
		return 0;
	}
	return n;
}

/*
 * The relay: a child that copies the pipes still open to our stdout and
 * stderr until their writers close them, then exits.  It keeps no other
 * descriptor of ours (a log file, a socket) open, ignores SIGPIPE and
 * discards what it cannot write, so a closed terminal never reaches the
 * command's leftovers as a signal.  0, or -1 when it could not be started
 * (then the pipes close with us, as before).
 */
static int pass_on_rest(struct pollfd *fds, const sigset_t *old_mask, const struct sigaction *old_act)
{
	pid_t r = fork();

	if (r != 0)
		return r < 0 ? -1 : 0;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);	/* a terminal with tostop, once the shell has it back */
	/* as we were started: a signal nohup ignored stays ignored (a hangup must not end the relay) */
	for (size_t i = 0; i < NFWD; i++)
		signal(fwd_signals[i], old_act[i].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != fds[0].fd && fd != fds[1].fd)
			close(fd);
	for (;;) {
		int open_fds = 0;

		for (int i = 0; i < 2; i++)
			open_fds += fds[i].fd >= 0;
		if (!open_fds)
			_exit(0);
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (int i = 0; i < 2; i++) {
			char chunk[1 << 16];
			ssize_t n = pipe_read(&fds[i], chunk, sizeof(chunk));

			if (n > 0)
				(void)write_all(i ? 2 : 1, chunk, (size_t)n);
		}
	}
}

int logrun_command(char *const *argv, size_t cap, struct buf *out, long *dropped_lines,
		   int *status, struct err *e)
{
	long long reaped_at = 0, last_out = 0;
	sig_atomic_t signals_at_reap = 0;
	struct sigaction ign_pipe = { .sa_handler = SIG_IGN }, old_pipe;
	int po[2], pe[2], ws = 0, reaped = 0, tty = -1, wait_errno = 0;
	pid_t pid;
	struct pollfd fds[2];
	int open_fds = 2, passthrough_ok[2] = { 1, 1 };
	struct sigaction act, old_act[NFWD], chld, old_chld;
	sigset_t block, old_mask, poll_mask, run_mask;

	if (pipe2(po, O_CLOEXEC) < 0)
		return err_set_errno(e, "pipe");
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return err_set_errno(e, "pipe");
	}
	if (isatty(0) && tcgetpgrp(0) == getpgrp())
		tty = 0;
	fwd_pgid = 0;
	fwd_pending = 0;
	fwd_last = 0;
	fwd_count = 0;
	sigemptyset(&block);
	for (size_t i = 0; i < NFWD; i++)
		sigaddset(&block, fwd_signals[i]);
	sigaddset(&block, SIGCHLD);
	memset(&act, 0, sizeof(act));
	act.sa_handler = on_forward;
	sigfillset(&act.sa_mask);
	for (size_t i = 0; i < NFWD; i++) {
		sigaction(fwd_signals[i], NULL, &old_act[i]);
		/* a signal we were started ignoring (nohup) stays ignored, for the command too */
		if (old_act[i].sa_handler != SIG_IGN)
			sigaction(fwd_signals[i], &act, NULL);
	}
	memset(&chld, 0, sizeof(chld));
	chld.sa_handler = on_child;
	sigemptyset(&chld.sa_mask);
	sigaction(SIGCHLD, &chld, &old_chld);
	/* a reader of our stdout that went away (| head -1) ends the copy to it, not us:
	   the command's status and the explanation (on stderr) still come */
	sigemptyset(&ign_pipe.sa_mask);
	sigaction(SIGPIPE, &ign_pipe, &old_pipe);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	pid = fork();
	if (pid < 0) {
		int saved = errno;

		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		for (size_t i = 0; i < NFWD; i++)
			sigaction(fwd_signals[i], &old_act[i], NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
		sigaction(SIGPIPE, &old_pipe, NULL);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		errno = saved;
		return err_set_errno(e, "fork");
	}
	if (pid == 0) {
		setpgid(0, 0);
		for (size_t i = 0; i < NFWD; i++)
			sigaction(fwd_signals[i], &old_act[i], NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		sigaction(SIGPIPE, &old_pipe, NULL);	/* as we were started */
		execvp(argv[0], argv);
		{
			const char *msg = strerror(errno);

			(void)!write(2, argv[0], strlen(argv[0]));
			(void)!write(2, ": ", 2);
			(void)!write(2, msg, strlen(msg));
			(void)!write(2, "\n", 1);
		}
		_exit(127);
	}
	/* both sides set the group, so it exists whichever runs first */
	(void)setpgid(pid, pid);
	tty_give(tty, pid);
	fwd_pgid = pid;
	if (fwd_pending)
		kill(-pid, fwd_pending);
	/* SIGCHLD stays blocked but while ppoll waits: a stop is never missed between the two */
	poll_mask = old_mask;
	sigdelset(&poll_mask, SIGCHLD);
	run_mask = old_mask;
	sigaddset(&run_mask, SIGCHLD);
	sigprocmask(SIG_SETMASK, &run_mask, NULL);
	close(po[1]);
	close(pe[1]);
	fds[0] = (struct pollfd){ po[0], POLLIN, 0 };
	fds[1] = (struct pollfd){ pe[0], POLLIN, 0 };
	while (open_fds) {
		struct timespec gap, *timeout = NULL;

		if (!reaped) {
			pid_t w = waitpid(pid, &ws, WNOHANG | WUNTRACED);

			if (w == pid && WIFSTOPPED(ws))
				follow_stop(tty, pid, ws);
			else if (w == pid) {
				reaped = 1;
				reaped_at = last_out = now_ms();
				signals_at_reap = fwd_count;
			}
		}
		if (reaped) {
			long long t = now_ms(), left = last_out + DRAIN_QUIET_MS - t;

			if (reaped_at + DRAIN_CAP_MS - t < left)
				left = reaped_at + DRAIN_CAP_MS - t;
			if (left <= 0) {
				static const char note[] = "gpudoctor: the command ended, but a process "
					"it started still holds its output open; explaining what came so far "
					"(what it prints from now on is passed on, not explained)\n";

				(void)!write(2, note, sizeof(note) - 1);
				(void)pass_on_rest(fds, &old_mask, old_act);
				break;
			}
			gap.tv_sec = (time_t)(left / 1000);
			gap.tv_nsec = (long)(left % 1000) * 1000000;
			timeout = &gap;
		}
		if (ppoll(fds, 2, timeout, &poll_mask) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char chunk[1 << 16];
			ssize_t n = pipe_read(&fds[i], chunk, sizeof(chunk));

			if (n < 0)
				continue;
			if (n == 0) {
				open_fds--;
				continue;
			}
			/* the user sees exactly what the command printed, even if we cannot */
			if (passthrough_ok[i] && write_all(i ? 2 : 1, chunk, (size_t)n) < 0)
				passthrough_ok[i] = 0;
			buf_add(out, chunk, (size_t)n);
			keep_tail(out, cap, dropped_lines);
			last_out = now_ms();
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (!reaped) {
		pid_t w = waitpid(pid, &ws, WUNTRACED);

		if (w < 0 && errno != EINTR) {
			wait_errno = errno;
			break;
		}
		if (w == pid && WIFSTOPPED(ws))
			follow_stop(tty, pid, ws);
		else if (w == pid)
			reaped = 1;
	}
	tty_give(tty, getpgrp());
	fwd_pgid = 0;
	for (size_t i = 0; i < NFWD; i++)
		sigaction(fwd_signals[i], &old_act[i], NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (wait_errno) {
		errno = wait_errno;
		return err_set_errno(e, "waitpid");
	}
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	else
		*status = 1;
	/* a signal sent to us after the command had ended (while its leftovers were read):
	   it was meant for us, and ends us as it would have */
	if (reaped_at && fwd_count != signals_at_reap && fwd_last)
		*status = 128 + fwd_last;
	return 0;
}
