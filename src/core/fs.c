/* fs.c - root-relative file access and chroot-style link resolution; see fs.h. */
#include "core/fs.h"
#include "core/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fs_is_host_root(const char *root)
{
	return !root || !strcmp(root, "/");
}

/* Inside a root the resolved path has no link left: a final component that
 * became a link since (a race) is refused rather than followed on the host. */
static int fs_nofollow(const char *root)
{
	return fs_is_host_root(root) ? 0 : O_NOFOLLOW;
}

/* root + abs, with no symlink resolution. */
static const char *fs_join_raw(const char *root, const char *abs, struct buf *out)
{
	buf_reset(out);
	if (!fs_is_host_root(root))
		buf_puts(out, root);
	if (abs[0] != '/')
		buf_addc(out, '/');
	buf_puts(out, abs);
	return out->s;
}

static int fs_walk(const char *root, const char *abs, struct buf *out, struct err *e,
		   int *last_missing);

/*
 * Under --root, the host's kernel would follow an absolute symlink inside
 * the tree (usr/local/cuda -> /usr/local/cuda-13.0) out to the host's own
 * files, and a relative one with enough ".." out of the tree.  So every path
 * is first resolved inside the root, component by component (fs_resolve),
 * and only a path with no symlink left in it is handed to the kernel.  A
 * path that cannot be resolved inside the root (a loop, more than
 * FS_MAXSYMLINKS links, a missing directory) is an error with that errno,
 * never the partly resolved path: the kernel would follow its last link
 * with host rules.  (A missing last component is fine: its directory has no
 * link left, and the kernel answers ENOENT.)  follow_last 0 keeps a final
 * symlink itself (for lstat and readlink).  On failure out is "" (which no
 * system call opens).
 */
static int fs_host_path(const char *root, const char *abs, int follow_last,
			struct buf *out)
{
	struct buf res = BUF_INIT;
	struct err e = ERR_INIT;
	const char *slash, *last;
	int rc = 0;

	if (fs_is_host_root(root)) {
		fs_join_raw(root, abs, out);
		return 0;
	}
	slash = strrchr(abs, '/');
	last = slash ? slash + 1 : abs;
	/* "." and ".." are never links: resolve them, or ".." leaves the root */
	if (!*last || !strcmp(last, ".") || !strcmp(last, ".."))
		follow_last = 1;
	if (follow_last) {
		int last_missing;

		rc = fs_walk(root, abs, &res, &e, &last_missing);
		if (rc < 0 && last_missing)
			rc = 0;		/* the kernel will say ENOENT; nothing to follow */
	} else {
		char *dir = xstrndup(abs, slash && slash != abs ? (size_t)(slash - abs) : 1);

		rc = fs_resolve(root, dir, &res, &e);
		if (res.len > 1)
			buf_addc(&res, '/');
		buf_puts(&res, last);
		free(dir);
	}
	if (rc < 0) {
		buf_reset(out);
		buf_release(&res);
		errno = e.code ? e.code : ENOENT;
		return -1;
	}
	fs_join_raw(root, res.s, out);
	buf_release(&res);
	return 0;
}

const char *fs_path(const char *root, const char *abs, struct buf *out)
{
	return fs_host_path(root, abs, 1, out) < 0 ? NULL : out->s;
}

int fs_path_checked(const char *root, const char *abs, struct buf *out, struct err *e)
{
	if (fs_host_path(root, abs, 1, out) < 0)
		return err_set_errno(e, "cannot open '%s'", abs);
	return 0;
}

char *fs_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	while (*name == '/')
		name++;
	if (dl == 1 && dir[0] == '/')
		return xasprintf("/%s", name);
	return xasprintf("%.*s/%s", (int)dl, dir, name);
}

/* Pop the last component of a resolved absolute path (never above "/"). */
static void fs_pop(struct buf *p)
{
	while (p->len > 1 && p->s[p->len - 1] != '/')
		p->len--;
	if (p->len > 1)
		p->len--;
	p->s[p->len] = '\0';
}

static int fs_readlink_raw(const char *host, const char *shown, struct buf *out,
			   struct err *e)
{
	char tmp[PATH_MAX];
	ssize_t n = readlink(host, tmp, sizeof(tmp) - 1);

	if (n < 0)
		return err_set_errno(e, "cannot read link '%s'", shown);
	buf_reset(out);
	buf_add(out, tmp, (size_t)n);
	return 0;
}

/*
 * The walk of fs_resolve.  *last_missing is set when the walk failed only
 * because the very last component does not exist (its directory resolved):
 * that path can still be handed to the kernel, which finds nothing there.
 */
