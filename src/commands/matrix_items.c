/*
 * matrix_items.c - the pieces a matrix answer is made of (matrix_parts.h):
 * facts, notes, the overall verdict, one item per release judged (with
 * its chain of reasons and a recorded failure's report), the target a fit
 * is judged for, and the facts and notes several questions share (a
 * toolkit's driver floor, TensorFlow's RUNPATH gap).  Called by
 * matrix_answer.c, matrix_ask.c and matrix_newest.c; calls none of them.
 */
#include "commands/matrix.h"
#include "commands/matrix_parts.h"
#include "core/fs.h"
#include "core/strmap.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mx_fact(struct matrix_result *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->nfacts >= MATRIX_MAX)
		return;
	snprintf(r->facts[r->nfacts].key, sizeof(r->facts[0].key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(r->facts[r->nfacts].value, sizeof(r->facts[0].value), fmt, ap);
	va_end(ap);
	r->nfacts++;
}

void mx_note(struct matrix_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nnotes >= sizeof(r->notes) / sizeof(r->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
	/* the same release can be the answer of two questions in one query */
	for (size_t i = 0; i < r->nnotes; i++)
		if (!strcmp(r->notes[i], r->notes[r->nnotes]))
			return;
	r->nnotes++;
}

void mx_judge(struct matrix_result *r, int ok)
{
	if (ok == 0)
		r->verdict = 0;
	else if (ok == 1 && r->verdict == -1)
		r->verdict = 1;
}

/* row_source: the table row's own source, listed beside the deciding one. */
struct matrix_item *mx_item_from(struct matrix_result *r, const char *what, const char *version,
				     const struct kb_verdict *v, const char *install, const char *table,
				     const char *row_source)
{
	struct matrix_item *it;

	if (r->nitems >= MATRIX_MAX)
		return NULL;
	it = &r->items[r->nitems++];
	memset(it, 0, sizeof(*it));
	snprintf(it->what, sizeof(it->what), "%s", what);
	snprintf(it->version, sizeof(it->version), "%s", version ? version : "");
	it->ok = v->ok;
	it->scenario = MATRIX_AS_QUERIED;
	snprintf(it->why, sizeof(it->why), "%s", v->why);
	snprintf(it->install, sizeof(it->install), "%s", install ? install : "");
	it->source = v->source;
	it->row_source = row_source && (!v->source || strcmp(row_source, v->source)) ? row_source : NULL;
	it->table = table;
	return it;
}

struct matrix_item *mx_item(struct matrix_result *r, const char *what, const char *version,
				const struct kb_verdict *v, const char *install, const char *table)
{
	return mx_item_from(r, what, version, v, install, table, NULL);
}

/* A "no" that a recorded failure report makes: the item says so. */
void mx_known_failure(struct matrix_item *it, const struct kb_fit *f)
{
	if (it && f->failure && it->ok == 0)
		it->known_failure = 1;
}

struct kb_target mx_target(const struct mx_env *x)
{
	struct kb_target t = { x->driver, x->gpu, x->ma, x->mi, x->dc };

	/* --cc given against a GPU row: the row's CC was checked against it */
	if (x->gpu && (x->gpu->cc_major != x->ma || x->gpu->cc_minor != x->mi))
		t.gpu = NULL;
	return t;
}

/* Is a build for CUDA `cuda` outside the --cuda the user has? */
int mx_cuda_excluded(const struct mx_env *x, int cuda)
{
	if (x->cuda_major > 0 && cuda / 1000 != x->cuda_major)
		return 1;
	return x->cuda > 0 && cuda > x->cuda;
}

void mx_jax_label(const struct kb_jax *j, char *out, size_t n)
{
	if (j->jax_to)
		snprintf(out, n, "%s-%s (%s)", j->jax_from, j->jax_to, j->plugin);
	else
		snprintf(out, n, ">=%s (%s)", j->jax_from, j->plugin);
}

/*
 * A release whose libtensorflow_framework.so.2 leaves a wheel's directory
 * out of its RUNPATH cannot load that library from its own [and-cuda]
 * wheels: TF skips the GPU.  Read from the wheels (facts.tsv).
 */
void mx_tf_loader_note(const struct kb *kb, const struct kb_tf *t, struct matrix_result *r)
{
	char key[64];
	const char *lib;

	snprintf(key, sizeof(key), "tf.runpath_lacks.%s", t->version);
	lib = kb_fact(kb, key);
	if (!lib)
		return;
	mx_note(r, "TensorFlow %s: libtensorflow_framework.so.2 has no nvidia/%s/lib in its RUNPATH, so TF's "
	     "loader cannot open lib%s from its own [and-cuda] wheels and skips the GPU; after installing, "
	     "run: export LD_LIBRARY_PATH=\"$(python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')"
	     "/nvidia/%s/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"", t->version, lib, lib, lib);
}

void mx_min_driver_fact(const struct kb *kb, const char *key, int cuda, struct matrix_result *r)
{
	const char *own = kb_cuda_min_driver(kb, cuda), *compat = kb_cuda_compat_floor(kb, cuda / 1000);

	if (compat)
		mx_fact(r, key, ">= %s (any CUDA %d.x runtime, minor-version compatibility); CUDA %d.%d's own "
		     "toolkit driver: %s", compat, cuda / 1000, cuda / 1000, cuda % 1000 / 10, own ? own : "unknown");
	else
		mx_fact(r, key, "%s (CUDA %d.%d's own toolkit driver)", own ? own : "unknown", cuda / 1000,
		     cuda % 1000 / 10);
}
