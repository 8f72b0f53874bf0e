/*
 * kb.c - open the knowledge base: read each table (from --kb DIR when the
 * file is there, else the embedded copy), check it, and convert its rows to
 * the typed arrays of kb_internal.h.  Every error names the file and line.
 *
 * This file reads the tables and runs each table's converter; a cell's
 * conversion is kb_cells.c's, a table's rows kb_rows.c's (kb_conv.h).
 */
#include "knowledge/kb_internal.h"
#include "knowledge/kb_conv.h"
#include "core/safefile.h"
#include "core/buf.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#define KB_FILE_MAX (16u << 20)

const char *const kb_table_names[KB_NTABLES] = {
	"sources.tsv", "facts.tsv", "tf.tsv", "torch.tsv", "jax.tsv", "cuda.tsv",
	"cuda_compat.tsv", "branches.tsv", "archs.tsv", "cudnn.tsv", "sonames.tsv", "gpus.tsv",
	"gpu_drivers.tsv", "failures.tsv", "cupy.tsv",
	"xid.tsv",
};

extern const char kb_data_sources[], kb_data_facts[], kb_data_tf[], kb_data_torch[],
	kb_data_jax[], kb_data_cuda[], kb_data_cuda_compat[], kb_data_branches[],
	kb_data_archs[], kb_data_cudnn[], kb_data_sonames[], kb_data_gpus[],
	kb_data_gpu_drivers[], kb_data_failures[], kb_data_cupy[], kb_data_xid[];

const char *kb_embedded(int i)
{
	static const char *const data[KB_NTABLES] = {
		kb_data_sources, kb_data_facts, kb_data_tf, kb_data_torch, kb_data_jax,
		kb_data_cuda, kb_data_cuda_compat, kb_data_branches, kb_data_archs,
		kb_data_cudnn, kb_data_sonames, kb_data_gpus, kb_data_gpu_drivers, kb_data_failures,
		kb_data_cupy, kb_data_xid,
	};
	return i >= 0 && i < KB_NTABLES ? data[i] : NULL;
}

/* ---- reading ---- */

/* Read fd (closed here) whole into out; path names it in errors. */
static int read_whole(int fd, const char *path, struct buf *out, struct err *e)
{
	char chunk[8192];
	ssize_t n;

	buf_reset(out);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_set_errno(e, "cannot read '%s'", path);
			close(fd);
			return -1;
		}
		buf_add(out, chunk, (size_t)n);
		if (out->len > KB_FILE_MAX) {
			close(fd);
			return err_set(e, "%s: larger than %u bytes", path, KB_FILE_MAX);
		}
	}
	close(fd);
	return 0;
}

/*
 * One table: DIR/name when it is there (opened relative to the directory's
 * descriptor, so the directory read is the one checked), else the embedded
 * copy.  trusted: the file must not be a link and must pass
 * safefile_check_opened() on the descriptor it is read from.
 */
static int load_table(int dfd, const char *dir, int i, int trusted, struct kb_table *t,
		      struct err *e)
{
	const char *name = kb_table_names[i];

	if (dfd >= 0) {
		char *path = xasprintf("%s/%s", dir, name);
		int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (trusted ? O_NOFOLLOW : 0));
		struct stat st;
		int r = 0;

		if (fd >= 0) {
			struct buf b = BUF_INIT;
			struct err e2 = ERR_INIT;

			if (fstat(fd, &st) < 0)
				r = err_set_errno(e, "cannot stat '%s'", path);
			else if (!S_ISREG(st.st_mode))
				r = err_set(e, "%s: not a regular file", path);
			else if (trusted && safefile_check_opened(path, &st, 0, &e2) < 0)
				r = err_set(e, "--kb refused: %s", e2.msg);
			if (r < 0)
				close(fd);
			else if ((r = read_whole(fd, path, &b, e)) == 0)
				r = kb_table_parse(name, path, b.s ? b.s : "", b.len, t, e);
			buf_release(&b);
			free(path);
			return r;
		}
		if (errno != ENOENT) {
			r = trusted && errno == ELOOP
				    ? err_set(e, "--kb refused: '%s' is a symbolic link", path)
				    : err_set_errno(e, "cannot open '%s'", path);
			free(path);
			return r;
		}
		free(path);
	}
	return kb_table_parse(name, "embedded", kb_embedded(i), strlen(kb_embedded(i)), t, e);
}

