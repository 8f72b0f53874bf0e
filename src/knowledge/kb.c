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

static int read_whole(const char *path, struct buf *out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;

	if (!f)
		return err_set_errno(e, "cannot open '%s'", path);
	buf_reset(out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_add(out, chunk, n);
		if (out->len > KB_FILE_MAX) {
			fclose(f);
			return err_set(e, "%s: larger than %u bytes", path, KB_FILE_MAX);
		}
	}
	if (ferror(f)) {
		fclose(f);
		return err_set_errno(e, "cannot read '%s'", path);
	}
	fclose(f);
	return 0;
}

static int load_table(const char *dir, int i, struct kb_table *t, struct err *e)
{
	const char *name = kb_table_names[i];

	if (dir) {
		char *path = xasprintf("%s/%s", dir, name);
		struct stat st;
		int r = 0;

		if (stat(path, &st) == 0) {
			struct buf b = BUF_INIT;

			if (!S_ISREG(st.st_mode))
				r = err_set(e, "%s: not a regular file", path);
			else if ((r = read_whole(path, &b, e)) == 0)
				r = kb_table_parse(name, path, b.s ? b.s : "", b.len, t, e);
			buf_release(&b);
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
	struct err e2 = ERR_INIT;

	if (safefile_check_dir(dir, &e2) < 0)
		return err_set(e, "--kb refused: %s", e2.msg);
	for (int i = 0; i < KB_NTABLES; i++) {
		char *path = xasprintf("%s/%s", dir, kb_table_names[i]);
		struct stat st;
		int r = lstat(path, &st) == 0 ? safefile_check_trusted(path, &e2) : 0;

		free(path);
		if (r < 0)
			return err_set(e, "--kb refused: %s", e2.msg);
	}
	return 0;
}

int kb_open(const char *dir, struct kb **out, struct err *e)
{
	struct kb *kb = xcalloc(1, sizeof(*kb));
	struct stat st;

	*out = NULL;
	if (dir && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		free(kb);
		return err_set(e, "--kb '%s': not a directory", dir);
	}
	for (int i = 0; i < KB_NTABLES; i++) {
		struct conv c = { kb, &kb->tab[i], 0, e };

		if (load_table(dir, i, &kb->tab[i], e) < 0 || converters[i](&c) < 0) {
			kb_close(kb);
			return -1;
		}
	}
	*out = kb;
	return 0;
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
