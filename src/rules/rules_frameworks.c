/*
 * rules_frameworks.c - verdicts for the frameworks layer: for each framework
 * in each Python environment, one plain summary ("PyTorch 2.11.0+cu130 in
 * /opt/venv/... will use GPU 0 (NVIDIA H200, sm_90) with CUDA 13.0 and cuDNN
 * 9.19.0 from ...") and a finding per problem, with its cause id:
 * framework-cpu-only, framework-cuda-mismatch, cuda-runtime-missing,
 * cudnn-missing, cudnn-version-mismatch, lib-shadowed, lib-dependency-missing,
 * nccl-missing, framework-driver-too-old, gpu-arch-unsupported,
 * framework-python-unsupported and, with --live, framework-live-disagrees.
 * The combination rules that matrix and plan apply hold here too
 * (knowledge/kb.h): a build that reaches a GPU only through PTX needs a
 * driver that can JIT that toolkit's PTX (ptx-too-new-for-driver); a known
 * failure of the release on the GPU's architecture (failures.tsv) is
 * gpu-arch-unsupported; a cuDNN below its table row's capability floor for
 * a GPU (cuDNN 9.11+ on compute capability < 7.5) is cudnn-no-kernel-for-arch;
 * a GPU the driver does not know (the driver layer's
 * driver-too-old-for-gpu / driver-too-new-for-gpu) leaves nothing to run on.
 */
#include "rules/rules.h"
#include "rules/rules_conda.h"
#include "rules/fw_verdict.h"

#include "core/buf.h"
#include "core/shquote.h"
#include "core/ctx.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The GPUs the frameworks would see: the CUDA child's devices, else the PCI list + KB. */
struct rf_gpu {
	const char *name;
	int cc_major, cc_minor;
	int datacenter;
	const struct kb_gpu *kbg;	/* its row by PCI id, or NULL */
};

struct rf {
	const struct rules_in *in;
	struct report *rep;
	struct rf_gpu gpus[16];
	size_t ngpus;
	const char *driver;		/* driver version, or NULL */
	const char *driver_from;
};

static const char *rf_pretty(const char *name)
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

static void rf_collect(struct rf *r)
{
	const struct inventory *inv = r->in->inv;

	for (size_t i = 0; i < inv->cuda.ndevices && r->ngpus < 16; i++) {
		const struct cuda_device *d = &inv->cuda.devices[i];

		r->gpus[r->ngpus].name = d->name;
		r->gpus[r->ngpus].cc_major = d->cc_major;
		r->gpus[r->ngpus].cc_minor = d->cc_minor;
		r->gpus[r->ngpus].datacenter = -1;
		r->ngpus++;
	}
	for (size_t i = 0; i < inv->hw.ngpus; i++) {
		const struct hw_pci_fn *p = &inv->hw.gpus[i];
		const struct kb_gpu *g = r->in->kb && p->vendor >= 0 && p->device >= 0
			? kb_gpu_by_pci(r->in->kb, (unsigned)p->vendor, (unsigned)p->device) : NULL;

		if (i < r->ngpus) {
			/* same order as CUDA's (PCI bus order by default): borrow the class */
			if (g)
				r->gpus[i].datacenter = g->datacenter;
			r->gpus[i].kbg = g;
			continue;
		}
		if (r->ngpus >= 16)
			break;
		r->gpus[r->ngpus].name = g ? g->name : NULL;
		r->gpus[r->ngpus].cc_major = g ? g->cc_major : -1;
		r->gpus[r->ngpus].cc_minor = g ? g->cc_minor : -1;
		r->gpus[r->ngpus].datacenter = g ? g->datacenter : -1;
		r->gpus[r->ngpus].kbg = g;
		r->ngpus++;
	}
	/* the driver layer's one reading, with its precedence (driver.h) */
	r->driver = inv->driver.version;
	r->driver_from = inv->driver.version_source;
}

/* "opt_venv" from "/opt/venv": a stable id part. */
static char *rf_env_id(const struct fw_entry *w)
{
	struct buf b = BUF_INIT;
	const char *s = w->env_prefix;

	while (*s == '/')
		s++;
	for (; *s; s++)
		buf_addc(&b, (*s == '/' || *s == '.' || *s == ' ') ? '_' : *s);
	if (!b.len)
		buf_puts(&b, "root");
	return buf_detach(&b);
}

static const struct fw_lib *rf_lib(const struct fw_entry *w, enum fw_role role)
{
	for (size_t i = 0; i < w->nlibs; i++)
		if (w->libs[i].role == role)
			return &w->libs[i];
	return NULL;
}

/* The environment's interpreter as one shell word (a ring buffer: see shq). */
static const char *rf_py(const struct fw_entry *w)
{
	return w->python ? shq(w->python) : "python3";
}

/* The pip command that gives this framework its CUDA build. */
static void rf_fix_gpu_build(const struct rf *r, const struct fw_entry *w, struct buf *fix)
{
	const char *py = rf_py(w);

	if (!strcmp(w->name, "tensorflow")) {
		if (w->dist && strcmp(w->dist, "tensorflow") != 0)
			buf_printf(fix, "%s -m pip uninstall -y %s && ", py, shq(w->dist));
		buf_printf(fix, "%s -m pip install 'tensorflow[and-cuda]'", py);
	} else if (!strcmp(w->name, "torch")) {
		const struct kb_torch *t = r->in->kb && w->version
			? kb_torch_release(r->in->kb, w->version, NULL) : NULL;
		char cmd[300];

		if (t) {
			kb_torch_install(t, cmd, sizeof(cmd));
			buf_printf(fix, "%s -m %s --force-reinstall", py, cmd);
		} else {
			buf_printf(fix, "%s -m pip install --force-reinstall torch", py);
		}
	} else if (!strcmp(w->name, "jax")) {
		buf_printf(fix, "%s -m pip install -U 'jax[cuda13]'   # or 'jax[cuda12]' with a driver older than 580", py);
	} else {
		buf_printf(fix, "%s -m pip install cupy-cuda13x   # the package for your CUDA major", py);
	}
}

