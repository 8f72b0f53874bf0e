/*
 * fs.h - reading the machine's files, inside --root when one is given.
 *
 * Every absolute path a probe reads (/proc, /sys, /dev, /etc, /usr, and paths
 * taken from environment variables) goes through fs_path(), so that a fixture
 * tree, a container image or a broken machine's disk can be inspected.
 * fs_resolve() follows symbolic links the way the kernel would inside a
 * chroot: absolute link targets are re-rooted, ".." never leaves the root,
 * more than FS_MAXSYMLINKS links in one lookup is ELOOP.  Every reader here
 * resolves first and hands the kernel only a path with no link left in it
 * (and O_NOFOLLOW on the last component), so no link in the tree is ever
 * followed with the host's rules.
 */
#ifndef GD_FS_H
#define GD_FS_H

#include <stddef.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/err.h"

struct gd_ctx;

/* The kernel's MAXSYMLINKS: the 41st link of one lookup is ELOOP, as in a chroot. */
#define FS_MAXSYMLINKS 40

/*
 * The host path of abs (resolved inside root, no link left in it) into out
 * (reset first); returns out->s.  When abs cannot be resolved inside the
 * root (loop, too many links, a missing directory: a missing last component
 * is still a path) returns NULL with errno
 * set and out holds "", which every system call refuses: a partly resolved
 * path is never handed to the kernel.  abs must start with '/'.
 */
const char *fs_path(const char *root, const char *abs, struct buf *out);
/* As fs_path, returning 0 or -1 with "cannot open 'abs': reason" in e. */
int fs_path_checked(const char *root, const char *abs, struct buf *out, struct err *e);

/*
 * Resolve every symlink of abs (an absolute path as the machine sees it) and
 * write the resolved machine path (without the root prefix) to out.
 * Returns 0, or -1 when a component is missing or links loop; out then holds
 * the path resolved so far.
 */
int fs_resolve(const char *root, const char *abs, struct buf *out, struct err *e);

/* Read a whole small file (at most max bytes; more is an error). */
int fs_read_file(const char *root, const char *abs, size_t max, struct buf *out,
		 struct err *e);
/* Read the first max bytes (or fewer, when the file is shorter). */
int fs_read_head(const char *root, const char *abs, size_t max, struct buf *out,
		 struct err *e);
/* Read the first line, trailing whitespace removed. */
int fs_read_line(const char *root, const char *abs, struct buf *out, struct err *e);
/* readlink of root+abs, the raw target as stored. */
int fs_readlink(const char *root, const char *abs, struct buf *out, struct err *e);

int fs_stat(const char *root, const char *abs, struct stat *st);
int fs_lstat(const char *root, const char *abs, struct stat *st);
int fs_exists(const char *root, const char *abs);
int fs_is_dir(const char *root, const char *abs);

/* Names in a directory, sorted, without "." and "..".  Caller frees with fs_names_free. */
int fs_list_dir(const char *root, const char *abs, char ***names, size_t *n,
		struct err *e);
void fs_names_free(char **names, size_t n);

/* Join dir and name with exactly one '/'. */
char *fs_join(const char *dir, const char *name);

#endif
