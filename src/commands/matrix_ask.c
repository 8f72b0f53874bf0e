/*
 * matrix_ask.c - the verdict on one named release (--tf, --torch, --jax,
 * --cupy) on the machine asked about, with its chain of reasons: the
 * driver the build needs, the GPU architectures it carries, the Python and
 * cuDNN it wants.  Part of matrix_answer() (matrix_parts.h).
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

int mx_ask_tf(const struct kb *kb, const char *ver, const struct mx_env *x, int cuda,
		  struct matrix_result *r, struct err *e)
{
	const struct kb_tf *t = kb_tf_release(kb, ver);
	struct kb_verdict v = { -1, "", NULL, 0 };
	struct kb_target tg = mx_target(x);
	struct kb_fit f;
	const char *win = kb_fact(kb, "tf.windows_gpu_last");

	if (!t)
		return err_set(e, "TensorFlow %s is not in the knowledge base (it has 1.13 .. %s)", ver,
			       kb_tf_count(kb) ? kb_tf_at(kb, 0)->version : "?");
	mx_fact(r, "tensorflow", "%s: Python %s, CUDA %s, cuDNN %s, %s, %s", t->version, t->python, t->cuda,
	     t->cudnn, t->compiler ? t->compiler : "?", t->build_tool ? t->build_tool : "?");
	mx_min_driver_fact(kb, "tensorflow driver", t->cuda_version, r);
	mx_fact(r, "tensorflow archs", "%s%s", t->archs ? t->archs : "not recorded",
	     t->archs_conf && !strcmp(t->archs_conf, "3P") ? " (third-party evidence)" : "");
	if (win && version_cmp_str(t->version, win) > 0)
		mx_fact(r, "tensorflow windows", "no GPU on native Windows: the last native-Windows GPU release is "
		     "TensorFlow %s (%s); use WSL2", win, kb_fact(kb, "tf.windows_gpu_last_config") ?
		     kb_fact(kb, "tf.windows_gpu_last_config") : "?");
	else if (win)
		mx_fact(r, "tensorflow windows", "GPU on native Windows up to TensorFlow %s (the last one)", win);
	if (!t->pip_cudnn)
		mx_fact(r, "tensorflow system", "CUDA %s and cuDNN %s must be installed system-wide (no [and-cuda] "
		     "extra before TensorFlow %s)", t->cuda, t->cudnn, kb_fact(kb, "tf.and_cuda_first") ?
		     kb_fact(kb, "tf.and_cuda_first") : "2.14");
	if (cuda > 0 && (cuda / 1000 != t->cuda_version / 1000 || cuda < t->cuda_version)) {
		v.ok = 0;
		v.source = t->source;
		snprintf(v.why, sizeof(v.why), "TensorFlow %s is built for CUDA %s, %s than CUDA %d.%d",
			 t->version, t->cuda, cuda / 1000 != t->cuda_version / 1000 ? "a different major" : "newer",
			 cuda / 1000, cuda % 1000 / 10);
		mx_item(r, "tensorflow", t->version, &v, t->install, "tf.tsv");
		mx_judge(r, 0);
		return 0;
	}
	kb_tf_fit(kb, t, &tg, &f);
	mx_known_failure(mx_item_from(r, "tensorflow", t->version, &f.v, f.install, "tf.tsv", t->source), &f);
	v = f.v;
	mx_tf_loader_note(kb, t, r);
	if (x->driver || x->ma >= 0)
		mx_judge(r, v.ok);
	return 0;
}

int mx_ask_torch(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		     struct err *e)
{
	char vbuf[32], *plus, label[64];
	const char *variant = NULL;
	int any = 0, best = 0;
	struct kb_target tg = mx_target(x);

	snprintf(vbuf, sizeof(vbuf), "%s", ver);
	if ((plus = strchr(vbuf, '+'))) {
		*plus = '\0';
		variant = plus + 1;
	}
	if (!kb_torch_release(kb, vbuf, variant))
		return err_set(e, "PyTorch %s is not in the knowledge base (it has 1.12 .. %s)", ver,
			       kb_torch_count(kb) ? kb_torch_at(kb, 0)->version : "?");
	/* The first row of each variant of this minor release (what
	 * kb_torch_release answers for it), found in one pass: a --kb torch.tsv
	 * of many thousand rows stays linear. */
	struct version want;
	struct strmap seen = STRMAP_INIT;
	char **keys = xcalloc(kb_torch_count(kb) + 1, sizeof(*keys));
	size_t nkeys = 0;

	if (version_parse(vbuf, &want) < 0)
		memset(&want, 0, sizeof(want));
	for (size_t i = 0; i < kb_torch_count(kb); i++) {
		const struct kb_torch *t = kb_torch_at(kb, i);
		struct kb_fit f;
		struct kb_verdict v;
		struct version tv;
		char *key;

		if (version_parse(t->version, &tv) < 0 || tv.part[0] != want.part[0] ||
		    tv.part[1] != want.part[1])
			continue;
		key = xstrdup(t->variant);
		for (char *k = key; *k; k++)
			*k = (char)tolower((unsigned char)*k);
		keys[nkeys++] = key;
		if (!strmap_add(&seen, key, i) || (variant && strcasecmp(variant, t->variant)))
			continue;
		if (x->cuda_major > 0 && t->cuda_version / 1000 != x->cuda_major)
			continue;
		kb_torch_fit(kb, t, &tg, &f);
		v = f.v;
		if (mx_cuda_excluded(x, t->cuda_version)) {
			v.ok = 0;
			snprintf(v.why, sizeof(v.why), "needs CUDA %d.%d, newer than CUDA %d.%d", t->cuda_version / 1000,
				 t->cuda_version % 1000 / 10, x->cuda / 1000, x->cuda % 1000 / 10);
		}
		snprintf(label, sizeof(label), "%s+%s", t->version, t->variant);
		mx_known_failure(mx_item_from(r, "torch", label, &v, f.install, "torch.tsv", t->source), &f);
		mx_fact(r, label, "Python %s, CUDA %d.%d, cuDNN %s, archs %s, %s%s", t->python ? t->python : "?",
		     t->cuda_version / 1000, t->cuda_version % 1000 / 10, t->cudnn ? t->cudnn : "?",
		     t->archs ? t->archs : "not recorded", t->stable ? "stable" : "experimental",
		     t->is_default == 1 ? ", the PyPI default" : "");
		any = 1;
		if (v.ok == 1 || (v.ok == -1 && best == 0))
			best = v.ok;
	}
	strmap_release(&seen);
	fs_names_free(keys, nkeys);
	if (!any) {
		struct kb_verdict v = { 0, "", NULL, 0 };

		snprintf(v.why, sizeof(v.why), "PyTorch %s has no wheel for CUDA %d.x", ver, x->cuda_major);
		mx_item(r, "torch", ver, &v, NULL, "torch.tsv");
	}
	if (x->driver || x->ma >= 0 || x->cuda_major > 0)
		mx_judge(r, any ? best : 0);
	return 0;
}

