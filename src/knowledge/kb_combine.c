/*
 * kb_combine.c - the facts that combining the tables must respect (issue 9;
 * each row of its tables names its source): the first driver of each GPU, the PTX JIT
 * rule, known failures, the cuDNN that pip resolves today and the GPUs that
 * cuDNN has code for, and which JAX versions exist.  kb_fit.c applies them.
 */
#include "knowledge/kb_internal.h"
#include "core/version.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int say(struct kb_verdict *v, int ok, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int say(struct kb_verdict *v, int ok, const char *source, const char *fmt, ...)
{
	va_list ap;

	if (v) {
		v->ok = ok;
		v->source = source;
		v->via = 0;
		va_start(ap, fmt);
		vsnprintf(v->why, sizeof(v->why), fmt, ap);
		va_end(ap);
	}
	return ok;
}

const char *kb_gpu_first_driver(const struct kb *kb, const struct kb_gpu *g)
{
	const struct kb_gpudrv *r;
	const struct kb_arch *a;

	if (!g)
		return NULL;
	r = g->vendor == 0x10de ? kb_gpudrv_of(kb, g->device) : NULL;
	if (r && r->first_driver)
		return r->first_driver;
	a = kb_arch_info(kb, g->cc_major, g->cc_minor);
	return a ? a->first_driver : NULL;
}

static long branch_of(const char *driver)
{
	struct version v;

	return version_parse(driver, &v) == 0 ? v.part[0] : -1;
}

/* Is `driver` in a branch that lists the id from a backport release on? */
static int in_backport(const char *backports, const char *driver)
{
	const char *b = backports;

	while (b && *b) {
		size_t n = strcspn(b, ";");
		char one[32];

		if (n < sizeof(one)) {
			memcpy(one, b, n);
			one[n] = '\0';
			if (branch_of(one) == branch_of(driver))
				return version_cmp_str(driver, one) >= 0 ? 1 : 0;
		}
		b += n + (b[n] == ';');
	}
	return -1;	/* not a backport branch */
}

/* The first driver that lists any id of g's chip: "-" rows (older than the
 * table) count as the table's first tag; NULL when no id of the chip is
 * listed or the chip is not known. */
static const char *chip_first_driver(const struct kb *kb, const struct kb_gpu *g)
{
	const char *best = NULL;

	if (!g->chip)
		return NULL;
	for (size_t i = 0; i < kb->ngpus; i++) {
		const struct kb_gpu *o = &kb->gpus[i];
		const struct kb_gpudrv *r;
		const char *d;

		if (!o->chip || strcmp(o->chip, g->chip) || o->vendor != 0x10de || !(r = kb_gpudrv_of(kb, o->device)))
			continue;
		d = r->first_driver ? r->first_driver : "515.43.04";
		if (!best || version_cmp_str(d, best) < 0)
			best = d;
	}
	return best;
}