static void rf_fix_libs(const struct fw_entry *w, struct buf *fix)
{
	const char *py = rf_py(w);

	if (!strcmp(w->name, "tensorflow") && w->version &&
	    version_cmp_str(w->version, "2.14") >= 0) {
		char *spec = xasprintf("tensorflow[and-cuda]==%s", w->version);

		buf_printf(fix, "%s -m pip install %s", py, shq(spec));
		free(spec);
	} else if (!strcmp(w->name, "tensorflow"))
		buf_printf(fix, "install the CUDA %s libraries and cuDNN %s (TensorFlow %s predates the [and-cuda] extra)",
			   w->cuda_build ? shq(w->cuda_build) : "?", w->cudnn_build ? shq(w->cudnn_build) : "?",
			   w->version ? shq(w->version) : "");
	else if (!strcmp(w->name, "torch")) {
		char *spec = xasprintf("torch==%s", w->version ? w->version : "");

		buf_printf(fix, "%s -m pip install --force-reinstall %s", py, shq(spec));
		free(spec);
	} else if (!strcmp(w->name, "jax"))
		buf_printf(fix, "%s -m pip install -U 'jax[cuda%d]'", py, w->cuda_major > 0 ? w->cuda_major : 13);
	else
		buf_printf(fix, "%s -m pip install 'nvidia-cuda-runtime-cu%d'", py,
			   w->cuda_major > 0 ? w->cuda_major : 12);
}

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

/* How a library was found, for people: the loader's step, or the framework's own search. */
static const char *rf_source(const struct fw_lib *l)
{
	if (l->via != LDSO_NONE)
		return ldso_source_name(l->via);
	return l->source ? l->source : "?";
}

static void rf_lib_evidence(struct finding *f, const struct fw_lib *l)
{
	if (l->path)
		finding_evidence(f, "%s -> %s (%s%s%s)%s%s", l->soname, l->realpath ? l->realpath : l->path,
				 rf_source(l), l->from ? " of " : "", l->from ? l->from : "",
				 l->version ? ", version " : "", l->version ? l->version : "");
	else
		finding_evidence(f, "%s: not found by the loader's search from %s", l->soname,
				 l->requester ? l->requester : "the interpreter");
}

static enum status rf_judge(struct rf *r, const struct fw_entry *w);

void rules_frameworks(const struct rules_in *in, struct report *rep)
{
	const struct inventory *inv = in->inv;
	struct rf r;
	size_t ngpu_fw = 0, ncpu = 0, nbroken = 0, nunjudged = 0;
	char unjudged[48];

	memset(&r, 0, sizeof(r));
	r.in = in;
	r.rep = rep;
	rf_collect(&r);
	/* A site directory this user cannot list hides its frameworks: they
	 * are unreadable, not "not installed". */
	for (size_t i = 0; i < inv->fw.nunreadable; i++) {
		const struct fw_unreadable_site *u = &inv->fw.unreadable[i];
		struct finding *f = report_add(rep, LAYER_FRAMEWORKS, "frameworks.unreadable-site",
					       CAUSE_LIB_UNREADABLE, REACH_WORK,
					       "%s cannot be listed by uid %ld: the frameworks installed there "
					       "are unknown, and cannot be imported by this user",
					       u->dir, (long)inv->devices.euid);

		finding_evidence(f, "opendir(%s): %s", u->dir, u->why);
		finding_fix(f, "sudo chmod a+rx %s  (or run as the environment's owner)", shq(u->dir));
	}
	if (inv->fw.n == 0 && inv->fw.nunreadable) {
		report_set_summary(rep, LAYER_FRAMEWORKS, "no framework seen: %zu site director%s cannot be read",
				   inv->fw.nunreadable, inv->fw.nunreadable == 1 ? "y" : "ies");
		return;
	}
	if (inv->fw.n == 0) {
		struct finding *f = report_skip(rep, LAYER_FRAMEWORKS, "frameworks.none",
					       "no TensorFlow, PyTorch, JAX or CuPy is installed in the %zu Python environment%s found",
					       inv->fw.nenvs, inv->fw.nenvs == 1 ? "" : "s");

		for (size_t i = 0; i < inv->pyenvs.n; i++)
			finding_evidence(f, "%s environment %s (%zu site director%s)", inv->pyenvs.envs[i].kind,
					 inv->pyenvs.envs[i].prefix, inv->pyenvs.envs[i].nsite,
					 inv->pyenvs.envs[i].nsite == 1 ? "y" : "ies");
		if (inv->fw.error)
			finding_evidence(f, "%s", inv->fw.error);
		report_set_summary(rep, LAYER_FRAMEWORKS, "no framework installed (%zu Python environments looked at)",
				   inv->fw.nenvs);
		return;
	}
	for (size_t i = 0; i < inv->fw.n; i++) {
		const struct fw_entry *w = &inv->fw.fws[i];

		enum status st = rf_judge(&r, w);
		enum fw_prediction pred = fw_predict(w, NULL);

		/* "broken": will fail, whether at import or at its first GPU call
		 * (the H200's mixed cuDNN: every library resolves, cuDNN refuses) */
		if (pred == FW_PREDICT_BROKEN || (st >= STATUS_FAIL && pred == FW_PREDICT_GPU))
			nbroken++;
		else if (pred == FW_PREDICT_GPU)
			ngpu_fw++;
		else if (pred == FW_PREDICT_CPU || w->is_cuda_build == 0)
			ncpu++;
		else
			nunjudged++;	/* "could not be judged" is not "CPU only" */
	}
	snprintf(unjudged, sizeof(unjudged), ", %zu not judged", nunjudged);
	report_set_summary(rep, LAYER_FRAMEWORKS,
			   "%zu framework install%s in %zu environment%s: %zu can use the GPU, %zu CPU only, %zu broken%s",
			   inv->fw.n, inv->fw.n == 1 ? "" : "s", inv->fw.nenvs, inv->fw.nenvs == 1 ? "" : "s",
			   ngpu_fw, ncpu, nbroken, nunjudged ? unjudged : "");
}