static int fs_walk(const char *root, const char *abs, struct buf *out, struct err *e,
		   int *last_missing)
{
	struct buf todo = BUF_INIT, host = BUF_INIT, link = BUF_INIT;
	int hops = 0, ret = 0;
	size_t pos = 0;

	*last_missing = 0;

	buf_reset(out);
	buf_puts(out, "/");
	buf_puts(&todo, abs);
	while (pos < todo.len) {
		size_t start, n;
		struct stat st;
		char *comp;

		while (pos < todo.len && todo.s[pos] == '/')
			pos++;
		start = pos;
		while (pos < todo.len && todo.s[pos] != '/')
			pos++;
		n = pos - start;
		if (n == 0 || (n == 1 && todo.s[start] == '.'))
			continue;
		if (n == 2 && todo.s[start] == '.' && todo.s[start + 1] == '.') {
			fs_pop(out);
			continue;
		}
		comp = xstrndup(todo.s + start, n);
		if (out->len > 1)
			buf_addc(out, '/');
		buf_puts(out, comp);
		free(comp);
		fs_join_raw(root, out->s, &host);
		if (lstat(host.s, &st) < 0) {
			int errnum = errno;
			size_t p2 = pos;

			while (p2 < todo.len && todo.s[p2] == '/')
				p2++;
			*last_missing = errnum == ENOENT && p2 == todo.len;
			errno = errnum;
			ret = err_set_errno(e, "%s", out->s);
			goto done;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++hops > FS_MAXSYMLINKS) {
			errno = ELOOP;
			ret = err_set_errno(e, "%s", out->s);
			goto done;
		}
		/* out->s is resolved up to here: read the link without re-resolving. */
		if (fs_readlink_raw(host.s, out->s, &link, e) < 0) {
			ret = -1;
			goto done;
		}
		/* Splice the target in front of what is left to walk. */
		{
			struct buf rest = BUF_INIT;

			buf_puts(&rest, link.s);
			buf_addc(&rest, '/');
			buf_puts(&rest, todo.s + pos);
			buf_release(&todo);
			todo = rest;
			pos = 0;
		}
		if (link.s[0] == '/') {
			buf_reset(out);
			buf_puts(out, "/");
		} else {
			fs_pop(out);
		}
	}
done:
	buf_release(&todo);
	buf_release(&host);
	buf_release(&link);
	return ret;
}

int fs_resolve(const char *root, const char *abs, struct buf *out, struct err *e)
{
	int last_missing;

	return fs_walk(root, abs, out, e, &last_missing);
}

/* Read up to max bytes; more is an error only when whole is set. */
static int read_upto(const char *root, const char *abs, size_t max, int whole,
		     struct buf *out, struct err *e)
{
	struct buf p = BUF_INIT;
	char tmp[4096];
	int fd, ret = 0;

	buf_reset(out);
	fd = -1;
	if (fs_host_path(root, abs, 1, &p) == 0)
		fd = open(p.s, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | fs_nofollow(root));
	if (fd < 0) {
		ret = err_set_errno(e, "cannot open '%s'", abs);
		goto out;
	}
	for (;;) {
		size_t want = sizeof(tmp);
		ssize_t r;

		if (!whole && max - out->len < want)
			want = max - out->len;
		if (want == 0)
			break;
		r = read(fd, tmp, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = err_set_errno(e, "cannot read '%s'", abs);
			break;
		}
		if (r == 0)
			break;
		if (out->len + (size_t)r > max) {
			ret = err_set(e, "'%s' is larger than %zu bytes", abs, max);
			break;
		}
		buf_add(out, tmp, (size_t)r);
	}
	close(fd);
out:
	buf_release(&p);
	return ret;
}

int fs_read_file(const char *root, const char *abs, size_t max, struct buf *out,
		 struct err *e)
{
	return read_upto(root, abs, max, 1, out, e);
}

int fs_read_head(const char *root, const char *abs, size_t max, struct buf *out,
		 struct err *e)
{
	return read_upto(root, abs, max, 0, out, e);
}

int fs_read_line(const char *root, const char *abs, struct buf *out, struct err *e)
{
	char *nl;

	if (fs_read_file(root, abs, 65536, out, e) < 0)
		return -1;
	nl = memchr(out->s, '\n', out->len);
	if (nl) {
		*nl = '\0';
		out->len = (size_t)(nl - out->s);
	}
	buf_rtrim(out);
	return 0;
}

int fs_readlink(const char *root, const char *abs, struct buf *out, struct err *e)
{
	struct buf p = BUF_INIT;
	char tmp[PATH_MAX];
	ssize_t n;

	n = fs_host_path(root, abs, 0, &p) < 0 ? -1 : readlink(p.s, tmp, sizeof(tmp) - 1);
	buf_release(&p);
	if (n < 0)
		return err_set_errno(e, "cannot read link '%s'", abs);
	buf_reset(out);
	buf_add(out, tmp, (size_t)n);
	return 0;
}

int fs_stat(const char *root, const char *abs, struct stat *st)
{
	struct buf p = BUF_INIT;
	int r = fs_host_path(root, abs, 1, &p) < 0 ? -1 : stat(p.s, st);

	buf_release(&p);
	return r;
}

int fs_lstat(const char *root, const char *abs, struct stat *st)
{
	struct buf p = BUF_INIT;
	int r = fs_host_path(root, abs, 0, &p) < 0 ? -1 : lstat(p.s, st);

	buf_release(&p);
	return r;
}

int fs_exists(const char *root, const char *abs)
{
	struct stat st;

	return fs_lstat(root, abs, &st) == 0;
}

int fs_is_dir(const char *root, const char *abs)
{
	struct stat st;

	return fs_stat(root, abs, &st) == 0 && S_ISDIR(st.st_mode);
}

static int fs_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fs_list_dir(const char *root, const char *abs, char ***names, size_t *n,
		struct err *e)
{
	struct buf p = BUF_INIT;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*names = NULL;
	*n = 0;
	d = fs_host_path(root, abs, 1, &p) < 0 ? NULL : opendir(p.s);
	buf_release(&p);
	if (!d)
		return err_set_errno(e, "cannot list '%s'", abs);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		XGROW(*names, *n, cap);
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), fs_cmp_names);
	return 0;
}

void fs_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
