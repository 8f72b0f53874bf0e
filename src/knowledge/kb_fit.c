/*
 * kb_fit.c - does a framework release run here?  Combines, for one TF /
 * PyTorch / JAX row and a target machine (driver, GPU, compute capability),
 * every rule a "yes" must pass:
 *   - the driver knows the GPU (first driver per PCI id, last branch);
 *   - the driver runs the CUDA the build needs;
 *   - the build has SASS for the GPU, or PTX the driver can JIT (a driver at
 *     least as new as the toolkit that produced the PTX), from a toolkit that
 *     knows the architecture;
 *   - the cuDNN the install command brings has code for the GPU (pip takes
 *     the newest cuDNN a range allows; the command pins one where needed);
 *   - no known failure (failures.tsv) applies.
 * Any "no" makes the answer no; any unknown makes it unknown; yes needs all.
 */
#include "knowledge/kb_internal.h"
#include "core/buf.h"
#include "core/version.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct fitc {
	const struct kb *kb;
	const struct kb_target *t;
	struct buf why;
	int ok;
	const char *source;
};

/* 0 dominates, then unknown, then yes. */
static int combine(int a, int b)
{
	if (a == 0 || b == 0)
		return 0;
	if (a < 0 || b < 0)
		return -1;
	return 1;
}

static void add(struct fitc *c, int r, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct fitc *c, int r, const char *source, const char *fmt, ...)
{
	va_list ap;
	char text[640];

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (c->why.len)
		buf_puts(&c->why, "; ");
	buf_puts(&c->why, text);
	/* the source of the first reason that says no (else unknown) is the one to cite */
	if (source && ((r == 0 && c->ok != 0) || (r < 0 && c->ok == 1)))
		c->source = source;
	c->ok = combine(c->ok, r);
}

/* The build has no architecture list: the toolkit's range still rules out some GPUs. */
static void arch_by_toolkit(struct fitc *c, int cuda, int ma, int mi, int runtime)
{
	const struct kb_arch *a = kb_arch_info(c->kb, ma, mi);

	if (!a) {
		add(c, -1, NULL, "compute capability %d.%d is not in the architecture table", ma, mi);
	} else if (a->first_cuda > cuda) {
		add(c, 0, a->source, "CUDA %d.%d predates sm_%d%d (%s), first supported in CUDA %d.%d",
		    cuda / 1000, cuda % 1000 / 10, ma, mi, a->arch ? a->arch : "?", a->first_cuda / 1000,
		    a->first_cuda % 1000 / 10);
	} else if (a->last_cuda >= 0 && cuda > a->last_cuda) {
		add(c, 0, a->source, "CUDA %d.%d no longer supports sm_%d%d (%s): the last toolkit for it is %d.x",
		    cuda / 1000, cuda % 1000 / 10, ma, mi, a->arch ? a->arch : "?", a->last_cuda / 1000);
	} else if (runtime) {
		add(c, 1, a->source, "its kernels are compiled at run time for sm_%d%d, which CUDA %d.%d supports", ma, mi,
		    cuda / 1000, cuda % 1000 / 10);
	} else {
		add(c, -1, NULL, "the build's architecture list is not recorded, so whether it has code for "
		    "sm_%d%d is unknown (CUDA %d.%d supports that architecture)", ma, mi, cuda / 1000,
		    cuda % 1000 / 10);
	}
}