/* ---- one framework ---- */

struct rf_acc {
	enum status worst;
	enum cause_id cause;	/* of the worst problem, for the summary finding */
	struct buf because;	/* distinct reasons, for the summary line */
	char *fix;		/* the fix of the first problem of the worst status */
};

/* Note a problem once: a reason already listed is not repeated, and the
 * summary's fix is the fix of the first problem of the worst status (the
 * one that blocks first), not a generic reinstall. */
static void rf_acc_note(struct rf_acc *a, enum status st, enum cause_id cause, const char *why,
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

static char *rf_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? xstrndup(p, slash > p ? (size_t)(slash - p) : 1) : xstrdup(p);
}

/*
 * A search path with each entry once, in its first position (the only one
 * the loader can act on).  TensorFlow 2.21's libtensorflow_framework.so.2
 * carries a 12 KB DT_RUNPATH of 16 distinct entries repeated over and over.
 */
static void rf_pathlist_distinct(const char *list, struct buf *out)
{
	size_t total = 0, kept = 0;

	if (!list)
		return;
	for (const char *p = list;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int seen = 0;

		total++;
		for (const char *q = out->len ? out->s : NULL; q && !seen;) {
			const char *qe = strchr(q, ':');
			size_t qn = qe ? (size_t)(qe - q) : strlen(q);

			seen = qn == n && !strncmp(q, p, n);
			q = qe ? qe + 1 : NULL;
		}
		if (!seen) {
			if (kept++)
				buf_addc(out, ':');
			buf_add(out, p, n);
		}
		if (!e)
			break;
		p = e;
	}
	if (kept < total)
		buf_printf(out, " (%zu entries, %zu distinct)", total, kept);
}

static void rf_missing(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	const struct fw_lib *cudart = rf_lib(w, FW_ROLE_CUDART);

	for (size_t i = 0; i < w->nlibs; i++) {
		const struct fw_lib *l = &w->libs[i];
		struct finding *f;
		struct buf fix = BUF_INIT;
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
			buf_printf(&fix, "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", shq(dir));
			finding_fix(f, "%s", fix.s);
			free(dir);
			if (l->required) {
				char *why = xasprintf("%s is installed but not on the loader's search path",
						      l->soname);

				rf_acc_note(a, st, CAUSE_LIB_OFF_SEARCH_PATH, why, fix.s);
				free(why);
			}
			buf_release(&fix);
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
		if (l->role == FW_ROLE_NCCL)
			buf_printf(&fix, "%s -m pip install nvidia-nccl-cu%d", rf_py(w), w->cuda_major > 0 ? w->cuda_major : 12);
		else
			rf_fix_libs(w, &fix);
		finding_fix(f, "%s", fix.s);
		if (l->required) {
			char *why = xasprintf("%s cannot be loaded", l->soname);

			rf_acc_note(a, st, l == cudart ? CAUSE_FRAMEWORK_CUDA_MISMATCH : rf_missing_cause(l), why,
				    fix.s);
			free(why);
		}
		buf_release(&fix);
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
	struct buf dirs = BUF_INIT, vers = BUF_INIT, grep = BUF_INIT, fix = BUF_INIT, id = BUF_INIT;
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
			buf_printf(&grep, " -e %s", shq(dir));
		}
		free(dir);
		rel = l->version ? rf_release3(l->version) : xstrdup("of an unknown release");
		if (!strstr(vers.len ? vers.s : "", rel))
			buf_printf(&vers, "%s%s", vers.len ? " and " : "", rel);
		free(rel);
	}
	if (!first) {
		buf_release(&dirs);
		buf_release(&vers);
		buf_release(&grep);
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
	if (llp)
		buf_printf(&fix, "export LD_LIBRARY_PATH=$(printf %%s \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -vxF%s | paste -sd:)",
			   grep.s);
	else
		buf_printf(&fix, "remove the other cuDNN from %s, or reinstall one cuDNN: %s -m pip install --force-reinstall nvidia-cudnn-cu%d",
			   shq(dirs.s), rf_py(w), w->cuda_major > 0 ? w->cuda_major : 12);
	finding_fix(f, "%s", fix.s);
	rf_acc_note(a, differs ? STATUS_FAIL : STATUS_WARN,
		    differs ? CAUSE_CUDNN_VERSION_MISMATCH : CAUSE_LIB_SHADOWED,
		    differs ? "cuDNN's sub-libraries come from another release" : NULL, fix.s);
	free(mine);
	buf_release(&dirs);
	buf_release(&vers);
	buf_release(&grep);
	buf_release(&fix);
	buf_release(&id);
}

