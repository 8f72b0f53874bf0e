/*
 * ldso_dirstat.c - which search directories exist, remembered per ldso, as
 * ld.so remembers it per process.
 *
 * glibc's open_path (elf/dl-load.c) keeps a status per directory and
 * capability subdirectory: after the first failed open it stats the
 * directory, and a directory that does not exist is never tried again.  The
 * emulation stats each directory's capability subdirectories once, on first
 * use (the same answers, found a little earlier), which is also what keeps a
 * check of a machine with many libraries and many hwcaps subdirectories
 * fast: without it every soname costs one failed open per (directory x
 * subdirectory) pair.
 * The same holds for files: what open_verify made of a file (absent, skipped
 * and why, or accepted with its soname) is read once per ldso, not once per
 * question that reaches it (libgcc_s.so.1 was read 62 times per check).
 */
#include "loader/ldso_priv.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct strset {
	char **slot;		/* open addressing; NULL empty */
	void **val;		/* beside each key, owned (free()d with it) */
	size_t cap, n;		/* cap a power of two */
};

/*
 * dirs: for each search directory, which capability subdirectories exist
 * (one byte per l->capstrs entry), each stat()ed once per ldso.
 * files: what open_verify said of each file already tried (ldso_file_memo).
 */
struct dirstat {
	pthread_mutex_t lock;	/* loaders derived from one base may run on several threads */
	struct strset dirs, files;
};

static uint64_t dirstat_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static char **strset_find(const struct strset *d, const char *dir)
{
	size_t i = (size_t)dirstat_hash(dir) & (d->cap - 1);

	while (d->slot[i] && strcmp(d->slot[i], dir) != 0)
		i = (i + 1) & (d->cap - 1);
	return &d->slot[i];
}

static void **strset_add(struct strset *d, const char *dir)
{
	char **s;

	if ((d->n + 1) * 2 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct strset g = { xcalloc(cap, sizeof(char *)), xcalloc(cap, sizeof(void *)), cap,
				    d->n };

		for (size_t i = 0; i < d->cap; i++)
			if (d->slot[i]) {
				char **k = strset_find(&g, d->slot[i]);

				*k = d->slot[i];
				g.val[k - g.slot] = d->val[i];
			}
		free(d->slot);
		free(d->val);
		*d = g;
	}
	s = strset_find(d, dir);
	if (!*s) {
		*s = xstrdup(dir);
		d->n++;
	}
	return &d->val[s - d->slot];
}

static void strset_free(struct strset *d, void (*free_val)(void *))
{
	for (size_t i = 0; i < d->cap; i++) {
		free(d->slot[i]);
		if (d->val[i])
			free_val(d->val[i]);
	}
	free(d->slot);
	free(d->val);
}

static struct dirstat *dirstat_of(const struct ldso *l)
{
	return (l->base ? l->base : l)->dirstat;
}

void ldso_dirstat_init(struct ldso *l)
{
	struct dirstat *d = xcalloc(1, sizeof(*d));

	pthread_mutex_init(&d->lock, NULL);
	l->dirstat = d;
}

void ldso_memo_lock(const struct ldso *l)
{
	pthread_mutex_lock(&dirstat_of(l)->lock);
}

void ldso_memo_unlock(const struct ldso *l)
{
	pthread_mutex_unlock(&dirstat_of(l)->lock);
}

const unsigned char *ldso_dir_caps(struct ldso *l, const char *dir)
{
	struct dirstat *d = dirstat_of(l);
	unsigned char *caps = NULL;
	void **v;

	pthread_mutex_lock(&d->lock);
	if (d->dirs.n) {
		char **k = strset_find(&d->dirs, dir);

		if (*k)
			caps = d->dirs.val[k - d->dirs.slot];
	}
	pthread_mutex_unlock(&d->lock);
	if (caps)
		return caps;
	caps = xcalloc(l->ncapstrs ? l->ncapstrs : 1, 1);
	for (size_t c = 0; c < l->ncapstrs; c++) {
		struct buf host = BUF_INIT;
		struct stat st;
		char *sub = l->capstrs[c][0] ? fs_join(dir, l->capstrs[c]) : xstrdup(dir);

		fs_path(l->env.root, sub, &host);
		/* only a sure "not there" skips it: EACCES is tried, and said, as before */
		if (stat(host.s, &st) == 0)
			caps[c] = S_ISDIR(st.st_mode);
		else
			caps[c] = errno != ENOENT && errno != ENOTDIR;
		buf_release(&host);
		free(sub);
	}
	pthread_mutex_lock(&d->lock);
	v = strset_add(&d->dirs, dir);
	if (!*v) {
		*v = caps;
	} else {
		free(caps);	/* another thread was first: the same answer */
		caps = *v;
	}
	pthread_mutex_unlock(&d->lock);
	/* never changed or freed before the base loader is */
	return caps;
}

static void ldso_file_memo_free(void *v)
{
	struct ldso_file_memo *m = v;

	free(m->why);
	free(m->soname);
	free(m->load_error);
	free(m);
}

const struct ldso_file_memo *ldso_file_memo_get(const struct ldso *l, const char *path)
{
	struct dirstat *d = dirstat_of(l);
	const struct ldso_file_memo *m = NULL;

	pthread_mutex_lock(&d->lock);
	if (d->files.n) {
		char **k = strset_find(&d->files, path);

		if (*k)
			m = d->files.val[k - d->files.slot];
	}
	pthread_mutex_unlock(&d->lock);
	/* entries are never changed or freed before the base loader is */
	return m;
}

void ldso_file_memo_put(struct ldso *l, const char *path, const struct ldso_file_memo *m)
{
	struct dirstat *d = dirstat_of(l);
	struct ldso_file_memo *c = xcalloc(1, sizeof(*c));
	void **v;

	c->outcome = m->outcome;
	c->why = xstrdup_or_null(m->why);
	c->soname = xstrdup_or_null(m->soname);
	c->load_error = xstrdup_or_null(m->load_error);
	c->bytes_read = m->bytes_read;
	pthread_mutex_lock(&d->lock);
	v = strset_add(&d->files, path);
	if (!*v) {
		*v = c;
		c = NULL;
	}
	pthread_mutex_unlock(&d->lock);
	if (c)
		ldso_file_memo_free(c);	/* another thread put it first */
}

void ldso_dirstat_free(struct ldso *l)
{
	struct dirstat *d = l->dirstat;

	if (!d)
		return;
	strset_free(&d->dirs, free);
	strset_free(&d->files, ldso_file_memo_free);
	pthread_mutex_destroy(&d->lock);
	free(d);
	l->dirstat = NULL;
}