/* Driver, architecture, PTX and known-failure rules (the cuDNN rule is per framework). */
static void common(struct fitc *c, const char *what, const char *framework, const char *version, int cuda,
		   const char *archs, const char *min_driver, int runtime)
{
	const struct kb_target *t = c->t;
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;
	struct kb_verdict v = { -1, "", NULL, 0 };
	const struct kb_failure *fail;

	if (t->driver) {
		int r;

		if (t->gpu || ma >= 0) {
			r = kb_driver_knows_gpu(c->kb, t->driver, t->gpu, ma, mi, &v);
			if (r != 1)
				add(c, r, v.source, "%s", v.why);
		}
		r = kb_driver_runs_cuda(c->kb, t->driver, cuda, t->datacenter, &v);
		if (r != 0 && min_driver && version_cmp_str(t->driver, min_driver) < 0) {
			snprintf(v.why, sizeof(v.why), "driver %s is older than %s, the documented minimum",
				 t->driver, min_driver);
			r = 0;
		}
		add(c, r, v.source, "%s needs CUDA %d.%d: %s", what, cuda / 1000, cuda % 1000 / 10, v.why);
	}
	if (ma < 0) {
		if (!t->driver)
			add(c, 1, NULL, "%s needs CUDA %d.%d", what, cuda / 1000, cuda % 1000 / 10);
		return;
	}
	if (archs) {
		const char *list[1] = { archs };
		int r = kb_arch_runs(list, 1, ma, mi, &v);

		add(c, r, v.source, "%s%s", t->driver ? "GPU: " : "", v.why);
		if (r == 1 && v.via == KB_VIA_PTX) {
			const struct kb_arch *a = kb_arch_info(c->kb, ma, mi);
			struct kb_verdict pv = { -1, "", NULL, 0 };

			if (t->driver) {
				r = kb_ptx_jit_runs(c->kb, t->driver, cuda, &pv);
				add(c, r, pv.source, "%s", pv.why);
			} else {
				kb_ptx_jit_runs(c->kb, NULL, cuda, &pv);
				add(c, 1, NULL, "%s", pv.why);
			}
			if (a && a->first_cuda > cuda)
				add(c, -1, a->source, "that PTX comes from CUDA %d.%d, older than sm_%d%d (%s, first in "
				    "CUDA %d.%d): not known to work", cuda / 1000, cuda % 1000 / 10, ma, mi,
				    a->arch ? a->arch : "?", a->first_cuda / 1000, a->first_cuda % 1000 / 10);
		}
	} else {
		arch_by_toolkit(c, cuda, ma, mi, runtime);
	}
	fail = kb_known_failure(c->kb, framework, version, ma, mi);
	if (fail)
		add(c, 0, fail->source, "known failure: %s", fail->what);
}

/* The cuDNN rule for a pip requirement of `pkg`: resolve it, pin an older one where the newest
 * has no code for this GPU.  Writes f->cudnn and the pin (appended to f->install). */
static void cudnn_pip(struct fitc *c, const char *pkg, const char *req, struct kb_fit *f)
{
	const struct kb_target *t = c->t;
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;
	const char *got = kb_pip_resolve(c->kb, pkg, req), *pin;
	struct kb_verdict v = { -1, "", NULL, 0 };
	char minv[32] = "";
	int r;

	if (got)
		snprintf(f->cudnn, sizeof(f->cudnn), "%s", got);
	if (ma < 0)
		return;
	if (!got) {
		add(c, -1, NULL, "which %s pip installs for %s is not known", pkg, req);
		return;
	}
	r = kb_cudnn_runs_on(c->kb, got, ma, mi, &v);
	if (r != 0) {
		if (r < 0)
			add(c, -1, v.source, "%s", v.why);
		return;
	}
	if (!strncmp(req, ">=", 2))
		snprintf(minv, sizeof(minv), "%.*s", (int)strcspn(req + 2, ","), req + 2);
	pin = kb_pip_cudnn_pre_turing(c->kb, pkg);
	if (pin && strncmp(req, "==", 2) && (!minv[0] || version_cmp_str(pin, minv) >= 0) &&
	    kb_cudnn_runs_on(c->kb, pin, ma, mi, NULL) == 1) {
		size_t n = strlen(f->install);

		snprintf(f->install + n, sizeof(f->install) - n, " \"%s==%s\"", pkg, pin);
		snprintf(f->cudnn, sizeof(f->cudnn), "%s", pin);
		add(c, 1, "cudnn-911-preturing", "pip would install %s %s (%s), which has no code for "
		    "compute capability %d.%d; the install command pins %s, the newest with it", pkg, got, req,
		    ma, mi, pin);
		return;
	}
	add(c, 0, v.source, "the %s that pip installs (%s, from %s) has no code for this GPU: %s", pkg, got,
	    req, v.why);
}

