/*
 * safefile.h - files a privileged daemon writes in a directory others may
 * reach: watch's state, XID history, acks and textfile, health's reboot
 * record.
 *
 * Nothing here follows a planted symbolic link or trusts a guessable name:
 *   - a replacement is written to a temporary made by mkstemp() in the
 *     target's directory (O_CREAT|O_EXCL, a random name; a link planted
 *     at any name is never opened), then renamed over the target, which
 *     replaces a link instead of writing through it;
 *   - an append opens with O_NOFOLLOW and refuses anything but a regular
 *     file owned by this user;
 *   - a directory is trusted only if it is a real directory owned by this
 *     user (or root), not writable by its group or others without the
 *     sticky bit, and every directory above it passes the same test;
 *     a file only if it is regular and owned by this user (or root):
 *     anyone else could have written it;
 *   - a library a privileged daemon loads, or a file whose rules it obeys,
 *     by path (watch --sample-nvml, --policy) only if no one else could
 *     have replaced it or a directory on its way.
 *
 *	if (safefile_check_dir(dir, &e) < 0) ... refuse, say e.msg ...
 *	if (safefile_write(path, data, len, 0644, 1, &e) < 0) ...
 *	if (safefile_append(path, line, strlen(line), 0644, &e) < 0) ...
 *	if (safefile_check_trusted(lib, &e) < 0) ... refuse to load or obey it ...
 *	fd = open(path, O_RDONLY | O_NOFOLLOW); fstat(fd, &st);
 *	if (safefile_check_opened(path, &st, 0, &e) < 0) ... refuse what fd reads ...
 */
#ifndef GD_SAFEFILE_H
#define GD_SAFEFILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/err.h"

/* Replace path with data, atomically; durable: fsync before the rename. */
int safefile_write(const char *path, const void *data, size_t len, mode_t mode, int durable,
		   struct err *e);
/* Append data to path (created with mode when absent). */
int safefile_append(const char *path, const void *data, size_t len, mode_t mode, struct err *e);
/* 0 when dir may hold this user's files, else -1 with the reason. */
int safefile_check_dir(const char *dir, struct err *e);
/* 0 when path is a regular file this user (or root) owns, 1 when it does
 * not exist, -1 with the reason otherwise (a link, another owner, ...). */
int safefile_check_file(const char *path, struct err *e);
/* 0 when the file at path (a library to load, a policy to obey) may be
 * trusted by this user: the
 * file and every directory above it, as written and as resolved, are owned
 * by this user or root and writable by no one else (a sticky directory
 * excepted), like ld.so's rules for a set-user-ID program's libraries;
 * else -1 with the first step that fails. */
int safefile_check_trusted(const char *path, struct err *e);
/* The same for a stat result (for files read through core/fs.h). */
int safefile_check_stat(const char *what, const struct stat *st, struct err *e);
/* fstat() of what was just opened (O_NOFOLLOW): 0 when it is a regular file
 * (a directory when is_dir) owned by this user or root and writable by no
 * one else (a sticky directory excepted).  Checking the open descriptor,
 * not the name, leaves no window between the check and the read. */
int safefile_check_opened(const char *what, const struct stat *st, int is_dir, struct err *e);

#endif
