/*
 * rules_fw_libs.c - the libraries a framework loads (rules_fw.h): a
 * library the loader does not find or finds elsewhere (cuda-runtime-missing,
 * cudnn-missing, nccl-missing, libcuda-missing, lib-dependency-missing,
 * lib-shadowed, lib-off-search-path, framework-cuda-mismatch), cuDNN
 * sub-libraries of another release or directory than the cuDNN front
 * library (cudnn-version-mismatch), and a cuDNN below its table row's
 * capability floor for a GPU (cudnn-no-kernel-for-arch).  Called by
 * rules_frameworks.c for each CUDA build.
 */
#include "rules/rules.h"
#include "rules/rules_fw.h"
#include "rules/rules_conda.h"

#include "core/buf.h"
#include "core/ctx.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum cause_id rf_missing_cause(const struct fw_lib *l)
{
	if (l->role == FW_ROLE_CUDNN || l->role == FW_ROLE_CUDNN_SUB)
		return CAUSE_CUDNN_MISSING;
	if (l->role == FW_ROLE_NCCL)
		return CAUSE_NCCL_MISSING;
	if (l->role == FW_ROLE_DRIVER)
		return CAUSE_LIBCUDA_MISSING;
	return CAUSE_CUDA_RUNTIME_MISSING;
}

void rf_missing(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	const struct fw_lib *cudart = rf_lib(w, FW_ROLE_CUDART);

	for (size_t i = 0; i < w->nlibs; i++) {
		const struct fw_lib *l = &w->libs[i];
		struct finding *f;
		char *id;
		/* a library the framework cannot do without is on the path its
		   work takes; an optional one is latent (severity.h) */
		enum reach reach = l->required ? REACH_WORK : REACH_LATENT;
		enum status st = l->required ? STATUS_FAIL : STATUS_WARN;

		if (l->role == FW_ROLE_DRIVER || (l->path && !l->missing_dep))
			continue;
		id = xasprintf("%s.%s", idbase, l->soname);
		if (!l->path && l->unreached) {
			char *dir = rf_dirname(l->unreached);

			f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_LIB_OFF_SEARCH_PATH, reach,
				       "%s %s needs %s: it is installed, but the loader's search does not reach it",
				       rf_pretty(w->name), w->version ? w->version : "", l->soname);
			free(id);
			finding_evidence(f, "%s is in this environment's nvidia wheel", l->unreached);
			finding_evidence(f, "%s: not found by the search from %s (its DT_RUNPATH does not list %s)",
					 l->soname, l->requester ? l->requester : "the framework", dir);
			finding_fix_cmd(f, "export", "LD_LIBRARY_PATH=", FIX_GLUE, dir, FIX_GLUE, FIX_SH,
					"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", NULL);
			free(dir);
			if (l->required) {
				char *why = xasprintf("%s is installed but not on the loader's search path",
						      l->soname);

				rf_acc_note(a, st, CAUSE_LIB_OFF_SEARCH_PATH, why, f->fix);
				free(why);
			}
			continue;
		}
		if (!l->path) {
			f = report_add(r->rep, LAYER_FRAMEWORKS, id, rf_missing_cause(l), reach,
				       "%s %s needs %s, which the loader cannot find", rf_pretty(w->name),
				       w->version ? w->version : "", l->soname);
		} else {
			f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_LIB_DEPENDENCY_MISSING, reach,
				       "%s for %s is found but cannot load: its dependency %s is missing",
				       l->soname, rf_pretty(w->name), l->missing_dep);
		}
		free(id);
		rf_lib_evidence(f, l);
		if (l->path && l->missing_dep)
			finding_evidence(f, "%s has DT_NEEDED %s, not found from there", l->path, l->missing_dep);
		if (w->nwheels == 0)
			finding_evidence(f, "no nvidia-* wheels in %s", w->site_dir);
		if (l->role == FW_ROLE_NCCL) {
			char pkg[40];

			snprintf(pkg, sizeof(pkg), "nvidia-nccl-cu%d", w->cuda_major > 0 ? w->cuda_major : 12);
			finding_fix_cmd(f, rf_py(w), "-m", "pip", "install", pkg, NULL);
		} else {
			rf_fix_libs(w, f);
		}
		if (l->required) {
			char *why = xasprintf("%s cannot be loaded", l->soname);

			rf_acc_note(a, st, l == cudart ? CAUSE_FRAMEWORK_CUDA_MISMATCH : rf_missing_cause(l), why,
				    f->fix);
			free(why);
		}
	}
}

