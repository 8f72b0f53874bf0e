/*
 * rules_fw_common.c - what the framework rules share (rules_fw.h): a
 * framework's name for people, its libraries by role, its interpreter as a
 * shell word, the evidence line of a library and of the sources of a
 * known failure, the reinstall fix of its libraries, and the accumulator
 * that keeps one framework's problems for its summary finding.  Called by
 * rules_frameworks.c, rules_fw_libs.c and rules_fw_gpu.c; calls none of them.
 */
#include "rules/rules.h"
#include "rules/rules_fw.h"

#include "core/buf.h"
#include "core/ctx.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rf_pretty(const char *name)
{
	if (!strcmp(name, "tensorflow"))
		return "TensorFlow";
	if (!strcmp(name, "torch"))
		return "PyTorch";
	if (!strcmp(name, "jax"))
		return "JAX";
	if (!strcmp(name, "cupy"))
		return "CuPy";
	return name;
}

const struct fw_lib *rf_lib(const struct fw_entry *w, enum fw_role role)
{
	for (size_t i = 0; i < w->nlibs; i++)
		if (w->libs[i].role == role)
			return &w->libs[i];
	return NULL;
}

/* The environment's interpreter as one shell word (a ring buffer: see shq). */
const char *rf_py(const struct fw_entry *w)
{
	return w->python ? w->python : "python3";
}

void rf_fix_libs(const struct fw_entry *w, struct finding *f)
{
	const char *py = rf_py(w);
	char pkg[48];

	if (!strcmp(w->name, "tensorflow") && w->version &&
	    version_cmp_str(w->version, "2.14") >= 0) {
		char *spec = xasprintf("tensorflow[and-cuda]==%s", w->version);

		finding_fix_cmd(f, py, "-m", "pip", "install", spec, NULL);
		free(spec);
	} else if (!strcmp(w->name, "tensorflow")) {
		finding_fix(f, "install the CUDA libraries and the cuDNN of TensorFlow's build (the "
			    "evidence names them; this release predates the [and-cuda] extra)");
	} else if (!strcmp(w->name, "torch")) {
		char *spec = xasprintf("torch==%s", w->version ? w->version : "");

		finding_fix_cmd(f, py, "-m", "pip", "install", "--force-reinstall", spec, NULL);
		free(spec);
	} else if (!strcmp(w->name, "jax")) {
		snprintf(pkg, sizeof(pkg), "jax[cuda%d]", w->cuda_major > 0 ? w->cuda_major : 13);
		finding_fix_cmd(f, py, "-m", "pip", "install", "-U", pkg, NULL);
	} else {
		snprintf(pkg, sizeof(pkg), "nvidia-cuda-runtime-cu%d", w->cuda_major > 0 ? w->cuda_major : 12);
		finding_fix_cmd(f, py, "-m", "pip", "install", pkg, NULL);
	}
}

void rf_fix_torch(const struct fw_entry *w, const struct kb_torch *t, struct finding *f)
{
	char *spec = xasprintf("torch==%s.*", t->version);
	char *url = xasprintf("https://download.pytorch.org/whl/%s", t->variant);

	if (t->is_default == 1)
		finding_fix_cmd(f, rf_py(w), "-m", "pip", "install", spec, "--force-reinstall", NULL);
	else
		finding_fix_cmd(f, rf_py(w), "-m", "pip", "install", spec, "--index-url", url,
				"--force-reinstall", NULL);
	free(spec);
	free(url);
}

/* How a library was found, for people: the loader's step, or the framework's own search. */
const char *rf_source(const struct fw_lib *l)
{
	if (l->via != LDSO_NONE)
		return ldso_source_name(l->via);
	return l->source ? l->source : "?";
}

void rf_lib_evidence(struct finding *f, const struct fw_lib *l)
{
	if (l->path)
		finding_evidence(f, "%s -> %s (%s%s%s)%s%s", l->soname, l->realpath ? l->realpath : l->path,
				 rf_source(l), l->from ? " of " : "", l->from ? l->from : "",
				 l->version ? ", version " : "", l->version ? l->version : "");
	else
		finding_evidence(f, "%s: not found by the loader's search from %s", l->soname,
				 l->requester ? l->requester : "the interpreter");
}

/* Note a problem once: a reason already listed is not repeated, and the
 * summary's fix is the fix of the first problem of the worst status (the
 * one that blocks first), not a generic reinstall. */
void rf_acc_note(struct rf_acc *a, enum status st, enum cause_id cause, const char *why,
			const char *fix)
{
	if (st > a->worst) {
		a->worst = st;
		a->cause = cause;
		free(a->fix);
		a->fix = fix ? xstrdup(fix) : NULL;
	}
	if (why) {
		size_t n = strlen(why);

		for (const char *p = a->because.len ? a->because.s : NULL; p;) {
			if (!strncmp(p, why, n) && (p[n] == '\0' || p[n] == ';'))
				return;
			p = strstr(p, "; ");
			if (p)
				p += 2;
		}
		buf_printf(&a->because, "%s%s", a->because.len ? "; " : "", why);
	}
}

char *rf_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? xstrndup(p, slash > p ? (size_t)(slash - p) : 1) : xstrdup(p);
}

static size_t rf_max_entries(const struct fw_entry *w)
{
	size_t m = 0;

	for (size_t k = 0; w->arch_entries && k < w->narchs; k++)
		if (w->arch_entries[k] > m)
			m = w->arch_entries[k];
	return m;
}

/* The archs a fat binary has for a few kernels only (fatbin.h): shown, never counted as support. */
void rf_partial_evidence(struct finding *f, const struct fw_entry *w)
{
	struct buf b = BUF_INIT;

	if (!w->narchs_partial)
		return;
	for (size_t k = 0; k < w->narchs_partial; k++)
		buf_printf(&b, "%s%s (%zu)", k ? ", " : "", w->archs_partial[k],
			   w->arch_partial_entries ? w->arch_partial_entries[k] : 0);
	finding_evidence(f, "also has a few kernels for %s: fat binary entries, against %zu for the largest arch; not a full build",
			 b.s, rf_max_entries(w));
	buf_release(&b);
}

/* "source: tf-issue-90291 https://..." for each id of a ";" list. */
void rf_source_evidence(const struct rf *r, struct finding *f, const char *ids)
{
	while (ids && *ids) {
		size_t n = strcspn(ids, ";");
		char *one = xstrndup(ids, n);
		const char *url = kb_source_url(r->in->kb, one);

		finding_evidence(f, "source: %s%s%s", one, url ? " " : "", url ? url : "");
		free(one);
		ids += n + (ids[n] == ';');
	}
}
