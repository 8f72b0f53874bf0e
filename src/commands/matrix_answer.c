/*
 * matrix_answer.c - answer a `gpudoctor matrix` query from the knowledge
 * base: facts about what was given (GPU, driver, CUDA, a release), verdicts
 * with their chain of reasons, and the newest TF / PyTorch / JAX that fit.
 */
#include "commands/matrix.h"
#include "core/fs.h"
#include "core/strmap.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fact(struct matrix_result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct matrix_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fact(struct matrix_result *r, const char *key, const char *fmt, ...)
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

static void note(struct matrix_result *r, const char *fmt, ...)
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

static void judge(struct matrix_result *r, int ok)
{
	if (ok == 0)
		r->verdict = 0;
	else if (ok == 1 && r->verdict == -1)
		r->verdict = 1;
}

/* row_source: the table row's own source, listed beside the deciding one. */
static struct matrix_item *item_from(struct matrix_result *r, const char *what, const char *version,
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

static struct matrix_item *item(struct matrix_result *r, const char *what, const char *version,
				const struct kb_verdict *v, const char *install, const char *table)
{
	return item_from(r, what, version, v, install, table, NULL);
}

/* A "no" that a recorded failure report makes: the item says so. */
static void known_failure(struct matrix_item *it, const struct kb_fit *f)
{
	if (it && f->failure && it->ok == 0)
		it->known_failure = 1;
}

/* The context every fit is judged in. */
struct env {
	const char *driver;
	int ma, mi, dc;
	int cuda_major;		/* -1: any */
	int cuda;		/* --cuda as 12040: builds needing a newer one are out; -1 any */
	const struct kb_gpu *gpu;
};

static struct kb_target target(const struct env *x)
{
	struct kb_target t = { x->driver, x->gpu, x->ma, x->mi, x->dc };

	/* --cc given against a GPU row: the row's CC was checked against it */
	if (x->gpu && (x->gpu->cc_major != x->ma || x->gpu->cc_minor != x->mi))
		t.gpu = NULL;
	return t;
}

/* Is a build for CUDA `cuda` outside the --cuda the user has? */
static int cuda_excluded(const struct env *x, int cuda)
{
	if (x->cuda_major > 0 && cuda / 1000 != x->cuda_major)
		return 1;
	return x->cuda > 0 && cuda > x->cuda;
}

static const struct kb_tf *newest_tf(const struct kb *kb, const struct env *x, struct kb_fit *f)
{
	struct kb_target tg = target(x);

	for (size_t i = 0; i < kb_tf_count(kb); i++) {
		const struct kb_tf *t = kb_tf_at(kb, i);

		if (cuda_excluded(x, t->cuda_version))
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

static const struct kb_torch *newest_torch(const struct kb *kb, const struct env *x, const char *only,
					   struct kb_fit *f)
{
	const struct kb_torch *best = NULL;
	struct kb_target tg = target(x);
	struct kb_fit bf;

	for (size_t i = 0; i < kb_torch_count(kb); i++) {
		const struct kb_torch *t = kb_torch_at(kb, i);
		struct kb_fit tf;
		int ok;

		if (best && strcmp(best->version, t->version))
			break;	/* rows are grouped by release, newest first */
		if (only && version_cmp_str(t->version, only) != 0)
			continue;
		if (cuda_excluded(x, t->cuda_version))
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

static const struct kb_jax *newest_jax(const struct kb *kb, const struct env *x, struct kb_fit *f)
{
	struct kb_target tg = target(x);

	for (size_t i = 0; i < kb_jax_count(kb); i++) {
		const struct kb_jax *j = kb_jax_at(kb, i);

		if (cuda_excluded(x, j->cuda_min))
			continue;
		if (kb_jax_fit(kb, j, NULL, &tg, f) != 0)
			return j;
	}
	return NULL;
}

static void jax_label(const struct kb_jax *j, char *out, size_t n)
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
static void tf_loader_note(const struct kb *kb, const struct kb_tf *t, struct matrix_result *r)
{
	char key[64];
	const char *lib;

	snprintf(key, sizeof(key), "tf.runpath_lacks.%s", t->version);
	lib = kb_fact(kb, key);
	if (!lib)
		return;
	note(r, "TensorFlow %s: libtensorflow_framework.so.2 has no nvidia/%s/lib in its RUNPATH, so TF's "
	     "loader cannot open lib%s from its own [and-cuda] wheels and skips the GPU; after installing, "
	     "run: export LD_LIBRARY_PATH=\"$(python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')"
	     "/nvidia/%s/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"", t->version, lib, lib, lib);
}

/* Add the newest TF, PyTorch and JAX that fit x, each judged in `scenario`;
 * a framework none of whose releases fits gets a "no" with no version. */
static void newest_all(const struct kb *kb, const struct env *x, struct matrix_result *r, int scenario)
{
	struct kb_fit f;
	char label[64];
	const struct kb_tf *t = newest_tf(kb, x, &f);
	const struct kb_torch *p;
	const struct kb_jax *j;
	struct matrix_item *it;
	size_t first = r->nitems;

	if (t) {
		known_failure(item_from(r, "tensorflow", t->version, &f.v, f.install, "tf.tsv", t->source), &f);
		tf_loader_note(kb, t, r);
	} else
		item(r, "tensorflow", NULL, &(struct kb_verdict){ 0, "no TensorFlow release in the knowledge base fits", NULL, 0 }, NULL, "tf.tsv");
	if ((p = newest_torch(kb, x, NULL, &f))) {
		snprintf(label, sizeof(label), "%s+%s", p->version, p->variant);
		known_failure(item_from(r, "torch", label, &f.v, f.install, "torch.tsv", p->source), &f);
	} else {
		item(r, "torch", NULL, &(struct kb_verdict){ 0, "no PyTorch release in the knowledge base fits", NULL, 0 }, NULL, "torch.tsv");
	}
	if ((j = newest_jax(kb, x, &f))) {
		jax_label(j, label, sizeof(label));
		known_failure(item_from(r, "jax", label, &f.v, f.install, "jax.tsv", j->source), &f);
	} else {
		item(r, "jax", NULL, &(struct kb_verdict){ 0, "no JAX CUDA plugin in the knowledge base fits", NULL, 0 }, NULL, "jax.tsv");
	}
	for (size_t i = first; i < r->nitems; i++) {
		it = &r->items[i];
		it->scenario = scenario;
	}
}

static void describe_driver(const struct kb *kb, const char *d, int dc, struct matrix_result *r)
{
	int rep = kb_driver_cuda_version(kb, d), newest = kb_cuda_newest_for_driver(kb, d);
	struct version dv;

	if (rep > 0)
		fact(r, "driver", "%s (R%s) reports CUDA %d.%d", d, d, rep / 1000, rep % 1000 / 10);
	else
		fact(r, "driver", "%s (branch not in the knowledge base)", d);
	/* cut the branch from "%s (R%s)" -> first part only */
	if (version_parse(d, &dv) == 0)
		snprintf(r->facts[r->nfacts - 1].value, sizeof(r->facts[0].value),
			 rep > 0 ? "%s (R%ld) reports CUDA %d.%d" : "%s (R%ld: branch not in the knowledge base)",
			 d, dv.part[0], rep / 1000, rep % 1000 / 10);
	if (newest > 0)
		fact(r, "newest toolkit", "CUDA %d.%d is the newest toolkit whose own minimum driver %s meets",
		     newest / 1000, newest % 1000 / 10, d);
	for (int major = 11; major <= 13; major++) {
		struct kb_verdict v;
		const char *floor = kb_cuda_compat_floor(kb, major);
		char key[32];

		if (!floor)
			continue;
		snprintf(key, sizeof(key), "CUDA %d.x", major);
		if (kb_driver_runs_cuda(kb, d, major * 1000, dc, &v) == 1)
			fact(r, key, "yes (any %d.x runtime under minor-version compatibility from %s)", major, floor);
		else
			fact(r, key, "no: needs >= %s", floor);
	}
}

/* Kepler's last driver is R470 etc.: a newer driver cannot drive an old GPU. */
static void driver_vs_gpu(const struct kb *kb, const char *d, int ma, int mi, struct matrix_result *r)
{
	const struct kb_arch *a = kb_arch_info(kb, ma, mi);
	struct version dv;

	if (!a || a->last_branch < 0 || version_parse(d, &dv) < 0)
		return;
	if (dv.part[0] > a->last_branch) {
		note(r, "driver %s is newer than R%d, the last driver branch for %s (sm_%d%d): it does not support "
		     "this GPU", d, a->last_branch, a->arch ? a->arch : "this GPU", ma, mi);
		r->verdict = 0;
	} else if (dv.part[0] == a->last_branch) {
		note(r, "R%d is the last driver branch for %s (sm_%d%d): this GPU cannot use a newer driver, so "
		     "frameworks that need a newer one are out of reach", a->last_branch,
		     a->arch ? a->arch : "this GPU", ma, mi);
	}
}

static void branch_notes(const struct kb *kb, const char *d, struct matrix_result *r)
{
	struct version dv;
	char archs[128] = "";
	size_t used = 0;

	if (version_parse(d, &dv) < 0)
		return;
	for (int ma = 3; ma <= 7; ma++)
		for (int mi = 0; mi <= 9; mi++) {
			const struct kb_arch *a = kb_arch_info(kb, ma, mi);

			if (a && a->last_branch == dv.part[0] && used + 8 < sizeof(archs))
				used += (size_t)snprintf(archs + used, sizeof(archs) - used, "%s%d.%d",
							 used ? ", " : "", ma, mi);
		}
	if (used)
		note(r, "R%ld is the last driver branch for compute capability %s: those GPUs cannot move to a "
		     "newer driver", dv.part[0], archs);
}

static void describe_gpu(const struct kb *kb, const struct kb_gpu *g, int ma, int mi, struct matrix_result *r)
{
	const struct kb_arch *a = kb_arch_info(kb, ma, mi);

	if (g) {
		char pci[32] = "no PCI id";

		if (g->device != 0xffffffffu)
			snprintf(pci, sizeof(pci), "%04x:%04x", g->vendor, g->device);
		fact(r, "gpu", "%s (%s), %s, compute capability %d.%d, %s", g->name, pci,
		     g->arch ? g->arch : "architecture unknown", g->cc_major, g->cc_minor,
		     g->klass ? g->klass : "class unknown");
	}
	if (a) {
		char last[32] = "current", br[32] = "current";

		if (a->last_cuda >= 0 && a->last_cuda % 1000 == 999)
			snprintf(last, sizeof(last), "%d.x", a->last_cuda / 1000);
		else if (a->last_cuda >= 0)
			snprintf(last, sizeof(last), "%d.%d", a->last_cuda / 1000, a->last_cuda % 1000 / 10);
		if (a->last_branch >= 0)
			snprintf(br, sizeof(br), "R%d", a->last_branch);
		fact(r, "architecture", "sm_%d%d (%s): CUDA %d.%d .. %s; last driver branch %s", ma, mi,
		     a->arch ? a->arch : "?", a->first_cuda / 1000, a->first_cuda % 1000 / 10, last, br);
	} else if (ma >= 0) {
		fact(r, "architecture", "compute capability %d.%d is not in the architecture table", ma, mi);
	}
}

static void min_driver_fact(const struct kb *kb, const char *key, int cuda, struct matrix_result *r)
{
	const char *own = kb_cuda_min_driver(kb, cuda), *compat = kb_cuda_compat_floor(kb, cuda / 1000);

	if (compat)
		fact(r, key, ">= %s (any CUDA %d.x runtime, minor-version compatibility); CUDA %d.%d's own "
		     "toolkit driver: %s", compat, cuda / 1000, cuda / 1000, cuda % 1000 / 10, own ? own : "unknown");
	else
		fact(r, key, "%s (CUDA %d.%d's own toolkit driver)", own ? own : "unknown", cuda / 1000,
		     cuda % 1000 / 10);
}

static int ask_tf(const struct kb *kb, const char *ver, const struct env *x, int cuda,
		  struct matrix_result *r, struct err *e)
{
	const struct kb_tf *t = kb_tf_release(kb, ver);
	struct kb_verdict v = { -1, "", NULL, 0 };
	struct kb_target tg = target(x);
	struct kb_fit f;
	const char *win = kb_fact(kb, "tf.windows_gpu_last");

	if (!t)
		return err_set(e, "TensorFlow %s is not in the knowledge base (it has 1.13 .. %s)", ver,
			       kb_tf_count(kb) ? kb_tf_at(kb, 0)->version : "?");
	fact(r, "tensorflow", "%s: Python %s, CUDA %s, cuDNN %s, %s, %s", t->version, t->python, t->cuda,
	     t->cudnn, t->compiler ? t->compiler : "?", t->build_tool ? t->build_tool : "?");
	min_driver_fact(kb, "tensorflow driver", t->cuda_version, r);
	fact(r, "tensorflow archs", "%s%s", t->archs ? t->archs : "not recorded",
	     t->archs_conf && !strcmp(t->archs_conf, "3P") ? " (third-party evidence)" : "");
	if (win && version_cmp_str(t->version, win) > 0)
		fact(r, "tensorflow windows", "no GPU on native Windows: the last native-Windows GPU release is "
		     "TensorFlow %s (%s); use WSL2", win, kb_fact(kb, "tf.windows_gpu_last_config") ?
		     kb_fact(kb, "tf.windows_gpu_last_config") : "?");
	else if (win)
		fact(r, "tensorflow windows", "GPU on native Windows up to TensorFlow %s (the last one)", win);
	if (!t->pip_cudnn)
		fact(r, "tensorflow system", "CUDA %s and cuDNN %s must be installed system-wide (no [and-cuda] "
		     "extra before TensorFlow %s)", t->cuda, t->cudnn, kb_fact(kb, "tf.and_cuda_first") ?
		     kb_fact(kb, "tf.and_cuda_first") : "2.14");
	if (cuda > 0 && (cuda / 1000 != t->cuda_version / 1000 || cuda < t->cuda_version)) {
		v.ok = 0;
		v.source = t->source;
		snprintf(v.why, sizeof(v.why), "TensorFlow %s is built for CUDA %s, %s than CUDA %d.%d",
			 t->version, t->cuda, cuda / 1000 != t->cuda_version / 1000 ? "a different major" : "newer",
			 cuda / 1000, cuda % 1000 / 10);
		item(r, "tensorflow", t->version, &v, t->install, "tf.tsv");
		judge(r, 0);
		return 0;
	}
	kb_tf_fit(kb, t, &tg, &f);
	known_failure(item_from(r, "tensorflow", t->version, &f.v, f.install, "tf.tsv", t->source), &f);
	v = f.v;
	tf_loader_note(kb, t, r);
	if (x->driver || x->ma >= 0)
		judge(r, v.ok);
	return 0;
}

static int ask_torch(const struct kb *kb, const char *ver, const struct env *x, struct matrix_result *r,
		     struct err *e)
{
	char vbuf[32], *plus, label[64];
	const char *variant = NULL;
	int any = 0, best = 0;
	struct kb_target tg = target(x);

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
		if (cuda_excluded(x, t->cuda_version)) {
			v.ok = 0;
			snprintf(v.why, sizeof(v.why), "needs CUDA %d.%d, newer than CUDA %d.%d", t->cuda_version / 1000,
				 t->cuda_version % 1000 / 10, x->cuda / 1000, x->cuda % 1000 / 10);
		}
		snprintf(label, sizeof(label), "%s+%s", t->version, t->variant);
		known_failure(item_from(r, "torch", label, &v, f.install, "torch.tsv", t->source), &f);
		fact(r, label, "Python %s, CUDA %d.%d, cuDNN %s, archs %s, %s%s", t->python ? t->python : "?",
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
		item(r, "torch", ver, &v, NULL, "torch.tsv");
	}
	if (x->driver || x->ma >= 0 || x->cuda_major > 0)
		judge(r, any ? best : 0);
	return 0;
}

static int ask_jax(const struct kb *kb, const char *ver, const struct env *x, struct matrix_result *r,
		   struct err *e)
{
	int any = 0, best = 0;
	char label[64];
	struct kb_target tg = target(x);

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
		jax_label(j, label, sizeof(label));
		fact(r, label, "CUDA >= %d.%d, cuDNN >= %s and < %s, driver >= %s, compute capability >= %d.%d%s%s",
		     j->cuda_min / 1000, j->cuda_min % 1000 / 10, j->cudnn_min ? j->cudnn_min : "?",
		     j->cudnn_max ? j->cudnn_max : "?", j->min_driver ? j->min_driver : "?",
		     j->min_cc_major, j->min_cc_minor, j->archs ? ", archs " : "", j->archs ? j->archs : "");
		known_failure(item_from(r, "jax", label, &v, f.install, "jax.tsv", j->source), &f);
		any = 1;
		if (v.ok == 1 || (v.ok == -1 && best == 0))
			best = v.ok;
	}
	if (!any)
		return err_set(e, "JAX %s has no CUDA plugin in the knowledge base (it has 0.4.26 and newer)", ver);
	if (x->driver || x->ma >= 0)
		judge(r, best);
	return 0;
}

/*
 * The lowest driver with which a fit says yes: tried over every driver the
 * tables name (toolkit minimums, minor-version floors, the GPU's first
 * driver), so every rule (first driver, PTX JIT, ...) is respected.
 */
static const char *lowest_driver(const struct kb *kb, const struct env *x, const struct kb_tf *tf,
				 const struct kb_torch *pt, const struct kb_jax *j)
{
	const char *best = NULL;
	size_t n = kb_cuda_count(kb) + 4;

	for (size_t i = 0; i < n; i++) {
		struct env y = *x;
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
		tg = target(&y);
		ok = tf ? kb_tf_fit(kb, tf, &tg, &f) : pt ? kb_torch_fit(kb, pt, &tg, &f)
		   : j ? kb_jax_fit(kb, j, NULL, &tg, &f) : -1;
		if (ok == 1)
			best = d;
	}
	return best;
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

static int ask_cupy(const struct kb *kb, const char *ver, const struct env *x, struct matrix_result *r,
		    struct err *e)
{
	struct kb_target tg = target(x);
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
		fact(r, label, "CUDA %d.%d-%d.%d, Python %s", c->cuda_from / 1000, c->cuda_from % 1000 / 10,
		     c->cuda_to / 1000, c->cuda_to % 1000 / 10, c->python ? c->python : "?");
		item_from(r, "cupy", label, &v, f.install, "cupy.tsv", c->source);
		any = 1;
		if (v.ok == 1 || (v.ok == -1 && best == 0))
			best = v.ok;
	}
	if (!any)
		return err_set(e, "CuPy %s is not in the knowledge base (it has 13 and 14)", ver);
	if (x->driver || x->ma >= 0)
		judge(r, best);
	return 0;
}

/* What a newer driver would add to the newest-that-runs answers. */
static void upgrade_unlocks(const struct kb *kb, const struct env *x, struct matrix_result *r)
{
	struct env free_drv = *x;
	size_t before = r->nitems, kept;
	const struct kb_arch *a = x->ma >= 0 ? kb_arch_info(kb, x->ma, x->mi) : NULL;
	struct kb_fit f;
	const struct kb_tf *t;
	const struct kb_torch *p;
	const struct kb_jax *j;

	free_drv.driver = NULL;
	newest_all(kb, &free_drv, r, MATRIX_NEWER_DRIVER);
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
		note(r, "a newer driver unlocks nothing more for these frameworks");
}

int matrix_answer(const struct kb *kb, const struct matrix_query *q, const struct matrix_machine *m,
		  struct matrix_result *r, struct err *e)
{
	const struct kb_gpu *g = NULL;
	struct env x = { q->driver, -1, -1, -1, -1, -1, NULL };
	int cuda = -1, asked = q->tf || q->torch || q->jax || q->cupy || q->nccl;

	memset(r, 0, sizeof(*r));
	r->verdict = -1;
	if (q->pci) {
		unsigned ven = 0x10de, dev;
		char *end;
		const char *p = strchr(q->pci, ':');

		if (p) {
			ven = (unsigned)strtoul(q->pci, &end, 16);
			if (end != p)
				return err_set(e, "--pci '%s': expected VENDOR:DEVICE in hex, like 10de:2684", q->pci);
			p++;
		} else {
			p = q->pci;
		}
		dev = (unsigned)strtoul(p, &end, 16);
		if (*end || end == p || dev > 0xffff)
			return err_set(e, "--pci '%s': expected VENDOR:DEVICE in hex, like 10de:2684", q->pci);
		if (!(g = kb_gpu_by_pci(kb, ven, dev)))
			note(r, "PCI id %04x:%04x is not in the knowledge base: its compute capability is unknown", ven, dev);
	}
	if (q->gpu) {
		const struct kb_gpu *cand[8];
		size_t nc = kb_gpu_candidates(kb, q->gpu, cand, 8), shown = nc < 8 ? nc : 8;
		const struct kb_gpu *n = nc ? cand[0] : NULL;
		int differ = 0;

		if (!n)
			return err_set(e, "--gpu '%s': no GPU of that name in the knowledge base (try --cc X.Y)", q->gpu);
		for (size_t i = 1; i < shown; i++)
			differ |= cand[i]->cc_major != n->cc_major || cand[i]->cc_minor != n->cc_minor;
		if (nc > 1) {
			/* the candidates, so that an ambiguous name is never answered for the wrong GPU */
			struct buf list = BUF_INIT;

			for (size_t i = 0; i < shown; i++)
				buf_printf(&list, "%s%s (10de:%04x, CC %d.%d)", i ? "; " : "", cand[i]->name,
					   cand[i]->device, cand[i]->cc_major, cand[i]->cc_minor);
			if (nc > shown)
				buf_printf(&list, "; and %zu more", nc - shown);
			if (differ) {
				err_set(e, "--gpu '%s' is ambiguous: %s. Name one (a longer name, or --pci 10de:XXXX)",
					q->gpu, list.s);
				buf_release(&list);
				return -1;
			}
			note(r, "--gpu '%s' also matches other GPUs of the same compute capability: %s", q->gpu, list.s);
			buf_release(&list);
		}
		if (g && (g->cc_major != n->cc_major || g->cc_minor != n->cc_minor)) {
			note(r, "--pci is %s (CC %d.%d) but --gpu matches %s (CC %d.%d)", g->name, g->cc_major,
			     g->cc_minor, n->name, n->cc_major, n->cc_minor);
			r->verdict = 0;
		}
		if (!g)
			g = n;
	}
	if (q->solve && m) {
		if (m->ngpus) {
			const struct kb_gpu *mg = kb_gpu_by_pci(kb, 0x10de, m->device[0]);

			for (size_t i = 0; i < m->ngpus; i++) {
				const struct kb_gpu *o = kb_gpu_by_pci(kb, 0x10de, m->device[i]);
				char key[40];

				snprintf(key, sizeof(key), "machine gpu %zu", i);
				fact(r, key, "10de:%04x %s", m->device[i], o ? o->name : "(not in the knowledge base)");
			}
			if (mg)
				g = mg;
			else
				note(r, "this machine's GPU 10de:%04x is not in the knowledge base", m->device[0]);
		} else {
			note(r, "no NVIDIA GPU found on the PCI bus (/sys/bus/pci/devices)%s",
			     g || q->cc ? ": answering for --gpu/--pci/--cc" : "");
			if (!g && !q->cc) {
				/* nothing runs on a GPU that is not there: never a "yes" */
				fact(r, "machine gpu", "none: this machine has no NVIDIA GPU, so no framework can use "
				     "one here (give --gpu NAME to plan for another machine)");
				r->verdict = 0;
				return 0;
			}
		}
		if (!x.driver) {
			if (m->driver[0]) {
				x.driver = m->driver;
				fact(r, "machine driver", "%s (from %s)", m->driver, m->driver_from);
			} else {
				note(r, "no NVIDIA driver is loaded (/proc/driver/nvidia/version is absent): answering "
				     "without a driver constraint");
			}
		}
	}
	if (g) {
		x.ma = g->cc_major;
		x.mi = g->cc_minor;
		x.dc = g->datacenter;
		x.gpu = g;
	}
	if (q->cc) {
		int a, b;
		char *end;
		long la = strtol(q->cc, &end, 10), lb;

		if (*end != '.' || end == q->cc || la < 1 || la > 99)
			return err_set(e, "--cc '%s': expected a compute capability like 8.9", q->cc);
		lb = strtol(end + 1, &end, 10);
		if (*end || lb < 0 || lb > 9)
			return err_set(e, "--cc '%s': expected a compute capability like 8.9", q->cc);
		a = (int)la;
		b = (int)lb;
		if (g && g->cc_major >= 0 && (g->cc_major != a || g->cc_minor != b)) {
			note(r, "--cc %d.%d contradicts %s, which is compute capability %d.%d", a, b, g->name,
			     g->cc_major, g->cc_minor);
			r->verdict = 0;
		}
		x.ma = a;
		x.mi = b;
	}
	if (q->cuda) {
		if ((cuda = kb_parse_cuda(q->cuda)) < 0)
			return err_set(e, "--cuda '%s': expected a CUDA version like 12.4", q->cuda);
		x.cuda_major = cuda / 1000;
		x.cuda = cuda;
	}
	if (x.driver) {
		struct version dv;

		if (version_parse(x.driver, &dv) < 0 || dv.n < 2)
			return err_set(e, "--driver '%s': expected a driver version like 535.104.05", x.driver);
	}
	if (!asked && !q->cuda && !x.driver && x.ma < 0 && !q->solve)
		return err_set(e, "nothing to answer: give --tf, --torch, --jax, --cupy, --nccl, --cuda, --driver, "
			       "--gpu, --cc, --pci or --solve (see gpudoctor matrix --help)");

	describe_gpu(kb, g, x.ma, x.mi, r);
	if (x.driver) {
		describe_driver(kb, x.driver, x.dc, r);
		if (x.ma >= 0) {
			struct kb_verdict kv = { -1, "", NULL, 0 };
			struct kb_target tg = target(&x);

			driver_vs_gpu(kb, x.driver, x.ma, x.mi, r);
			if (kb_driver_knows_gpu(kb, x.driver, tg.gpu, x.ma, x.mi, &kv) == 0) {
				fact(r, "driver knows gpu", "no: %s", kv.why);
				r->verdict = 0;
			} else {
				fact(r, "driver knows gpu", "%s: %s", kv.ok == 1 ? "yes" : "unknown", kv.why);
			}
		}
		else
			branch_notes(kb, x.driver, r);
	}
	if (cuda > 0) {
		struct kb_verdict v;

		min_driver_fact(kb, "cuda driver", cuda, r);
		if (x.driver) {
			kb_driver_runs_cuda(kb, x.driver, cuda, x.dc, &v);
			fact(r, "driver runs cuda", "%s: %s", v.ok == 1 ? "yes" : v.ok == 0 ? "no" : "unknown", v.why);
			judge(r, v.ok);
		}
		if (x.ma >= 0) {
			const struct kb_arch *a = kb_arch_info(kb, x.ma, x.mi);

			if (a && (a->first_cuda > cuda || (a->last_cuda >= 0 && cuda > a->last_cuda))) {
				note(r, "CUDA %d.%d does not support compute capability %d.%d (sm_%d%d needs CUDA %d.%d%s)",
				     cuda / 1000, cuda % 1000 / 10, x.ma, x.mi, x.ma, x.mi, a->first_cuda / 1000,
				     a->first_cuda % 1000 / 10, a->last_cuda >= 0 ? " up to its last toolkit" : " or newer");
				r->verdict = 0;
			} else if (a) {
				judge(r, 1);
			}
		}
	}
	if (q->tf && ask_tf(kb, q->tf, &x, cuda, r, e) < 0)
		return -1;
	if (q->torch && ask_torch(kb, q->torch, &x, r, e) < 0)
		return -1;
	if (q->jax && ask_jax(kb, q->jax, &x, r, e) < 0)
		return -1;
	if (q->cupy && ask_cupy(kb, q->cupy, &x, r, e) < 0)
		return -1;
	if (q->nccl && kb_fact(kb, "nccl.origin"))
		fact(r, "nccl", "%s (source: %s)", kb_fact(kb, "nccl.origin"),
		     kb_source_url(kb, "nccl-origin") ? kb_source_url(kb, "nccl-origin") : "nccl-origin");
	if (!asked) {
		newest_all(kb, &x, r, MATRIX_AS_QUERIED);
		if (x.driver && (q->solve || x.ma >= 0))
			upgrade_unlocks(kb, &x, r);
	}
	return 0;
}
