/* safefile.c - writing as a daemon without following others' links; see safefile.h. */
#include "core/safefile.h"
#include "core/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int owned_by_us(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

int safefile_check_stat(const char *what, const struct stat *st, struct err *e)
{
	if (!S_ISREG(st->st_mode))
		return err_set(e, "'%s' is not a regular file: not trusted", what);
	if (!owned_by_us(st->st_uid))
		return err_set(e, "'%s' is owned by uid %ld, not by this user (uid %ld) or root: "
			       "anyone could have written it", what, (long)st->st_uid, (long)geteuid());
	return 0;
}

int safefile_check_file(const char *path, struct err *e)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 1 : err_set_errno(e, "cannot stat '%s'", path);
	return safefile_check_stat(path, &st, e) < 0 ? -1 : 0;
}

int safefile_check_dir(const char *dir, struct err *e)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return err_set_errno(e, "cannot stat '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, "'%s' is not a directory (a symbolic link is not followed)", dir);
	if (!owned_by_us(st.st_uid))
		return err_set(e, "'%s' is owned by uid %ld, not by this user (uid %ld) or root",
			       dir, (long)st.st_uid, (long)geteuid());
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		return err_set(e, "'%s' is writable by every user and has no sticky bit: anyone "
			       "could replace its files (chmod o-w or chmod +t it)", dir);
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int safefile_write(const char *path, const void *data, size_t len, mode_t mode, int durable,
		   struct err *e)
{
	const char *slash = strrchr(path, '/');
	char *tmp;
	int fd, r = -1;

	/* mkstemp in the target's directory: the same file system for rename(),
	   a name nobody can guess, and O_EXCL so a planted link is not opened. */
	if (slash)
		tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
	else
		tmp = xasprintf(".%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_set_errno(e, "cannot create a temporary file beside '%s'", path);
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) < 0 || write_all(fd, data, len) < 0 || (durable && fsync(fd) < 0)) {
		err_set_errno(e, "cannot write '%s'", tmp);
		close(fd);
		goto out;
	}
	if (close(fd) < 0) {
		err_set_errno(e, "cannot write '%s'", tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		err_set_errno(e, "cannot rename '%s' to '%s'", tmp, path);
		goto out;
	}
	r = 0;
out:
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int safefile_append(const char *path, const void *data, size_t len, mode_t mode, struct err *e)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
		      mode);

	if (fd < 0)
		return err_set_errno(e, errno == ELOOP ? "'%s' is a symbolic link: not followed"
						       : "cannot append to '%s'", path);
	if (fstat(fd, &st) < 0) {
		err_set_errno(e, "cannot stat '%s'", path);
		close(fd);
		return -1;
	}
	if (safefile_check_stat(path, &st, e) < 0) {
		close(fd);
		return -1;
	}
	if (write_all(fd, data, len) < 0) {
		err_set_errno(e, "cannot append to '%s'", path);
		close(fd);
		return -1;
	}
	return close(fd) < 0 ? err_set_errno(e, "cannot append to '%s'", path) : 0;
}
