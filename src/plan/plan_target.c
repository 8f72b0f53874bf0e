/*
 * plan_target.c - the framework release a plan installs (plan_parts.h):
 * the newest TensorFlow, PyTorch variant or JAX that fits the machine,
 * judged with the same fit functions as `matrix` (knowledge/kb_fit.c), so a
 * plan never installs what the version contract says fails.
 */
#include "plan/plan.h"
#include "plan/plan_parts.h"
#include "core/shquote.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_fit_of(const struct kb *kb, const struct pb_target *t, const struct kb_target *tg, struct kb_fit *f)
{
	if (t->tf)
		return kb_tf_fit(kb, t->tf, tg, f);
	if (t->pt)
		return kb_torch_fit(kb, t->pt, tg, f);
	return kb_jax_fit(kb, t->j, t->jver, tg, f);
}

/* Better torch variant for this GPU: runs, PyPI default, stable, newer CUDA. */
static int torch_pick(const struct kb *kb, const char *version, const char *variant, const struct kb_target *tg,
		      struct pb_target *out)
{
	const struct kb_torch *best = NULL;
	int bok = 0;

	for (size_t i = 0; i < kb_torch_count(kb); i++) {
		const struct kb_torch *t = kb_torch_at(kb, i);
		struct kb_fit f;
		int ok;

		if (kb_torch_release(kb, version, t->variant) != t || (variant && strcasecmp(variant, t->variant)))
			continue;
		ok = kb_torch_fit(kb, t, tg, &f);
		if (!best || (ok == 1 && bok != 1) || (ok == bok && ((t->is_default == 1) > (best->is_default == 1) ||
				((t->is_default == 1) == (best->is_default == 1) && t->cuda_version > best->cuda_version)))) {
			if (!best || ok >= bok || bok == 0) {
				best = t;
				bok = ok;
			}
		}
	}
	if (!best)
		return -2;
	out->pt = best;
	out->cuda = best->cuda_version;
	out->python = best->python;
	return bok;
}

/* "3.12+" for a JAX release, from facts.tsv jax.requires_python ("0.7.0:3.11 0.11.0:3.12"). */
static const char *jax_python(const struct kb *kb, const char *version)
{
	static char out[16];
	const char *list = kb_fact(kb, "jax.requires_python");

	out[0] = '\0';
	for (const char *p = list; p && *p;) {
		char from[16] = "", py[8] = "";
		size_t n = strcspn(p, " ");

		if (sscanf(p, "%15[0-9.]:%7[0-9.]", from, py) == 2 && version_cmp_str(version, from) >= 0)
			snprintf(out, sizeof(out), "%s+", py);
		p += n + (p[n] == ' ');
	}
	return out[0] ? out : NULL;
}

int pb_choose(const struct kb *kb, const struct plan_request *r, const struct kb_target *tg,
		  struct pb_target *t, struct plan *p, struct err *e)
{
	memset(t, 0, sizeof(*t));
	if (r->tf) {
		if (!(t->tf = kb_tf_release(kb, r->tf)))
			return err_set(e, "TensorFlow %s is not in the knowledge base (it has 1.13 .. %s)", r->tf,
				       kb_tf_at(kb, 0) ? kb_tf_at(kb, 0)->version : "?");
		t->cuda = t->tf->cuda_version;
		t->python = t->tf->python;
		snprintf(p->framework, sizeof(p->framework), "tensorflow");
		snprintf(p->release, sizeof(p->release), "%s", t->tf->version);
		return 0;
	}
	if (r->jax) {
		for (size_t i = 0; i < kb_jax_count(kb) && !t->j; i++) {
			const struct kb_jax *j = kb_jax_at(kb, i);
			struct kb_fit f;

			if (kb_jax_release(kb, r->jax, j->plugin) == j && kb_jax_fit(kb, j, r->jax, tg, &f) != 0)
				t->j = j;
		}
		if (kb_jax_released(kb, r->jax) == 0)
			return err_set(e, "JAX %s was never released", r->jax);
		if (!t->j)
			t->j = kb_jax_release(kb, r->jax, NULL);
		if (!t->j)
			return err_set(e, "JAX %s has no CUDA plugin in the knowledge base (it has 0.4.26 and newer)",
				       r->jax);
		t->jver = r->jax;
		t->cuda = t->j->cuda_min;
		t->python = jax_python(kb, r->jax);
		snprintf(p->framework, sizeof(p->framework), "jax");
		snprintf(p->release, sizeof(p->release), "%s (jax[%s])", r->jax, t->j->plugin);
		return 0;
	}
	if (r->torch) {
		char v[32], *plus;

		snprintf(v, sizeof(v), "%s", r->torch);
		if ((plus = strchr(v, '+')))
			*plus++ = '\0';
		if (torch_pick(kb, v, plus, tg, t) == -2)
			return err_set(e, "PyTorch %s is not in the knowledge base (it has 1.12 .. %s)", r->torch,
				       kb_torch_at(kb, 0) ? kb_torch_at(kb, 0)->version : "?");
	} else {
		/* the newest release with a variant that can run here (the driver will be installed) */
		const char *last = NULL;

		for (size_t i = 0; i < kb_torch_count(kb); i++) {
			const char *v = kb_torch_at(kb, i)->version;

			if (last && !strcmp(last, v))
				continue;
			last = v;
			if (torch_pick(kb, v, NULL, tg, t) != 0)
				break;
			t->pt = NULL;
		}
		if (!t->pt)
			torch_pick(kb, kb_torch_at(kb, 0)->version, NULL, tg, t);
		pb_note(p, "no release asked for: the newest PyTorch with a build for this GPU (--tf V, --torch V or "
		     "--jax V choose another)");
	}
	snprintf(p->framework, sizeof(p->framework), "torch");
	snprintf(p->release, sizeof(p->release), "%s+%s", t->pt->version, t->pt->variant);
	return 0;
}
