/*
 * matrix_newest.c - the newest TensorFlow, PyTorch and JAX that fit a
 * machine (mx_newest_all), and what a newer driver would add to that
 * answer, with the lowest driver each needs (mx_upgrade_unlocks).  Part of
 * matrix_answer() (matrix_parts.h).
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

static const struct kb_tf *newest_tf(const struct kb *kb, const struct mx_env *x, struct kb_fit *f)
{
	struct kb_target tg = mx_target(x);

	for (size_t i = 0; i < kb_tf_count(kb); i++) {
		const struct kb_tf *t = kb_tf_at(kb, i);

		if (mx_cuda_excluded(x, t->cuda_version))
			continue;
		if (kb_tf_fit(kb, t, &tg, f) != 0)
			return t;
	}
	return NULL;
}

/* Better torch row: runs over probably, default wheel, stable, newer CUDA. */
static int torch_better(const struct kb_torch *a, int aok, const struct kb_torch *b, int bok)
{
	if (aok != bok)
		return aok == 1;
	if ((a->is_default == 1) != (b->is_default == 1))
		return a->is_default == 1;
	if (a->stable != b->stable)
		return a->stable;
	return a->cuda_version > b->cuda_version;
}

static const struct kb_torch *newest_torch(const struct kb *kb, const struct mx_env *x, const char *only,
					   struct kb_fit *f)
{
	const struct kb_torch *best = NULL;
	struct kb_target tg = mx_target(x);
	struct kb_fit bf;

	for (size_t i = 0; i < kb_torch_count(kb); i++) {
		const struct kb_torch *t = kb_torch_at(kb, i);
		struct kb_fit tf;
		int ok;

		if (best && strcmp(best->version, t->version))
			break;	/* rows are grouped by release, newest first */
		if (only && version_cmp_str(t->version, only) != 0)
			continue;
		if (mx_cuda_excluded(x, t->cuda_version))
			continue;
		ok = kb_torch_fit(kb, t, &tg, &tf);
		if (ok == 0)
			continue;
		if (!best || torch_better(t, ok, best, bf.v.ok)) {
			best = t;
			bf = tf;
		}
	}
	if (best)
		*f = bf;
	return best;
}

static const struct kb_jax *newest_jax(const struct kb *kb, const struct mx_env *x, struct kb_fit *f)
{
	struct kb_target tg = mx_target(x);

	for (size_t i = 0; i < kb_jax_count(kb); i++) {
		const struct kb_jax *j = kb_jax_at(kb, i);

		if (mx_cuda_excluded(x, j->cuda_min))
			continue;
		if (kb_jax_fit(kb, j, NULL, &tg, f) != 0)
			return j;
	}
	return NULL;
}

/* Add the newest TF, PyTorch and JAX that fit x, each judged in `scenario`;
 * a framework none of whose releases fits gets a "no" with no version. */
void mx_newest_all(const struct kb *kb, const struct mx_env *x, struct matrix_result *r, int scenario)
{
	struct kb_fit f;
	char label[64];
	const struct kb_tf *t = newest_tf(kb, x, &f);
	const struct kb_torch *p;
	const struct kb_jax *j;
	struct matrix_item *it;
	size_t first = r->nitems;

	if (t) {
		mx_known_failure(mx_item_from(r, "tensorflow", t->version, &f.v, f.install, "tf.tsv", t->source), &f);
		mx_tf_loader_note(kb, t, r);
	} else
		mx_item(r, "tensorflow", NULL, &(struct kb_verdict){ 0, "no TensorFlow release in the knowledge base fits", NULL, 0 }, NULL, "tf.tsv");
	if ((p = newest_torch(kb, x, NULL, &f))) {
		snprintf(label, sizeof(label), "%s+%s", p->version, p->variant);
		mx_known_failure(mx_item_from(r, "torch", label, &f.v, f.install, "torch.tsv", p->source), &f);
	} else {
		mx_item(r, "torch", NULL, &(struct kb_verdict){ 0, "no PyTorch release in the knowledge base fits", NULL, 0 }, NULL, "torch.tsv");
	}
	if ((j = newest_jax(kb, x, &f))) {
		mx_jax_label(j, label, sizeof(label));
		mx_known_failure(mx_item_from(r, "jax", label, &f.v, f.install, "jax.tsv", j->source), &f);
	} else {
		mx_item(r, "jax", NULL, &(struct kb_verdict){ 0, "no JAX CUDA plugin in the knowledge base fits", NULL, 0 }, NULL, "jax.tsv");
	}
	for (size_t i = first; i < r->nitems; i++) {
		it = &r->items[i];
		it->scenario = scenario;
	}
}