static void rf_cudnn(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
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
			struct buf fix = BUF_INIT;

			free(id);
			rf_lib_evidence(f, c);
			finding_evidence(f, "required cuDNN %s: %s", w->cudnn_required,
					 w->cudnn_required_source ? w->cudnn_required_source : "?");
			if (v.why[0])
				finding_evidence(f, "%s", v.why);
			/* conda installed the copy loaded: a conda fix (rules_conda.h) */
			if (!rules_conda_fix_upgrade(r->in, c->realpath, w->cudnn_required, &fix))
				rf_fix_libs(w, &fix);
			finding_fix(f, "%s", fix.s);
			rf_acc_note(a, STATUS_FAIL, CAUSE_CUDNN_VERSION_MISMATCH, "its cuDNN is too old", fix.s);
			too_old = 1;
			buf_release(&fix);
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
static void rf_source_evidence(const struct rf *r, struct finding *f, const char *ids);

static void rf_cudnn_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
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
		struct buf fix = BUF_INIT;
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

			buf_printf(&fix, "%s -m pip install %s", rf_py(w), shq(req));
			if (!c->wheel || strncmp(c->wheel, pkg, strlen(pkg))) {
				char *dir = rf_dirname(c->realpath ? c->realpath : c->path);

				buf_printf(&fix, "  (and take the cuDNN in %s off the loader's path, or the framework keeps loading it)",
					   shq(dir));
				free(dir);
			}
			free(req);
		} else {
			buf_printf(&fix, "install cuDNN 9.10 or older built for CUDA %d (no newer release has code for sm_%d%d), or a %s build for a CUDA major that has one",
				   cu, gpu->cc_major, gpu->cc_minor, rf_pretty(w->name));
		}
		finding_fix(f, "%s", fix.s);
		rf_acc_note(a, STATUS_FAIL, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH,
			    "its cuDNN has no code for this GPU's architecture", fix.s);
		buf_release(&fix);
	}
}

