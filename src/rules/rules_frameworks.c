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
 *
 * This file holds the layer and each install's summary (and the Python and
 * --live checks); the checks of an install's libraries are in
 * rules_fw_libs.c, those against the driver and the GPUs in rules_fw_gpu.c,
 * and what they share in rules_fw_common.c (rules_fw.h).
 */
#include "rules/rules.h"
#include "rules/rules_conda.h"
#include "rules/fw_verdict.h"
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

/* The pip command that gives this framework its CUDA build, set on f. */
static void rf_fix_gpu_build(const struct rf *r, const struct fw_entry *w, struct finding *f)
{
	const char *py = rf_py(w);

	if (!strcmp(w->name, "tensorflow")) {
		if (w->dist && strcmp(w->dist, "tensorflow") != 0)
			finding_fix_cmd(f, py, "-m", "pip", "uninstall", "-y", w->dist, FIX_AND,
					py, "-m", "pip", "install", "tensorflow[and-cuda]", NULL);
		else
			finding_fix_cmd(f, py, "-m", "pip", "install", "tensorflow[and-cuda]", NULL);
	} else if (!strcmp(w->name, "torch")) {
		const struct kb_torch *t = r->in->kb && w->version
			? kb_torch_release(r->in->kb, w->version, NULL) : NULL;

		if (t)
			rf_fix_torch(w, t, f);
		else
			finding_fix_cmd(f, py, "-m", "pip", "install", "--force-reinstall", "torch", NULL);
	} else if (!strcmp(w->name, "jax")) {
		finding_fix_cmd(f, py, "-m", "pip", "install", "-U", "jax[cuda13]", NULL);
		finding_fix_note(f, "or 'jax[cuda12]' with a driver older than 580");
	} else {
		finding_fix_cmd(f, py, "-m", "pip", "install", "cupy-cuda13x", NULL);
		finding_fix_note(f, "the package for your CUDA major");
	}
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
		finding_fix_cmd(f, "sudo", "chmod", "a+rx", u->dir, NULL);
		finding_fix_note(f, "or run as the environment's owner");
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
	finding_fix_note(f, "create an environment with a Python in the range above for %s",
			 rf_pretty(w->name));
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
		if (cause == CAUSE_FRAMEWORK_CPU_ONLY)
			rf_fix_gpu_build(r, w, f);
		else if (a->fix)
			finding_fix_copy(f, a->fix);	/* the first blocking problem's own fix */
		else
			rf_fix_libs(w, f);
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