int mx_ask_jax(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		   struct err *e)
{
	int any = 0, best = 0;
	char label[64];
	struct kb_target tg = mx_target(x);

	if (kb_jax_released(kb, ver) == 0)
		return err_set(e, "JAX %s was never released (PyPI lists %s)", ver,
			       kb_fact(kb, "jax.releases") ? kb_fact(kb, "jax.releases") : "?");
	for (size_t i = 0; i < kb_jax_count(kb); i++) {
		const struct kb_jax *j = kb_jax_at(kb, i);
		struct kb_verdict v;
		struct kb_fit f;

		if (kb_jax_release(kb, ver, j->plugin) != j)
			continue;
		if (x->cuda_major > 0 && j->cuda_min / 1000 != x->cuda_major)
			continue;
		kb_jax_fit(kb, j, ver, &tg, &f);
		v = f.v;
		mx_jax_label(j, label, sizeof(label));
		mx_fact(r, label, "CUDA >= %d.%d, cuDNN >= %s and < %s, driver >= %s, compute capability >= %d.%d%s%s",
		     j->cuda_min / 1000, j->cuda_min % 1000 / 10, j->cudnn_min ? j->cudnn_min : "?",
		     j->cudnn_max ? j->cudnn_max : "?", j->min_driver ? j->min_driver : "?",
		     j->min_cc_major, j->min_cc_minor, j->archs ? ", archs " : "", j->archs ? j->archs : "");
		mx_known_failure(mx_item_from(r, "jax", label, &v, f.install, "jax.tsv", j->source), &f);
		any = 1;
		if (v.ok == 1 || (v.ok == -1 && best == 0))
			best = v.ok;
	}
	if (!any)
		return err_set(e, "JAX %s has no CUDA plugin in the knowledge base (it has 0.4.26 and newer)", ver);
	if (x->driver || x->ma >= 0)
		mx_judge(r, best);
	return 0;
}

/* cupy.tsv rows start a range of releases ("13.4" holds for 13.4-13.6 until
 * a later row of the same package and major): does row c describe `ver`?  A
 * bare major ("13") takes the newest row of each package. */
static int cupy_row_applies(const struct kb *kb, const struct kb_cupy *c, const char *ver)
{
	int bare = !strchr(ver, '.');

	if (strtol(ver, NULL, 10) != strtol(c->cupy, NULL, 10))
		return 0;
	if (!bare && version_cmp_str(c->cupy, ver) > 0)
		return 0;
	for (size_t i = 0; i < kb_cupy_count(kb); i++) {
		const struct kb_cupy *o = kb_cupy_at(kb, i);

		if (o == c || strcmp(o->package, c->package) || strtol(o->cupy, NULL, 10) != strtol(c->cupy, NULL, 10))
			continue;
		if (version_cmp_str(o->cupy, c->cupy) > 0 && (bare || version_cmp_str(o->cupy, ver) <= 0))
			return 0;
	}
	return 1;
}

int mx_ask_cupy(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		    struct err *e)
{
	struct kb_target tg = mx_target(x);
	int any = 0, best = 0;

	for (size_t i = 0; i < kb_cupy_count(kb); i++) {
		const struct kb_cupy *c = kb_cupy_at(kb, i);
		struct kb_fit f;
		struct kb_verdict v;
		char label[64];

		if (!cupy_row_applies(kb, c, ver))
			continue;
		if (x->cuda_major > 0 && c->cuda_from / 1000 != x->cuda_major)
			continue;
		kb_cupy_fit(kb, c, &tg, &f);
		v = f.v;
		snprintf(label, sizeof(label), "%s (%s)", c->cupy, c->package);
		mx_fact(r, label, "CUDA %d.%d-%d.%d, Python %s", c->cuda_from / 1000, c->cuda_from % 1000 / 10,
		     c->cuda_to / 1000, c->cuda_to % 1000 / 10, c->python ? c->python : "?");
		mx_item_from(r, "cupy", label, &v, f.install, "cupy.tsv", c->source);
		any = 1;
		if (v.ok == 1 || (v.ok == -1 && best == 0))
			best = v.ok;
	}
	if (!any)
		return err_set(e, "CuPy %s is not in the knowledge base (it has 13 and 14)", ver);
	if (x->driver || x->ma >= 0)
		mx_judge(r, best);
	return 0;
}