/* "9.19.0" of "9.19.0.56": cuDNN releases are named by three parts. */
static char *rf_release3(const char *v)
{
	const char *p = v;

	for (int dots = 0; *p; p++)
		if (*p == '.' && ++dots == 3)
			break;
	return xstrndup(v, (size_t)(p - v));
}

/*
 * cuDNN's shim loads its sub-libraries through its own DT_RUNPATH $ORIGIN,
 * which LD_LIBRARY_PATH outranks: a directory on it with another cuDNN
 * gives the shim that release's sub-libraries.  One finding per framework
 * for all of them (on the H200, 7 sub-libraries from /usr/lib/x86_64-linux-gnu
 * made 7 findings per framework before): fail when the releases differ
 * (cuDNN refuses at its first call: "cuDNN version incompatibility"), warn
 * when the same release comes from another directory.
 */

/* Frees a list of words this file allocated. */
static void fw_free_words(struct fixwords *w)
{
	for (size_t k = 0; k < w->n; k++)
		free((char *)w->w[k]);
	fixwords_release(w);
}

/* The libraries layer's record of the cuDNN front library (its dynamic section). */
static const struct lib_copy *rf_shim_copy(const struct rf *r, const struct fw_lib *c)
{
	const struct libraries_inventory *libs = &r->in->inv->libs;
	const struct lib_copy *sc = c->realpath ? libraries_copy_by_realpath(libs, c->realpath) : NULL;

	for (size_t i = 0; !sc && c->path && i < libs->n; i++)
		if (libs->copies[i].path && !strcmp(libs->copies[i].path, c->path))
			sc = &libs->copies[i];
	return sc;
}