static void finish(struct fitc *c, struct kb_fit *f)
{
	f->v.ok = c->ok;
	f->v.source = c->source;
	f->v.via = 0;
	snprintf(f->v.why, sizeof(f->v.why), "%s", buf_cstr(&c->why));
	buf_release(&c->why);
}

static void fit_init(struct fitc *c, const struct kb *kb, const struct kb_target *t, const char *source,
		     struct kb_fit *f)
{
	memset(f, 0, sizeof(*f));
	c->kb = kb;
	c->t = t;
	buf_init(&c->why);
	c->ok = 1;
	c->source = source;
}

int kb_tf_fit(const struct kb *kb, const struct kb_tf *tf, const struct kb_target *t, struct kb_fit *f)
{
	struct fitc c;
	char what[64];
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;

	fit_init(&c, kb, t, tf->source, f);
	snprintf(what, sizeof(what), "TensorFlow %s", tf->version);
	snprintf(f->install, sizeof(f->install), "%s", tf->install ? tf->install : "");
	common(&c, what, "tensorflow", tf->version, tf->cuda_version, tf->archs, NULL, 0);
	f->failure = kb_known_failure(kb, "tensorflow", tf->version, ma, mi);
	if (tf->pip_cudnn) {
		char pkg[32];

		snprintf(pkg, sizeof(pkg), "nvidia-cudnn-cu%d", tf->cuda_version / 1000);
		cudnn_pip(&c, pkg, tf->pip_cudnn, f);
	} else {
		struct kb_verdict v = { -1, "", NULL, 0 };

		/* no [and-cuda]: CUDA and cuDNN come from the system */
		size_t n = strlen(f->install);

		snprintf(f->install + n, sizeof(f->install) - n,
			 "   # needs CUDA %s and cuDNN %s installed system-wide", tf->cuda, tf->cudnn);
		snprintf(f->cudnn, sizeof(f->cudnn), "%s", tf->cudnn);
		if (ma >= 0 && kb_cudnn_runs_on(kb, tf->cudnn, ma, mi, &v) == 0)
			add(&c, 0, v.source, "%s", v.why);
	}
	finish(&c, f);
	return f->v.ok;
}

int kb_torch_fit(const struct kb *kb, const struct kb_torch *p, const struct kb_target *t, struct kb_fit *f)
{
	struct fitc c;
	char what[64];
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;
	struct kb_verdict v = { -1, "", NULL, 0 };

	fit_init(&c, kb, t, p->source, f);
	snprintf(what, sizeof(what), "PyTorch %s+%s", p->version, p->variant);
	kb_torch_install(p, f->install, sizeof(f->install));
	common(&c, what, "torch", p->version, p->cuda_version, p->archs, NULL, 0);
	f->failure = kb_known_failure(kb, "torch", p->version, ma, mi);
	/* the wheel pins (or bundles) its cuDNN exactly */
	if (p->cudnn) {
		snprintf(f->cudnn, sizeof(f->cudnn), "%s", p->cudnn);
		if (ma >= 0 && kb_cudnn_runs_on(kb, p->cudnn, ma, mi, &v) == 0)
			add(&c, 0, v.source, "its cuDNN %s has no code for this GPU: %s", p->cudnn, v.why);
	} else if (ma >= 0) {
		add(&c, -1, NULL, "the cuDNN this wheel brings is not recorded");
	}
	finish(&c, f);
	return f->v.ok;
}

int kb_jax_fit(const struct kb *kb, const struct kb_jax *j, const char *version, const struct kb_target *t,
	       struct kb_fit *f)
{
	struct fitc c;
	char what[64], pkg[32], req[64];
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;
	const char *rel = version ? version : j->jax_to ? j->jax_to : j->jax_from;
	const char *p = strstr(j->install, "VERSION");