static void rf_driver(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	struct kb_verdict v;
	int dc = r->ngpus ? r->gpus[0].datacenter : -1;

	if (!r->driver || w->cuda_version <= 0 || !r->in->kb)
		return;
	memset(&v, 0, sizeof(v));
	if (kb_driver_runs_cuda(r->in->kb, r->driver, w->cuda_version, dc, &v) == 0 && v.ok == 0) {
		char *id = xasprintf("%s.driver", idbase);
		/* Under WSL the driver is Windows': only Windows can update it. */
		int wsl = platform_is_wsl(&r->in->inv->platform);
		enum cause_id cause = wsl ? CAUSE_WSL_WINDOWS_DRIVER_TOO_OLD : CAUSE_FRAMEWORK_DRIVER_TOO_OLD;
		struct finding *f = report_add(r->rep, LAYER_FRAMEWORKS, id, cause, REACH_WORK,
					       "%sdriver %s is too old for %s %s, built with CUDA %s",
					       wsl ? "the Windows " : "",
					       r->driver, rf_pretty(w->name), w->version ? w->version : "",
					       w->cuda_build ? w->cuda_build : "?");
		const char *floor = kb_cuda_compat_floor(r->in->kb, w->cuda_version / 1000);

		free(id);
		finding_evidence(f, "driver %s (%s)", r->driver, r->driver_from ? r->driver_from : "?");
		finding_evidence(f, "CUDA build %s from %s", w->cuda_build ? w->cuda_build : "?",
				 w->build_file ? w->build_file : "the wheel");
		if (v.why[0])
			finding_evidence(f, "%s", v.why);
		{
			char *fix = wsl
				? xasprintf("update the NVIDIA driver on Windows (its CUDA %d.x floor is %s on Linux; "
					    "nothing installed inside WSL replaces it), then wsl --shutdown; or install a %s "
					    "build for an older CUDA", w->cuda_version / 1000,
					    floor ? floor : "the CUDA major's floor", rf_pretty(w->name))
				: xasprintf("upgrade the NVIDIA driver to %s or newer, or install a %s build for an older CUDA",
					    floor ? floor : "the CUDA major's floor", rf_pretty(w->name));

			finding_fix(f, "%s", fix);
			rf_acc_note(a, STATUS_FAIL, cause, "the driver is too old for its CUDA",
				    fix);
			free(fix);
		}
	}
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
static void rf_partial_evidence(struct finding *f, const struct fw_entry *w)
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

/* Which torch variant of the same release runs on cc (for the fix). */
static const struct kb_torch *rf_torch_variant_for(const struct kb *kb, const char *version,
						   int ccmaj, int ccmin)
{
	for (size_t i = 0; kb && i < kb_torch_count(kb); i++) {
		const struct kb_torch *t = kb_torch_at(kb, i);
		char *copy, *save = NULL;
		const char *archs[32];
		size_t n = 0;
		struct kb_verdict v;
		int ok;

		if (!t->archs || !version || version_cmp_str(t->version, version) != 0)
			continue;
		{
			struct version a, b;

			if (version_parse(t->version, &a) < 0 || version_parse(version, &b) < 0 ||
			    a.part[0] != b.part[0] || a.part[1] != b.part[1])
				continue;
		}
		copy = xstrdup(t->archs);
		for (char *s = strtok_r(copy, ";", &save); s && n < 32; s = strtok_r(NULL, ";", &save))
			archs[n++] = s;
		memset(&v, 0, sizeof(v));
		ok = kb_arch_runs(archs, n, ccmaj, ccmin, &v) == 0 && v.ok == 1;
		free(copy);
		if (ok)
			return t;
	}
	return NULL;
}

/* "sm_60 sm_70 compute_90": the build's arch list, for evidence. */
static void rf_archs_text(const struct fw_entry *w, struct buf *b)
{
	for (size_t k = 0; k < w->narchs; k++)
		buf_printf(b, "%s%s", k ? " " : "", w->archs[k]);
}

/* "source: tf-issue-90291 https://..." for each id of a ";" list. */
static void rf_source_evidence(const struct rf *r, struct finding *f, const char *ids)
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

/*
 * The PTX JIT rule: a build with no SASS for GPU g reaches it only through
 * PTX, which the driver compiles at the first launch -- only PTX of a
 * toolkit no newer than the driver's own CUDA.  Minor-version compatibility
 * (which lets the same build's SASS run on an older driver) does not cover
 * PTX.  The PTX comes from the toolkit the build names (its CUDA version).
 */
static void rf_ptx_jit(struct rf *r, const struct fw_entry *w, const char *idbase, size_t g,
		       const char *how, struct rf_acc *a)
{
	const struct rf_gpu *gpu = &r->gpus[g];
	const char *floor;
	struct kb_verdict pv;
	struct buf have = BUF_INIT;
	struct finding *f;
	char *id;

	if (!r->driver || !r->in->kb || w->cuda_version <= 0)
		return;
	memset(&pv, 0, sizeof(pv));
	if (kb_ptx_jit_runs(r->in->kb, r->driver, w->cuda_version, &pv) != 0)
		return;
	floor = kb_cuda_min_driver(r->in->kb, w->cuda_version);
	id = xasprintf("%s.ptx%zu", idbase, g);
	f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_PTX_TOO_NEW_FOR_DRIVER, REACH_WORK,
		       "%s %s reaches GPU %zu (%s, sm_%d%d) only through PTX from CUDA %s, which driver %s cannot JIT-compile",
		       rf_pretty(w->name), w->version ? w->version : "", g, gpu->name ? gpu->name : "?",
		       gpu->cc_major, gpu->cc_minor, w->cuda_build ? w->cuda_build : "?", r->driver);
	free(id);
	rf_archs_text(w, &have);
	finding_evidence(f, "built for: %s (%s of %s)", have.s, w->archs_source ? w->archs_source : "?",
			 w->archs_from ? w->archs_from : "?");
	finding_evidence(f, "%s", how);
	finding_evidence(f, "the PTX comes from CUDA %s (%s)", w->cuda_build ? w->cuda_build : "?",
			 w->build_file ? w->build_file : "the build's CUDA version");
	finding_evidence(f, "driver %s (%s)", r->driver, r->driver_from ? r->driver_from : "?");
	finding_evidence(f, "%s", pv.why);
	rf_source_evidence(r, f, pv.source);
	finding_fix(f, "upgrade the NVIDIA driver%s to %s or newer (CUDA %d.%d's minimum), or install a %s build with SASS for sm_%d%d",
		    platform_driver_where(&r->in->inv->platform), floor ? floor : "the toolkit's minimum", w->cuda_version / 1000, w->cuda_version % 1000 / 10,
		    rf_pretty(w->name), gpu->cc_major, gpu->cc_minor);
	rf_acc_note(a, STATUS_FAIL, CAUSE_PTX_TOO_NEW_FOR_DRIVER, "the driver cannot JIT-compile its PTX for this GPU",
		    f->fix);
	buf_release(&have);
}

/*
 * A failure reported for this release on this GPU's architecture
 * (failures.tsv), although the build's arch list alone would say it runs
 * (TensorFlow 2.16..2.21 on Blackwell through compute_90 PTX).  A GPU the
 * arch list already rules out has its finding from rf_arch.
 */
static void rf_known_failures(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	for (size_t g = 0; g < r->ngpus; g++) {
		const struct rf_gpu *gpu = &r->gpus[g];
		const struct kb_failure *kf = kb_known_failure(r->in->kb, w->name, w->version, gpu->cc_major,
							       gpu->cc_minor);
		struct buf have = BUF_INIT;
		struct finding *f;
		char *id;

		if (!kf || (w->narchs && kb_arch_runs((const char *const *)w->archs, w->narchs, gpu->cc_major,
						       gpu->cc_minor, NULL) == 0))
			continue;
		id = xasprintf("%s.known-failure%zu", idbase, g);
		f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_GPU_ARCH_UNSUPPORTED, REACH_WORK,
			       "%s %s is known to fail on GPU %zu (%s, sm_%d%d)", rf_pretty(w->name),
			       w->version ? w->version : "", g, gpu->name ? gpu->name : "?", gpu->cc_major,
			       gpu->cc_minor);
		free(id);
		finding_evidence(f, "known failure of %s %s..%s on compute capability %d.%d..%d.%d: %s",
				 rf_pretty(w->name), kf->from, kf->to, kf->cc_min / 10, kf->cc_min % 10,
				 kf->cc_max / 10, kf->cc_max % 10, kf->what);
		rf_archs_text(w, &have);
		if (have.len)
			finding_evidence(f, "built for: %s (%s of %s)", have.s, w->archs_source ? w->archs_source : "?",
					 w->archs_from ? w->archs_from : "?");
		rf_source_evidence(r, f, kf->source);
		finding_fix(f, "install a %s release outside %s..%s that is built for sm_%d%d (gpudoctor matrix lists them)",
			    rf_pretty(w->name), kf->from, kf->to, gpu->cc_major, gpu->cc_minor);
		rf_acc_note(a, STATUS_FAIL, CAUSE_GPU_ARCH_UNSUPPORTED, "it is known to fail on this GPU's architecture",
			    f->fix);
		buf_release(&have);
	}
}