static void rf_cudnn_subs(struct rf *r, const struct fw_entry *w, const char *idbase,
			  const struct fw_lib *c, int id_taken, struct rf_acc *a)
{
	struct buf dirs = BUF_INIT, vers = BUF_INIT, id = BUF_INIT;
	struct fixwords grep = FIXWORDS_INIT;	/* the distinct directories, owned */
	const struct fw_lib *first = NULL;
	int differs = 0, llp = 1;
	char *mine;
	struct finding *f;

	for (size_t i = 0; i < w->nlibs; i++) {
		const struct fw_lib *l = &w->libs[i];
		char *dir, *rel;

		if (l->role != FW_ROLE_CUDNN_SUB || !l->path || !l->shadowed)
			continue;
		if (!first)
			first = l;
		/* a release is its first three parts: "9.5.1" (a file name) is
		 * "9.5.1.17" (the wheel's version) */
		if (l->version && l->shadowed_version) {
			char *x = rf_release3(l->version), *y = rf_release3(l->shadowed_version);

			differs |= version_cmp_str(x, y) != 0;
			free(x);
			free(y);
		}
		if (l->via != LDSO_LD_LIBRARY_PATH)
			llp = 0;
		dir = rf_dirname(l->path);
		if (!strstr(dirs.len ? dirs.s : "", dir)) {
			buf_printf(&dirs, "%s%s", dirs.len ? ", " : "", dir);
			fixwords_add(&grep, dir);
		} else {
			free(dir);
		}
		rel = l->version ? rf_release3(l->version) : xstrdup("of an unknown release");
		if (!strstr(vers.len ? vers.s : "", rel))
			buf_printf(&vers, "%s%s", vers.len ? " and " : "", rel);
		free(rel);
	}
	if (!first) {
		buf_release(&dirs);
		buf_release(&vers);
		fw_free_words(&grep);
		return;
	}
	mine = c->version ? rf_release3(c->version) : NULL;
	buf_printf(&id, "%s.cudnn", idbase);
	if (id_taken)
		buf_puts(&id, "_subs");	/* the version finding has .cudnn */
	f = report_add(r->rep, LAYER_FRAMEWORKS, id.s,
		       differs ? CAUSE_CUDNN_VERSION_MISMATCH : CAUSE_LIB_SHADOWED,
		       differs ? REACH_WORK : REACH_LATENT,
		       "%s %s's cuDNN %s shim would load sub-libraries of cuDNN %s from %s (%s)",
		       rf_pretty(w->name), w->version ? w->version : "", mine ? mine : "(unknown version)",
		       vers.s, dirs.s, llp ? "LD_LIBRARY_PATH" : rf_source(first));
	for (size_t i = 0; i < w->nlibs; i++) {
		const struct fw_lib *l = &w->libs[i];

		if (l->role != FW_ROLE_CUDNN_SUB || !l->path || !l->shadowed)
			continue;
		finding_evidence(f, "%s -> %s (%s), version %s; its own copy %s is %s", l->soname,
				 l->realpath ? l->realpath : l->path, rf_source(l),
				 l->version ? l->version : "unknown", l->shadowed,
				 l->shadowed_version ? l->shadowed_version : "of an unknown version");
	}
	{
		/* why the other copy wins, from the front library's own dynamic
		 * section (read by the libraries layer), never assumed: DT_RUNPATH
		 * comes after LD_LIBRARY_PATH, DT_RPATH before it */
		const struct lib_copy *sc = rf_shim_copy(r, c);

		if (sc && sc->runpath && !sc->rpath)
			finding_evidence(f, "%s has DT_RUNPATH '%s' and no DT_RPATH, so LD_LIBRARY_PATH is searched "
					 "before the directories it names", c->path, sc->runpath);
		else if (sc && sc->rpath)
			finding_evidence(f, "%s has DT_RPATH '%s'%s%s: the loader searched it first, and the "
					 "sub-libraries were not there", c->path, sc->rpath,
					 sc->runpath ? " and DT_RUNPATH " : "", sc->runpath ? sc->runpath : "");
		else
			finding_evidence(f, "%s: its dynamic section was not read (no DT_RPATH or DT_RUNPATH known), "
					 "so the loader's default search order applies", c->path);
	}
	if (differs)
		finding_evidence(f, "mixed cuDNN releases fail at the first cuDNN call (\"cuDNN version incompatibility\")");
	if (llp) {
		struct fixwords cmd = FIXWORDS_INIT;

		fixwords_add(&cmd, "export");
		fixwords_add(&cmd, "LD_LIBRARY_PATH=");
		fixwords_add(&cmd, FIX_GLUE);
		fixwords_add(&cmd, FIX_SH);
		fixwords_add(&cmd, "$(printf %s \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -vxF");
		for (size_t k = 0; k < grep.n; k++) {
			fixwords_add(&cmd, "-e");
			fixwords_add(&cmd, grep.w[k]);
		}
		fixwords_add(&cmd, FIX_GLUE);
		fixwords_add(&cmd, FIX_SH);
		fixwords_add(&cmd, " | paste -sd:)");
		finding_fix_argv(f, cmd.w);
		fixwords_release(&cmd);
	} else {
		char pkg[40];

		snprintf(pkg, sizeof(pkg), "nvidia-cudnn-cu%d", w->cuda_major > 0 ? w->cuda_major : 12);
		finding_fix_cmd(f, rf_py(w), "-m", "pip", "install", "--force-reinstall", pkg, NULL);
		finding_fix_note(f, "one cuDNN; or remove the other cuDNN from the directories above");
	}
	rf_acc_note(a, differs ? STATUS_FAIL : STATUS_WARN,
		    differs ? CAUSE_CUDNN_VERSION_MISMATCH : CAUSE_LIB_SHADOWED,
		    differs ? "cuDNN's sub-libraries come from another release" : NULL, f->fix);
	free(mine);
	buf_release(&dirs);
	buf_release(&vers);
	fw_free_words(&grep);
	buf_release(&id);
}

void rf_cudnn(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	const struct fw_lib *c = rf_lib(w, FW_ROLE_CUDNN);
	struct kb_verdict v;
	int too_old = 0;

	if (!c || !c->path)
		return;
	if (w->cudnn_required && c->version) {
		memset(&v, 0, sizeof(v));
		if (kb_cudnn_satisfies(c->version, w->cudnn_required, &v) == 0 || v.ok == 0) {
			char *id = xasprintf("%s.cudnn", idbase);
			struct finding *f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_CUDNN_VERSION_MISMATCH,
						       REACH_WORK,
						       "%s %s needs cuDNN %s or newer of the same major; the loader gives %s",
						       rf_pretty(w->name), w->version ? w->version : "",
						       w->cudnn_required, c->version);
			free(id);
			rf_lib_evidence(f, c);
			finding_evidence(f, "required cuDNN %s: %s", w->cudnn_required,
					 w->cudnn_required_source ? w->cudnn_required_source : "?");
			if (v.why[0])
				finding_evidence(f, "%s", v.why);
			/* conda installed the copy loaded: a conda fix (rules_conda.h) */
			if (!rules_conda_fix_upgrade(r->in, c->realpath, w->cudnn_required, f))
				rf_fix_libs(w, f);
			rf_acc_note(a, STATUS_FAIL, CAUSE_CUDNN_VERSION_MISMATCH, "its cuDNN is too old", f->fix);
			too_old = 1;
		}
	}
	rf_cudnn_subs(r, w, idbase, c, too_old, a);
}