	fit_init(&c, kb, t, j->source, f);
	if (version)
		snprintf(what, sizeof(what), "JAX %s (jax[%s])", version, j->plugin);
	else
		snprintf(what, sizeof(what), "JAX %s+ (jax[%s])", j->jax_from, j->plugin);
	if (p)
		snprintf(f->install, sizeof(f->install), "%.*s%s%s", (int)(p - j->install), j->install, rel, p + 7);
	else if (version)
		snprintf(f->install, sizeof(f->install), "pip install \"jax[%s]==%s\"", j->plugin, version);
	else
		snprintf(f->install, sizeof(f->install), "%s", j->install);
	common(&c, what, "jax", rel, j->cuda_min, j->archs, j->min_driver, 0);
	f->failure = kb_known_failure(kb, "jax", rel, ma, mi);
	if (ma >= 0 && j->min_cc_major >= 0 &&
	    (ma < j->min_cc_major || (ma == j->min_cc_major && mi < j->min_cc_minor)))
		add(&c, 0, j->source, "the jax[%s] plugin needs compute capability >= %d.%d", j->plugin,
		    j->min_cc_major, j->min_cc_minor);
	snprintf(pkg, sizeof(pkg), "nvidia-cudnn-cu%d", j->cuda_min / 1000);
	if (j->cudnn_min) {
		snprintf(req, sizeof(req), ">=%s%s%s", j->cudnn_min, j->cudnn_max ? ",<" : "",
			 j->cudnn_max ? j->cudnn_max : "");
		cudnn_pip(&c, pkg, req, f);
	}
	finish(&c, f);
	return f->v.ok;
}

size_t kb_cupy_count(const struct kb *kb)
{
	return kb->ncupy;
}

const struct kb_cupy *kb_cupy_at(const struct kb *kb, size_t i)
{
	return i < kb->ncupy ? &kb->cupy[i] : NULL;
}

int kb_cupy_fit(const struct kb *kb, const struct kb_cupy *cp, const struct kb_target *t, struct kb_fit *f)
{
	struct fitc c;
	char what[64];
	int ma = t->gpu ? t->gpu->cc_major : t->cc_major, mi = t->gpu ? t->gpu->cc_minor : t->cc_minor;

	fit_init(&c, kb, t, cp->source, f);
	snprintf(what, sizeof(what), "CuPy %s (%s)", cp->cupy, cp->package);
	snprintf(f->install, sizeof(f->install), "%s", cp->install);
	/* kernels are compiled for the GPU at run time: the CUDA major's range of
	 * architectures is what counts, not a list of prebuilt ones */
	/* with [ctk] pip brings the newest CUDA of the major: judge that one */
	common(&c, what, "cupy", cp->cupy, cp->cuda_to, NULL, NULL, 1);
	(void)ma;
	(void)mi;
	snprintf(f->cudnn, sizeof(f->cudnn), "-");
	finish(&c, f);
	return f->v.ok;
}

/* ---- The older interface: by compute capability, without a GPU row ---- */

static void copy_fit(const struct kb_fit *f, struct kb_verdict *v)
{
	if (v)
		*v = f->v;
}

int kb_tf_fits(const struct kb *kb, const struct kb_tf *tf, const char *driver,
	       int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct kb_target t = { driver, NULL, cc_major, cc_minor, datacenter_gpu };
	struct kb_fit f;

	kb_tf_fit(kb, tf, &t, &f);
	copy_fit(&f, v);
	return f.v.ok;
}

int kb_torch_fits(const struct kb *kb, const struct kb_torch *p, const char *driver,
		  int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct kb_target t = { driver, NULL, cc_major, cc_minor, datacenter_gpu };
	struct kb_fit f;

	kb_torch_fit(kb, p, &t, &f);
	copy_fit(&f, v);
	return f.v.ok;
}

int kb_jax_fits(const struct kb *kb, const struct kb_jax *j, const char *driver,
		int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct kb_target t = { driver, NULL, cc_major, cc_minor, datacenter_gpu };
	struct kb_fit f;

	kb_jax_fit(kb, j, NULL, &t, &f);
	copy_fit(&f, v);
	return f.v.ok;
}