/*
 * The driver layer reports a GPU the driver does not know
 * (driver-too-old-for-gpu, driver-too-new-for-gpu); the verdict here
 * follows it: no framework runs on a GPU without a driver.
 */
static void rf_driver_knows(struct rf *r, struct rf_acc *a)
{
	for (size_t g = 0; g < r->ngpus; g++) {
		const struct rf_gpu *gpu = &r->gpus[g];
		const struct kb_arch *ka;
		struct kb_verdict v;
		struct version dv;
		int too_new;
		char *fix;

		if (!gpu->kbg || !r->driver || !r->in->kb)
			continue;
		memset(&v, 0, sizeof(v));
		if (kb_driver_knows_gpu(r->in->kb, r->driver, gpu->kbg, -1, -1, &v) != 0)
			continue;
		ka = kb_arch_info(r->in->kb, gpu->kbg->cc_major, gpu->kbg->cc_minor);
		too_new = ka && ka->last_branch >= 0 && version_parse(r->driver, &dv) == 0 &&
			  dv.part[0] > ka->last_branch;
		if (too_new)
			fix = xasprintf("install the R%d driver branch, the last for %s", ka->last_branch,
					ka->arch ? ka->arch : "this architecture");
		else
			fix = xasprintf("install NVIDIA driver %s or newer (the first that knows this GPU)",
					kb_gpu_first_driver(r->in->kb, gpu->kbg) ? kb_gpu_first_driver(r->in->kb, gpu->kbg)
					: "?");
		rf_acc_note(a, STATUS_FAIL, too_new ? CAUSE_DRIVER_TOO_NEW_FOR_GPU : CAUSE_DRIVER_TOO_OLD_FOR_GPU,
			    v.why, fix);
		free(fix);
	}
}

static void rf_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	if (!w->narchs || w->is_cuda_build != 1)
		return;
	for (size_t g = 0; g < r->ngpus; g++) {
		const struct rf_gpu *gpu = &r->gpus[g];
		struct kb_verdict v;
		char *id;
		struct finding *f;
		struct buf have = BUF_INIT;

		if (gpu->cc_major < 0)
			continue;
		memset(&v, 0, sizeof(v));
		if (kb_arch_runs((const char *const *)w->archs, w->narchs, gpu->cc_major, gpu->cc_minor, &v) < 0)
			continue;
		if (v.ok == 1 && v.via == KB_VIA_PTX)
			rf_ptx_jit(r, w, idbase, g, v.why, a);
		if (v.ok != 0)
			continue;
		for (size_t k = 0; k < w->narchs; k++)
			buf_printf(&have, "%s%s", k ? " " : "", w->archs[k]);
		id = xasprintf("%s.arch%zu", idbase, g);
		f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_GPU_ARCH_UNSUPPORTED, REACH_WORK,
			       "%s %s has no code for GPU %zu (%s, sm_%d%d)", rf_pretty(w->name),
			       w->version ? w->version : "", g, gpu->name ? gpu->name : "?",
			       gpu->cc_major, gpu->cc_minor);
		free(id);
		finding_evidence(f, "built for: %s (%s of %s)", have.s, w->archs_source ? w->archs_source : "?",
				 w->archs_from ? w->archs_from : "?");
		rf_partial_evidence(f, w);
		if (v.why[0])
			finding_evidence(f, "%s", v.why);
		if (w->kind == FW_TORCH) {
			const struct kb_torch *t = rf_torch_variant_for(r->in->kb, w->version, gpu->cc_major,
									gpu->cc_minor);

			if (t) {
				char cmd[300];

				kb_torch_install(t, cmd, sizeof(cmd));
				finding_evidence(f, "the %s variant of torch %s includes sm_%d%d (%s)", t->variant,
						 t->version, gpu->cc_major, gpu->cc_minor, t->archs);
				finding_fix(f, "%s -m %s --force-reinstall", rf_py(w), cmd);
			} else {
				finding_fix(f, "install a torch release or variant whose arch list includes sm_%d%d (for Maxwell/Pascal/Volta on torch >= 2.8: the cu126 wheel)",
					    gpu->cc_major, gpu->cc_minor);
			}
		} else {
			finding_fix(f, "install a %s release built for sm_%d%d (see its release notes)",
				    rf_pretty(w->name), gpu->cc_major, gpu->cc_minor);
		}
		rf_acc_note(a, STATUS_FAIL, CAUSE_GPU_ARCH_UNSUPPORTED, "it has no code for this GPU's architecture",
			    f->fix);
		buf_release(&have);
	}
}

