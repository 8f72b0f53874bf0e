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

int logrun_command(char *const *argv, size_t cap, struct buf *out, long *dropped_lines,
		   int *status, struct err *e)
{
	int po[2], pe[2], ws;
	pid_t pid;
	struct pollfd fds[2];
	int open_fds = 2, passthrough_ok[2] = { 1, 1 };

	if (pipe2(po, O_CLOEXEC) < 0)
		return err_set_errno(e, "pipe");
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return err_set_errno(e, "pipe");
	}
	pid = fork();
	if (pid < 0) {
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return err_set_errno(e, "fork");
	}
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
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
	close(po[1]);
	close(pe[1]);
	fds[0] = (struct pollfd){ po[0], POLLIN, 0 };
	fds[1] = (struct pollfd){ pe[0], POLLIN, 0 };
	while (open_fds) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char chunk[1 << 16];
			ssize_t n;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			/* the user sees exactly what the command printed, even if we cannot */
			if (passthrough_ok[i] && write_all(i ? 2 : 1, chunk, (size_t)n) < 0)
				passthrough_ok[i] = 0;
			buf_add(out, chunk, (size_t)n);
			keep_tail(out, cap, dropped_lines);
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return err_set_errno(e, "waitpid");
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	else
		*status = 1;
	return 0;
}