/*
 * The lowest driver with which a fit says yes: tried over every driver the
 * tables name (toolkit minimums, minor-version floors, the GPU's first
 * driver), so every rule (first driver, PTX JIT, ...) is respected.
 */
static const char *lowest_driver(const struct kb *kb, const struct mx_env *x, const struct kb_tf *tf,
				 const struct kb_torch *pt, const struct kb_jax *j)
{
	const char *best = NULL;
	size_t n = kb_cuda_count(kb) + 4;

	for (size_t i = 0; i < n; i++) {
		struct mx_env y = *x;
		struct kb_target tg;
		struct kb_fit f;
		const char *d;
		int ok;

		if (i < kb_cuda_count(kb))
			d = kb_cuda_at(kb, i)->linux_min;
		else if (i - kb_cuda_count(kb) < 3)
			d = kb_cuda_compat_floor(kb, 11 + (int)(i - kb_cuda_count(kb)));
		else
			d = kb_gpu_first_driver(kb, x->gpu);
		if (!d || (best && version_cmp_str(d, best) >= 0))
			continue;
		y.driver = d;
		tg = mx_target(&y);
		ok = tf ? kb_tf_fit(kb, tf, &tg, &f) : pt ? kb_torch_fit(kb, pt, &tg, &f)
		   : j ? kb_jax_fit(kb, j, NULL, &tg, &f) : -1;
		if (ok == 1)
			best = d;
	}
	return best;
}

/* What a newer driver would add to the newest-that-runs answers. */
void mx_upgrade_unlocks(const struct kb *kb, const struct mx_env *x, struct matrix_result *r)
{
	struct mx_env free_drv = *x;
	size_t before = r->nitems, kept;
	const struct kb_arch *a = x->ma >= 0 ? kb_arch_info(kb, x->ma, x->mi) : NULL;
	struct kb_fit f;
	const struct kb_tf *t;
	const struct kb_torch *p;
	const struct kb_jax *j;

	free_drv.driver = NULL;
	mx_newest_all(kb, &free_drv, r, MATRIX_NEWER_DRIVER);
	t = newest_tf(kb, &free_drv, &f);
	p = newest_torch(kb, &free_drv, NULL, &f);
	j = newest_jax(kb, &free_drv, &f);
	for (size_t i = before; i < r->nitems; i++) {
		struct matrix_item *it = &r->items[i];
		const struct matrix_item *now = &r->items[i - 3];
		const char *w = it->what, *need;

		if (it->version[0] && !strcmp(it->version, now->version) && now->ok != 0) {
			it->ok = -1;
			snprintf(it->why, sizeof(it->why), "nothing newer: the current driver already runs it");
			continue;
		}
		if (it->ok == 0)
			continue;
		need = !strcmp(w, "tensorflow") ? (t ? lowest_driver(kb, x, t, NULL, NULL) : NULL)
		     : !strcmp(w, "torch") ? (p ? lowest_driver(kb, x, NULL, p, NULL) : NULL)
		     : (j ? lowest_driver(kb, x, NULL, NULL, j) : NULL);
		if (!need) {
			it->ok = it->ok == 1 ? -1 : it->ok;
			snprintf(it->why, sizeof(it->why), "no driver in the knowledge base makes it a yes here%s%s",
				 it->ok < 0 ? ": " : "", it->ok < 0 ? "whether it runs is not known" : "");
			continue;
		}
		if (a && a->last_branch > 0 && atoi(need) > a->last_branch) {
			it->ok = 0;
			snprintf(it->why, sizeof(it->why), "needs driver >= %s, but R%d is the last branch for this GPU",
				 need, a->last_branch);
		} else {
			it->ok = 1;
			snprintf(it->needs_driver, sizeof(it->needs_driver), "%s", need);
			snprintf(it->why, sizeof(it->why), "needs driver >= %s", need);
		}
	}
	/* Keep only what an upgrade would really add: a release the current
	 * driver already runs, or one no driver for this GPU can run, is no
	 * reason to upgrade (the last-branch case has its own note). */
	kept = before;
	for (size_t i = before; i < r->nitems; i++)
		if (r->items[i].needs_driver[0] && r->items[i].ok != 0)
			r->items[kept++] = r->items[i];
	r->nitems = kept;
	if (kept == before)
		mx_note(r, "a newer driver unlocks nothing more for these frameworks");
}