static void rf_python(struct rf *r, const struct fw_entry *w, const char *idbase)
{
	struct version lo, hi, py;
	const char *dash;
	char *id;
	struct finding *f;

	if (!w->python_range || !w->python_version || version_parse(w->python_version, &py) < 0)
		return;
	dash = strchr(w->python_range, '-');
	if (version_parse(w->python_range, &lo) < 0 || !dash || version_parse(dash + 1, &hi) < 0)
		return;
	if (version_cmp(&py, &lo) >= 0 && version_cmp(&py, &hi) <= 0)
		return;
	id = xasprintf("%s.python", idbase);
	f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_FRAMEWORK_PYTHON_UNSUPPORTED, REACH_WORK,
		       "%s %s supports Python %s; this environment has Python %s", rf_pretty(w->name),
		       w->version ? w->version : "", w->python_range, w->python_version);
	free(id);
	finding_evidence(f, "environment %s (Python %s)", w->env_prefix, w->python_version);
	finding_evidence(f, "%s %s: Python %s (knowledge base)", rf_pretty(w->name), w->version ? w->version : "",
			 w->python_range);
	finding_fix(f, "create an environment with a Python in %s for %s %s", shq(w->python_range),
		    rf_pretty(w->name), w->version ? shq(w->version) : "");
}

