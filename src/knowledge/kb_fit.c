/*
 * kb_fit.c - does a framework release run here?  Combines the rules of
 * kb_rules.c for one TF / PyTorch / JAX row with a driver and a compute
 * capability, and writes the chain of reasons into the verdict.
 */
#include "knowledge/kb_internal.h"
#include "core/buf.h"
#include "core/version.h"

#include <stdio.h>
#include <string.h>

/* 0 dominates, then unknown, then yes. */
static int combine(int a, int b)
{
	if (a == 0 || b == 0)
		return 0;
	if (a < 0 || b < 0)
		return -1;
	return 1;
}

static void finish(struct kb_verdict *v, int ok, struct buf *why, const char *source)
{
	if (!v)
		return;
	v->ok = ok;
	v->source = source;
	snprintf(v->why, sizeof(v->why), "%s", buf_cstr(why));
}

/* CUDA-toolkit support of a CC when the build's arch list is not recorded. */
static int arch_by_toolkit(const struct kb *kb, int cuda, int ma, int mi, struct kb_verdict *v)
{
	const struct kb_arch *a = kb_arch_info(kb, ma, mi);
	int cm, cn;

	version_from_cuda_int(cuda, &cm, &cn);
	if (!a) {
		snprintf(v->why, sizeof(v->why), "compute capability %d.%d is not in the architecture table",
			 ma, mi);
		return v->ok = -1;
	}
	if (a->first_cuda > cuda) {
		snprintf(v->why, sizeof(v->why), "CUDA %d.%d predates sm_%d%d (%s), first supported in CUDA %d.%d",
			 cm, cn, ma, mi, a->arch ? a->arch : "?", a->first_cuda / 1000,
			 a->first_cuda % 1000 / 10);
		v->source = a->source;
		return v->ok = 0;
	}
	if (a->last_cuda >= 0 && cuda > a->last_cuda) {
		snprintf(v->why, sizeof(v->why), "CUDA %d.%d no longer supports sm_%d%d (%s): the last toolkit "
			 "for it is %d.x", cm, cn, ma, mi, a->arch ? a->arch : "?", a->last_cuda / 1000);
		v->source = a->source;
		return v->ok = 0;
	}
	snprintf(v->why, sizeof(v->why), "its architecture list is not recorded; CUDA %d.%d supports sm_%d%d, "
		 "so it probably runs", cm, cn, ma, mi);
	v->source = a->source;
	return v->ok = -1;
}

static int fit(const struct kb *kb, const char *what, int cuda, const char *archs,
	       const char *driver, const char *min_driver, int ma, int mi, int dc,
	       struct buf *why, const char **source)
{
	struct kb_verdict dv = { -1, "", NULL };
	int ok = 1;
	char cs[16];

	snprintf(cs, sizeof(cs), "%d.%d", cuda / 1000, cuda % 1000 / 10);
	if (driver) {
		int r = kb_driver_runs_cuda(kb, driver, cuda, dc, &dv);

		if (r != 0 && min_driver && version_cmp_str(driver, min_driver) < 0) {
			snprintf(dv.why, sizeof(dv.why), "driver %s is older than %s, the documented minimum",
				 driver, min_driver);
			r = 0;
		}
		buf_printf(why, "%s needs CUDA %s: %s", what, cs, dv.why);
		ok = combine(ok, r);
		if (dv.source)
			*source = dv.source;
	}
	if (ma >= 0) {
		struct kb_verdict av = { -1, "", NULL };
		int r;

		if (archs) {
			const char *list[1] = { archs };

			r = kb_arch_runs(list, 1, ma, mi, &av);
		} else {
			r = arch_by_toolkit(kb, cuda, ma, mi, &av);
		}
		buf_printf(why, "%s%s: %s", why->len ? "; " : "", driver ? "GPU" : what, av.why);
		ok = combine(ok, r);
	}
	if (!driver && ma < 0)
		buf_printf(why, "%s needs CUDA %s", what, cs);
	return ok;
}

int kb_tf_fits(const struct kb *kb, const struct kb_tf *tf, const char *driver,
	       int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct buf why = BUF_INIT;
	const char *source = tf->source;
	char what[64];
	int ok;

	snprintf(what, sizeof(what), "TensorFlow %s", tf->version);
	ok = fit(kb, what, tf->cuda_version, tf->archs, driver, NULL, cc_major, cc_minor,
		 datacenter_gpu, &why, &source);
	finish(v, ok, &why, source);
	buf_release(&why);
	return ok;
}

int kb_torch_fits(const struct kb *kb, const struct kb_torch *t, const char *driver,
		  int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct buf why = BUF_INIT;
	const char *source = t->source;
	char what[64];
	int ok;

	snprintf(what, sizeof(what), "PyTorch %s+%s", t->version, t->variant);
	ok = fit(kb, what, t->cuda_version, t->archs, driver, NULL, cc_major, cc_minor,
		 datacenter_gpu, &why, &source);
	finish(v, ok, &why, source);
	buf_release(&why);
	return ok;
}

int kb_jax_fits(const struct kb *kb, const struct kb_jax *j, const char *driver,
		int cc_major, int cc_minor, int datacenter_gpu, struct kb_verdict *v)
{
	struct buf why = BUF_INIT;
	const char *source = j->source;
	char what[64];
	int ok;

	snprintf(what, sizeof(what), "JAX %s+ (jax[%s])", j->jax_from, j->plugin);
	ok = fit(kb, what, j->cuda_min, j->archs, driver, j->min_driver, cc_major, cc_minor,
		 datacenter_gpu, &why, &source);
	if (cc_major >= 0 && j->min_cc_major >= 0 &&
	    (cc_major < j->min_cc_major || (cc_major == j->min_cc_major && cc_minor < j->min_cc_minor))) {
		buf_printf(&why, "; the jax[%s] plugin needs compute capability >= %d.%d", j->plugin,
			   j->min_cc_major, j->min_cc_minor);
		ok = 0;
	}
	finish(v, ok, &why, source);
	buf_release(&why);
	return ok;
}