static int (*const converters[KB_NTABLES])(struct conv *c) = {
	kb_conv_sources, kb_conv_facts, kb_conv_tf, kb_conv_torch, kb_conv_jax, kb_conv_cuda, kb_conv_compat,
	kb_conv_branches, kb_conv_archs, kb_conv_cudnn, kb_conv_sonames, kb_conv_gpus, kb_conv_gpudrv, kb_conv_failures,
	kb_conv_cupy, kb_conv_xid,
};

int kb_check_trusted(const char *dir, struct err *e)
{
	struct kb *kb = NULL;

	/* One check, the one kb_open_trusted() makes on what it reads. */
	if (kb_open_trusted(dir, &kb, e) < 0)
		return -1;
	kb_close(kb);
	return 0;
}

static int kb_load(const char *dir, int trusted, struct kb **out, struct err *e)
{
	struct kb *kb;
	int dfd = -1;

	*out = NULL;
	if (dir) {
		struct stat st;
		struct err e2 = ERR_INIT;

		/* The directory's way is checked by name (no one else may change
		   it); from here on everything is read through this descriptor. */
		if (trusted && safefile_check_dir(dir, &e2) < 0)
			return err_set(e, "--kb refused: %s", e2.msg);
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (trusted ? O_NOFOLLOW : 0));
		if (dfd < 0 || fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			if (dfd >= 0)
				close(dfd);
			return err_set(e, "--kb '%s': not a directory", dir);
		}
		if (trusted && safefile_check_opened(dir, &st, 1, &e2) < 0) {
			close(dfd);
			return err_set(e, "--kb refused: %s", e2.msg);
		}
	}
	kb = xcalloc(1, sizeof(*kb));
	for (int i = 0; i < KB_NTABLES; i++) {
		struct conv c = { kb, &kb->tab[i], 0, e };

		if (load_table(dfd, dir, i, trusted, &kb->tab[i], e) < 0 || converters[i](&c) < 0) {
			if (dfd >= 0)
				close(dfd);
			kb_close(kb);
			return -1;
		}
	}
	if (dfd >= 0)
		close(dfd);
	*out = kb;
	return 0;
}

int kb_open(const char *dir, struct kb **out, struct err *e)
{
	return kb_load(dir, 0, out, e);
}

int kb_open_trusted(const char *dir, struct kb **out, struct err *e)
{
	return kb_load(dir, 1, out, e);
}

void kb_close(struct kb *kb)
{
	if (!kb)
		return;
	for (int i = 0; i < KB_NTABLES; i++)
		kb_table_release(&kb->tab[i]);
	free(kb->tf);
	free(kb->torch);
	free(kb->jax);
	free(kb->cuda);
	free(kb->compat);
	free(kb->branches);
	free(kb->archs);
	free(kb->cudnn);
	free(kb->sonames);
	free(kb->gpus);
	free(kb->gpudrv);
	free(kb->failures);
	free(kb->cupy);
	free(kb->xids);
	free(kb);
}

size_t kb_table_count(const struct kb *kb)
{
	(void)kb;
	return KB_NTABLES;
}

const char *kb_as_of(const struct kb *kb)
{
	const char *oldest = NULL;

	for (size_t i = 0; kb && i < KB_NTABLES; i++) {
		if (!kb->tab[i].as_of)
			return NULL;
		if (!oldest || strcmp(kb->tab[i].as_of, oldest) < 0)
			oldest = kb->tab[i].as_of;
	}
	return oldest;
}

void kb_table_info(const struct kb *kb, size_t i, struct kb_table_info *out)
{
	const struct kb_table *t = &kb->tab[i < KB_NTABLES ? i : 0];

	out->name = t->name;
	out->origin = t->origin;
	out->as_of = t->as_of;
	out->rows = t->nrows;
}