static void rf_live(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
{
	const struct fw_live *l = &w->live;
	struct buf why = BUF_INIT;
	enum fw_prediction pred;
	int predicted_gpu, got_gpu;
	char *id;
	struct finding *f;

	if (!l->ran)
		return;
	pred = fw_predict(w, &why);
	predicted_gpu = pred == FW_PREDICT_GPU && r->ngpus > 0;
	got_gpu = l->gpus > 0;
	if ((l->import_ok == 1 && predicted_gpu == got_gpu && pred != FW_PREDICT_BROKEN) ||
	    (l->import_ok == 0 && pred == FW_PREDICT_BROKEN) ||
	    (l->import_ok < 0 && l->gpus < 0)) {	/* agreement, or nothing to compare */
		buf_release(&why);
		return;
	}
	id = xasprintf("%s.live", idbase);
	f = report_add(r->rep, LAYER_FRAMEWORKS, id, CAUSE_FRAMEWORK_LIVE_DISAGREES, REACH_WORK,
		       "%s predicted %s, but the framework %s", rf_pretty(w->name),
		       fw_prediction_id(pred) ? fw_prediction_id(pred) : "unknown",
		       l->import_ok == 0 ? "failed to import" : got_gpu ? "uses the GPU" : "sees no GPU");
	free(id);
	finding_evidence(f, "%s: %s, import %s, %d GPU(s)", w->python ? w->python : "?",
			 l->outcome ? l->outcome : "?", l->import_ok == 1 ? "ok" : "failed", l->gpus);
	if (l->error)
		finding_evidence(f, "error: %s", l->error);
	for (size_t i = 0; i < l->nmissing; i++)
		finding_evidence(f, "the framework could not load %s", l->missing[i]);
	if (why.len)
		finding_evidence(f, "prediction: %s", why.s);
	buf_release(&why);
	finding_fix(f, "report this to the gpudoctor developers with: gpudoctor --json check --live");
	rf_acc_note(a, STATUS_WARN, CAUSE_FRAMEWORK_LIVE_DISAGREES, NULL, NULL);
}

static enum status rf_summary(struct rf *r, const struct fw_entry *w, const char *idbase,
			      const struct rf_acc *a)
{
	struct buf title = BUF_INIT;
	const char *pretty = rf_pretty(w->name);
	struct finding *f;
	enum status st = a->worst;
	enum cause_id cause = a->cause;
	int has_gpu = r->ngpus > 0;
	struct buf whyb = BUF_INIT;
	enum fw_prediction pred = fw_predict(w, &whyb);
	const char *why = whyb.len ? whyb.s : NULL;

	buf_printf(&title, "%s %s in %s ", pretty, w->version ? w->version : "(unknown version)", w->site_dir);
	if (w->flavour && !strcmp(w->flavour, "stub")) {
		buf_printf(&title, "is not TensorFlow: %s", why ? why : "an empty stub");
		if (st < STATUS_FAIL) {
			st = STATUS_FAIL;
			cause = CAUSE_FRAMEWORK_CPU_ONLY;
		}
	} else if (w->is_cuda_build == 0) {
		buf_printf(&title, "will run on the CPU only, because it is a %s build",
			   w->flavour && !strcmp(w->flavour, "rocm") ? "ROCm" : "CPU-only");
		if (has_gpu && st < STATUS_WARN) {
			st = STATUS_WARN;
			cause = CAUSE_FRAMEWORK_CPU_ONLY;
		}
	} else if (pred == FW_PREDICT_BROKEN) {
		buf_printf(&title, "will fail to import, because %s", why ? why : a->because.s);
	} else if (pred == FW_PREDICT_CPU) {
		buf_printf(&title, "will run on the CPU only, because %s", why ? why : a->because.s);
	} else if (a->worst >= STATUS_FAIL) {
		buf_printf(&title, "will not work on the GPU: %s", a->because.s);
	} else if (pred == FW_PREDICT_GPU) {
		const struct fw_lib *c = rf_lib(w, FW_ROLE_CUDNN);
		const struct fw_lib *rt = rf_lib(w, FW_ROLE_CUDART);

		if (has_gpu) {
			const struct rf_gpu *g = &r->gpus[0];

			buf_printf(&title, "will use GPU 0 (%s", g->name ? g->name : "?");
			if (g->cc_major >= 0)
				buf_printf(&title, ", sm_%d%d", g->cc_major, g->cc_minor);
			buf_puts(&title, ")");
		} else {
			buf_puts(&title, "has every library it needs for the GPU, but this machine shows no NVIDIA GPU;");
		}
		buf_printf(&title, " with CUDA %s", rt && rt->version ? rt->version : w->cuda_build ? w->cuda_build : "?");
		if (c && c->path) {
			const char *sl = strrchr(c->path, '/');

			buf_printf(&title, " and cuDNN %s from %.*s", c->version ? c->version : "?",
				   sl ? (int)(sl - c->path) : (int)strlen(c->path), c->path);
		}
	} else {
		buf_printf(&title, "could not be judged%s%s", w->error ? ": " : "", w->error ? w->error : "");
		if (st < STATUS_WARN && w->error) {
			st = STATUS_SKIPPED;
			cause = CAUSE_NONE;
		}
	}
	if (st == STATUS_OK)
		f = report_ok(r->rep, LAYER_FRAMEWORKS, idbase, "%s", title.s);
	else if (st == STATUS_SKIPPED || cause == CAUSE_NONE)
		f = report_skip(r->rep, LAYER_FRAMEWORKS, idbase, "%s", title.s);
	else
		f = report_add(r->rep, LAYER_FRAMEWORKS, idbase, cause,
			       st >= STATUS_FAIL ? REACH_WORK : REACH_LATENT, "%s", title.s);
	st = f->status;
	finding_evidence(f, "%s %s (%s) in %s environment %s, Python %s", w->dist ? w->dist : w->name,
			 w->version ? w->version : "?", w->flavour ? w->flavour : "?", w->env_kind,
			 w->env_prefix, w->python_version ? w->python_version : "?");
	if (r->in->kb && kb_predates(r->in->kb, w->name, w->version))
		/* what the verdict rests on when the tables do not know the release */
		finding_evidence(f, "the knowledge base (as of %s; its newest %s is %s) predates %s %s: judged from "
				 "its own files (its METADATA, the GPU code in its libraries, %s)",
				 kb_as_of(r->in->kb) ? kb_as_of(r->in->kb) : "?", w->name,
				 kb_newest_release(r->in->kb, w->name), w->name, w->version,
				 w->build_file ? w->build_file : "its version file");
	rules_conda_env_evidence(r->in, f, w->env_prefix);
	if (w->build_file)
		finding_evidence(f, "%s: CUDA %s, cuDNN %s", w->build_file, w->cuda_build ? w->cuda_build : "none",
				 w->cudnn_build ? w->cudnn_build : "?");
	if (w->plugin)
		finding_evidence(f, "CUDA plugin %s", w->plugin);
	if (w->main_lib) {
		struct buf rp = BUF_INIT, rup = BUF_INIT;

		rf_pathlist_distinct(w->main_rpath, &rp);
		rf_pathlist_distinct(w->main_runpath, &rup);
		finding_evidence(f, "requester %s%s%s%s%s", w->main_lib, w->main_rpath ? ", DT_RPATH " : "",
				 rp.s ? rp.s : "", w->main_runpath ? ", DT_RUNPATH " : "", rup.s ? rup.s : "");
		buf_release(&rp);
		buf_release(&rup);
	}
	for (size_t i = 0; i < w->nlibs; i++)
		if (w->libs[i].role != FW_ROLE_NEEDED && w->libs[i].role != FW_ROLE_CUDNN_SUB)
			rf_lib_evidence(f, &w->libs[i]);
	if (w->narchs) {
		struct buf archs = BUF_INIT;

		for (size_t k = 0; k < w->narchs; k++)
			buf_printf(&archs, "%s%s", k ? " " : "", w->archs[k]);
		finding_evidence(f, "GPU code: %s (%s)", archs.s, w->archs_source ? w->archs_source : "?");
		buf_release(&archs);
		rf_partial_evidence(f, w);
	}
	if (w->other_cudart)
		finding_evidence(f, "built for CUDA %s, but the loader finds only another major's runtime: %s",
				 w->cuda_build ? w->cuda_build : "?", w->other_cudart);
	if (w->error)
		finding_evidence(f, "%s", w->error);
	if (st != STATUS_OK && st != STATUS_SKIPPED) {
		struct buf fix = BUF_INIT;

		if (cause == CAUSE_FRAMEWORK_CPU_ONLY)
			rf_fix_gpu_build(r, w, &fix);
		else if (a->fix)
			buf_puts(&fix, a->fix);	/* the first blocking problem's own fix */
		else
			rf_fix_libs(w, &fix);
		finding_fix(f, "%s", fix.s);
		buf_release(&fix);
	}
	buf_release(&title);
	buf_release(&whyb);
	return st;
}

static enum status rf_judge(struct rf *r, const struct fw_entry *w)
{
	char *env = rf_env_id(w);
	char *idbase = xasprintf("frameworks.%s.%s", env, w->name);
	struct rf_acc a;
	enum status st;

	memset(&a, 0, sizeof(a));
	buf_init(&a.because);
	if (w->is_cuda_build == 1) {
		rf_missing(r, w, idbase, &a);
		rf_cudnn(r, w, idbase, &a);
		rf_cudnn_arch(r, w, idbase, &a);
		rf_driver_knows(r, &a);
		rf_driver(r, w, idbase, &a);
		rf_arch(r, w, idbase, &a);
		rf_known_failures(r, w, idbase, &a);
	}
	rf_python(r, w, idbase);
	rf_live(r, w, idbase, &a);
	st = rf_summary(r, w, idbase, &a);
	buf_release(&a.because);
	free(a.fix);
	free(idbase);
	free(env);
	return st;
}