/*
 * The cuDNN table's capability floors (cudnn.tsv, as matrix and plan apply
 * them): cuDNN 9.11 and later ship no code for compute capability < 7.5, so
 * the cuDNN this framework loads fails at its first convolution on a Pascal
 * or Volta GPU although every library resolves.  The fix pins the newest
 * pip cuDNN of the framework's CUDA major that still has the code
 * (facts.tsv pip.cudnn_pre_turing.*), when there is one.
 */
void rf_cudnn_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	const struct fw_lib *c = rf_lib(w, FW_ROLE_CUDNN);
	int cu = w->cuda_major > 0 ? w->cuda_major : 12;
	const struct kb_cudnn *line;
	char pkg[32];
	const char *pin;

	if (!c || !c->path || !c->version || !r->in->kb)
		return;
	line = kb_cudnn_line(r->in->kb, c->version);
	snprintf(pkg, sizeof(pkg), "nvidia-cudnn-cu%d", cu);
	pin = kb_pip_cudnn_pre_turing(r->in->kb, pkg);
	/* a pin below what the framework needs is no fix */
	if (pin && w->cudnn_required) {
		struct kb_verdict need;

		memset(&need, 0, sizeof(need));
		if (kb_cudnn_satisfies(pin, w->cudnn_required, &need) == 0 || need.ok == 0)
			pin = NULL;
	}
	for (size_t g = 0; g < r->ngpus; g++) {
		const struct rf_gpu *gpu = &r->gpus[g];
		struct kb_verdict v;
		struct finding *f;
		char *id;

		/* the floor only: a GPU newer than a line's stated ceiling may still
		 * run it through PTX, and matrix's answer there is not "no code" */
		if (gpu->cc_major < 0 || !line || line->cc_min < 0 ||
		    gpu->cc_major * 10 + gpu->cc_minor >= line->cc_min)
			continue;
		memset(&v, 0, sizeof(v));
		if (kb_cudnn_runs_on(r->in->kb, c->version, gpu->cc_major, gpu->cc_minor, &v) != 0)
			continue;
		id = xasprintf("%s.cudnn-arch%zu", idbase, g);
		f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH, REACH_WORK,
			       "%s %s would load cuDNN %s, which has no code for GPU %zu (%s, sm_%d%d)",
			       rf_pretty(w->name), w->version ? w->version : "", c->version, g,
			       gpu->name ? gpu->name : "?", gpu->cc_major, gpu->cc_minor);
		free(id);
		rf_lib_evidence(f, c);
		if (c->wheel)
			finding_evidence(f, "from the wheel %s", c->wheel);
		finding_evidence(f, "GPU %zu: %s, compute capability %d.%d", g, gpu->name ? gpu->name : "?",
				 gpu->cc_major, gpu->cc_minor);
		finding_evidence(f, "%s", v.why);
		rf_source_evidence(r, f, v.source);
		if (pin && kb_cudnn_runs_on(r->in->kb, pin, gpu->cc_major, gpu->cc_minor, NULL) == 1) {
			char *req = xasprintf("%s==%s", pkg, pin);

			finding_fix_cmd(f, rf_py(w), "-m", "pip", "install", req, NULL);
			if (!c->wheel || strncmp(c->wheel, pkg, strlen(pkg)))
				finding_fix_note(f, "and take the cuDNN the evidence names off the loader's path, "
						 "or the framework keeps loading it");
			free(req);
		} else {
			finding_fix_note(f, "install cuDNN 9.10 or older built for CUDA %d (no newer release has code "
					 "for sm_%d%d), or a %s build for a CUDA major that has one",
					 cu, gpu->cc_major, gpu->cc_minor, rf_pretty(w->name));
		}
		rf_acc_note(a, STATUS_FAIL, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH,
			    "its cuDNN has no code for this GPU's architecture", f->fix);
	}
}
