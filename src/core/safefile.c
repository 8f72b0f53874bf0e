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

int safefile_check_opened(const char *what, const struct stat *st, int is_dir, struct err *e)
{
	if (is_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return err_set(e, "'%s' is not a %s: not trusted", what,
			       is_dir ? "directory" : "regular file");
	if (!owned_by_us(st->st_uid))
		return err_set(e, "'%s' is owned by uid %ld, not by this user (uid %ld) or root: "
			       "anyone could have written it", what, (long)st->st_uid, (long)geteuid());
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(is_dir && (st->st_mode & S_ISVTX)))
		return err_set(e, "'%s' is writable by %s: they could replace it", what,
			       st->st_mode & S_IWOTH ? "every user" : "its group");
	return 0;
}

int safefile_check_file(const char *path, struct err *e)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 1 : err_set_errno(e, "cannot stat '%s'", path);
	return safefile_check_stat(path, &st, e) < 0 ? -1 : 0;
}

/* One step of a path to load from: a directory or the file itself. */
static int trusted_step(const char *path, const char *part, int last, struct err *e)
{
	struct stat st;

	if (lstat(part, &st) < 0)
		return err_set_errno(e, "cannot stat '%s'", part);
	if (S_ISLNK(st.st_mode))
		return 0;	/* its directory is checked; the target is checked below */
	if (!owned_by_us(st.st_uid))
		return err_set(e, "'%s'%s%s%s is owned by uid %ld, not by this user (uid %ld) or root",
			       part, last ? "" : " (above '", last ? "" : path, last ? "" : "')",
			       (long)st.st_uid, (long)geteuid());
	if (last && !S_ISREG(st.st_mode))
		return err_set(e, "'%s' is not a regular file", path);
	if (!last && !S_ISDIR(st.st_mode))
		return err_set(e, "'%s' (above '%s') is not a directory", part, path);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(!last && (st.st_mode & S_ISVTX)))
		return err_set(e, "'%s'%s%s%s is writable by %s: they could replace it", part,
			       last ? "" : " (above '", last ? "" : path, last ? "" : "')",
			       st.st_mode & S_IWOTH ? "every user" : "its group");
	return 0;
}

/* Each prefix of the absolute path abs, then abs itself: a file, or a
   directory when last_is_dir. */
static int trusted_chain(const char *path, const char *abs, int last_is_dir, struct err *e)
{
	char *part = xstrdup(abs);
	int r = trusted_step(path, "/", 0, e);

	for (char *slash = strchr(part + 1, '/'); r == 0 && slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		r = trusted_step(path, part, 0, e);
		*slash = '/';
	}
	if (r == 0)
		r = trusted_step(path, abs, !last_is_dir, e);
	free(part);
	return r;
}

int safefile_check_trusted(const char *path, struct err *e)
{
	char *real;
	int r;

	/* A relative path: its resolved form names every directory. */
	if (path[0] == '/' && trusted_chain(path, path, 0, e) < 0)
		return -1;
	real = realpath(path, NULL);
	if (!real)
		return err_set_errno(e, "cannot resolve '%s'", path);
	r = strcmp(real, path) ? trusted_chain(path, real, 0, e) : 0;
	free(real);
	return r;
}

/*
 * The directory itself (a real directory, never a link), then every
 * directory on its way, as resolved: one that another user owns or may
 * write to (a sticky one excepted) could rename ours away and put its own
 * in its place, the same rule as a library's path (safefile_check_trusted).
 */
int safefile_check_dir(const char *dir, struct err *e)
{
	struct stat st;
	char *real;
	int r;

	if (lstat(dir, &st) < 0)
		return err_set_errno(e, "cannot stat '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, "'%s' is not a directory (a symbolic link is not followed)", dir);
	if (!owned_by_us(st.st_uid))
		return err_set(e, "'%s' is owned by uid %ld, not by this user (uid %ld) or root",
			       dir, (long)st.st_uid, (long)geteuid());
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return err_set(e, "'%s' is writable by %s and has no sticky bit: they could "
			       "replace its files (chmod go-w or chmod +t it)", dir,
			       st.st_mode & S_IWOTH ? "every user" : "its group");
	real = realpath(dir, NULL);
	if (!real)
		return err_set_errno(e, "cannot resolve '%s'", dir);
	r = trusted_chain(dir, real, 1, e);
	free(real);
	return r;
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