static int unlisted(struct kb_verdict *v, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int unlisted(struct kb_verdict *v, const char *source, const char *fmt, ...)
{
	va_list ap;

	if (!v)
		return -1;
	v->ok = -1;
	v->source = source;
	v->via = KB_VIA_UNLISTED;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return -1;
}

int kb_driver_knows_gpu(const struct kb *kb, const char *driver, const struct kb_gpu *g,
			int cc_major, int cc_minor, struct kb_verdict *v)
{
	const struct kb_arch *a;
	const struct kb_gpudrv *r = NULL;
	const char *name = g ? g->name : NULL;
	char what[96];
	long br = driver ? branch_of(driver) : -1;

	if (g) {
		cc_major = g->cc_major;
		cc_minor = g->cc_minor;
		r = g->vendor == 0x10de && g->device != 0xffffffffu ? kb_gpudrv_of(kb, g->device) : NULL;
	}
	if (br < 0)
		return say(v, -1, NULL, "driver version '%s' is not known", driver ? driver : "(none)");
	if (name)
		snprintf(what, sizeof(what), "%s", name);
	else
		snprintf(what, sizeof(what), "compute capability %d.%d", cc_major, cc_minor);
	a = cc_major >= 0 ? kb_arch_info(kb, cc_major, cc_minor) : NULL;
	if (a && a->last_branch >= 0 && br > a->last_branch)
		return say(v, 0, a->source, "driver %s is newer than R%d, the last driver branch for %s "
			   "(sm_%d%d): it does not support %s", driver, a->last_branch,
			   a->arch ? a->arch : "this architecture", cc_major, cc_minor, what);
	/* an id NVIDIA stopped listing while its architecture went on */
	if (r && r->last_driver && version_cmp_str(driver, r->last_driver) > 0 && branch_of(r->last_driver) != br &&
	    !kb_gpu_current(kb, g))
		return unlisted(v, r->source, "driver %s does not list %s (PCI id 10de:%04x; the last driver that "
				"lists it is %s): not officially supported, though the driver binds devices of "
				"its chip %s", driver, what, g->device, r->last_driver, g->chip ? g->chip : "");
	if (r && r->first_driver) {
		int bp = in_backport(r->backports, driver);
		const char *chip_first;

		if (version_cmp_str(driver, r->first_driver) >= 0)
			return say(v, 1, r->source, "driver %s knows %s (first listed in %s)", driver, what,
				   r->first_driver);
		if (bp == 1)
			return say(v, 1, r->source, "driver %s knows %s (backported to R%ld)", driver, what, br);
		/* not listed, but its chip is: the driver binds it, unofficially;
		 * a new chip's first cards keep the first-release rule */
		chip_first = chip_first_driver(kb, g);
		if (chip_first && version_cmp_str(driver, chip_first) >= 0)
			return unlisted(v, r->source, "driver %s does not list %s (PCI id 10de:%04x, first listed "
					"in %s%s%s): not officially supported, though it supports the chip %s "
					"(listed from %s) and binds any device of it", driver, what, g->device,
					r->first_driver, r->backports ? ", backported to " : "",
					r->backports ? r->backports : "", g->chip, chip_first);
		return say(v, 0, r->source, "driver %s predates %s: the first driver that lists it (PCI id "
			   "10de:%04x) is %s%s%s", driver, what, g->device, r->first_driver,
			   r->backports ? ", backported to " : "", r->backports ? r->backports : "");
	}
	if (g && g->vendor == 0x10de && g->device != 0xffffffffu && !r && (!a || a->last_branch < 0 ||
									   a->last_branch >= 515))
		return say(v, -1, "open-gpu-chips", "%s (10de:%04x) is not in the driver's supported-chips "
			   "table (R515..R595): no driver is known to bind to it", what, g->device);
	if (!a)
		return say(v, -1, NULL, "%s is not in the architecture table", what);
	if (a->first_driver && version_cmp_str(driver, a->first_driver) < 0)
		return say(v, 0, a->source, "driver %s predates %s: the first driver for %s (sm_%d%d) is %s",
			   driver, what, a->arch ? a->arch : "its architecture", cc_major, cc_minor,
			   a->first_driver);
	return say(v, 1, a->source, "driver %s knows %s (%s drivers from %s)", driver, what,
		   a->arch ? a->arch : "its architecture", a->first_driver ? a->first_driver : "before R384");
}

int kb_ptx_jit_runs(const struct kb *kb, const char *driver, int ptx_cuda, struct kb_verdict *v)
{
	const char *floor = kb_cuda_min_driver(kb, ptx_cuda);
	int ma = ptx_cuda / 1000, mi = ptx_cuda % 1000 / 10;

	if (!driver)
		return say(v, -1, "ptx-jit-rule", "PTX from CUDA %d.%d needs a driver >= %s to JIT-compile", ma,
			   mi, floor ? floor : "(unknown)");
	if (!floor)
		return say(v, -1, "ptx-jit-rule", "the minimum driver of CUDA %d.%d is not known, so whether "
			   "driver %s can JIT its PTX is unknown", ma, mi, driver);
	if (version_cmp_str(driver, floor) >= 0)
		return say(v, 1, "ptx-jit-rule", "driver %s >= %s can JIT-compile PTX from CUDA %d.%d", driver,
			   floor, ma, mi);
	return say(v, 0, "ptx-jit-rule", "driver %s is older than %s, CUDA %d.%d's own minimum: it cannot "
		   "JIT-compile PTX that toolkit produced (cudaErrorUnsupportedPtxVersion), and minor-version "
		   "compatibility does not cover PTX", driver, floor, ma, mi);
}

const struct kb_failure *kb_known_failure(const struct kb *kb, const char *framework,
					  const char *version, int cc_major, int cc_minor)
{
	int cc = cc_major * 10 + cc_minor;

	if (!kb || !framework || !version || cc_major < 0)
		return NULL;
	for (size_t i = 0; i < kb->nfailures; i++) {
		const struct kb_failure *f = &kb->failures[i];
		struct version v, lo, hi;

		if (strcmp(f->framework, framework) || cc < f->cc_min || cc > f->cc_max)
			continue;
		if (version_parse(version, &v) < 0 || version_parse(f->from, &lo) < 0 ||
		    version_parse(f->to, &hi) < 0)
			continue;
		/* compare major.minor: a row "2.16".."2.21" covers 2.16.0 .. 2.21.x */
		if (v.part[0] * 1000 + v.part[1] >= lo.part[0] * 1000 + lo.part[1] &&
		    v.part[0] * 1000 + v.part[1] <= hi.part[0] * 1000 + hi.part[1])
			return f;
	}
	return NULL;
}

const struct kb_cudnn *kb_cudnn_line(const struct kb *kb, const char *version)
{
	const struct kb_cudnn *best = NULL;

	for (size_t i = 0; kb && version && i < kb->ncudnn; i++) {
		const struct kb_cudnn *r = &kb->cudnn[i];

		if (r->cc_min < 0 || version_cmp_str(r->version, version) > 0)
			continue;
		/* "9.10" covers 9.10.2.21; rows are per line, newest line wins */
		if (!best || version_cmp_str(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

int kb_cudnn_runs_on(const struct kb *kb, const char *version, int cc_major, int cc_minor,
		     struct kb_verdict *v)
{
	const struct kb_cudnn *best;
	int cc = cc_major * 10 + cc_minor;

	if (!version || cc_major < 0)
		return say(v, -1, NULL, "the cuDNN version or the compute capability is not known");
	best = kb_cudnn_line(kb, version);
	if (!best)
		return say(v, -1, NULL, "cuDNN %s is older than every line in the cuDNN table", version);
	if (cc < best->cc_min)
		return say(v, 0, best->source, "cuDNN %s (line %s and later) has no code for compute capability "
			   "%d.%d: its floor is %d.%d", version, best->version, cc_major, cc_minor,
			   best->cc_min / 10, best->cc_min % 10);
	if (best->cc_max >= 0 && cc > best->cc_max)
		return say(v, 0, best->source, "cuDNN %s supports compute capability %d.%d at most, not %d.%d",
			   version, best->cc_max / 10, best->cc_max % 10, cc_major, cc_minor);
	return say(v, 1, best->source, "cuDNN %s has code for compute capability %d.%d", version, cc_major,
		   cc_minor);
}

const char *kb_pip_resolve(const struct kb *kb, const char *package, const char *req)
{
	char key[96], hi[32] = "";
	const char *newest, *lt;

	if (!req || !package)
		return NULL;
	if (!strncmp(req, "==", 2))
		return req + 2;	/* points into the table's text, which lives as long as kb */
	lt = strstr(req, ",<");
	if (lt)
		snprintf(hi, sizeof(hi), "%s", lt + 2);
	snprintf(key, sizeof(key), "pip.newest.%s", package);
	newest = kb_fact(kb, key);
	if (newest && (!hi[0] || version_cmp_str(newest, hi) < 0))
		return newest;
	/* the newest below an upper bound under the newest: per major ("<9") */
	if (hi[0]) {
		snprintf(key, sizeof(key), "pip.newest.%s.%ld", package, strtol(hi, NULL, 10) - 1);
		return kb_fact(kb, key);
	}
	return NULL;
}

const char *kb_pip_cudnn_pre_turing(const struct kb *kb, const char *package)
{
	char key[96];

	snprintf(key, sizeof(key), "pip.cudnn_pre_turing.%s", package);
	return kb_fact(kb, key);
}

int kb_jax_released(const struct kb *kb, const char *version)
{
	const char *list = kb_fact(kb, "jax.releases");
	size_t n;

	if (!list || !version)
		return -1;
	n = strlen(version);
	for (const char *p = list; (p = strstr(p, version)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* "3.12" -> 312; -1 when it is not a 3.X version. */
static int py_num(const char *s)
{
	struct version v;

	if (version_parse(s, &v) < 0 || v.n < 2 || v.part[0] != 3 || v.part[1] > 98)
		return -1;
	return (int)(v.part[0] * 100 + v.part[1]);
}

int kb_python_range(const char *range, int *lo, int *hi)
{
	const char *last, *dash;
	char a[16] = "";

	if (!range)
		return -1;
	last = strrchr(range, ',');
	range = last ? last + 1 : range;
	while (*range == ' ')
		range++;
	snprintf(a, sizeof(a), "%.*s", (int)strcspn(range, "-+"), range);
	if ((*lo = py_num(a)) < 0)
		return -1;
	dash = range + strlen(a);
	if (*dash == '+')
		*hi = 399;
	else if (*dash == '-')
		*hi = py_num(dash + 1);
	else
		*hi = *lo;
	return *hi >= *lo ? 0 : -1;
}

int kb_python_packaged(const struct kb *kb, const char *repo, int lo, int hi, char *pkg, unsigned long size)
{
	char key[64];
	const char *list;
	int best = 0;

	if (!repo || !*repo)
		return -1;
	snprintf(key, sizeof(key), "python.packages.%s", repo);
	if (!(list = kb_fact(kb, key)))
		return -1;
	/* "3.9:python39 3.11:python3.11" */
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");
		char item[64];
		char *colon;
		int v;

		snprintf(item, sizeof(item), "%.*s", (int)(n < 63 ? n : 63), p);
		p += n;
		while (*p == ' ')
			p++;
		if (!(colon = strchr(item, ':')))
			continue;
		*colon = '\0';
		v = py_num(item);
		if (v >= lo && v <= hi && v > best) {
			best = v;
			snprintf(pkg, size, "%s", colon + 1);
		}
	}
	return best;
}

const char *kb_newest_release(const struct kb *kb, const char *fw)
{
	const char *best = NULL;

	if (!kb || !fw)
		return NULL;
	if (!strcmp(fw, "jax")) {
		const char *list = kb_fact(kb, "jax.releases"), *last;

		if (!list)
			return NULL;
		last = strrchr(list, ' ');
		return last ? last + 1 : list;
	}
	for (size_t i = 0; !strcmp(fw, "torch") && i < kb->ntorch; i++)
		if (!best || version_cmp_str(kb->torch[i].version, best) > 0)
			best = kb->torch[i].version;
	for (size_t i = 0; !strcmp(fw, "tensorflow") && i < kb->ntf; i++)
		if (!best || version_cmp_str(kb->tf[i].version, best) > 0)
			best = kb->tf[i].version;
	for (size_t i = 0; !strcmp(fw, "cupy") && i < kb->ncupy; i++)
		if (!best || version_cmp_str(kb->cupy[i].cupy, best) > 0)
			best = kb->cupy[i].cupy;
	return best;
}

int kb_predates(const struct kb *kb, const char *fw, const char *version)
{
	const char *newest = kb_newest_release(kb, fw);
	struct version a, b;

	if (!newest || !version || version_parse(version, &a) < 0 || version_parse(newest, &b) < 0)
		return 0;
	if (!strcmp(fw, "jax"))
		return version_cmp_str(version, newest) > 0;
	a.part[2] = a.part[3] = a.part[4] = 0;	/* the release line: major.minor */
	b.part[2] = b.part[3] = b.part[4] = 0;
	if (!strcmp(fw, "cupy"))		/* cupy.tsv rows: "14", "13.6" */
		a.part[1] = b.part[1] = 0;
	return version_cmp(&a, &b) > 0;
}
