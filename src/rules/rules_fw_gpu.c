/*
 * rules_fw_gpu.c - a framework against the driver and the GPUs
 * (rules_fw.h): a driver older than the build's CUDA needs
 * (framework-driver-too-old), a GPU the driver does not know, a build with
 * no code for a GPU's architecture (gpu-arch-unsupported), PTX the driver
 * cannot JIT (ptx-too-new-for-driver) and a failure reported for the
 * release on the GPU's architecture (failures.tsv).  Called by
 * rules_frameworks.c for each CUDA build.
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

void rf_driver(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
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

			finding_fix_note(f, "%s", fix);
			rf_acc_note(a, STATUS_FAIL, cause, "the driver is too old for its CUDA",
				    fix);
			free(fix);
		}
	}
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
	finding_fix_note(f, "upgrade the NVIDIA driver%s to %s or newer (CUDA %d.%d's minimum), or install a %s build with SASS for sm_%d%d",
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
void rf_known_failures(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
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
		finding_fix_note(f, "install a %s release outside %s..%s that is built for sm_%d%d (gpudoctor matrix lists them)",
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
void rf_driver_knows(struct rf *r, struct rf_acc *a)
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

void rf_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a)
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
				finding_evidence(f, "the %s variant of torch %s includes sm_%d%d (%s)", t->variant,
						 t->version, gpu->cc_major, gpu->cc_minor, t->archs);
				rf_fix_torch(w, t, f);
			} else {
				finding_fix_note(f, "install a torch release or variant whose arch list includes sm_%d%d (for Maxwell/Pascal/Volta on torch >= 2.8: the cu126 wheel)",
					    gpu->cc_major, gpu->cc_minor);
			}
		} else {
			finding_fix_note(f, "install a %s release built for sm_%d%d (see its release notes)",
				    rf_pretty(w->name), gpu->cc_major, gpu->cc_minor);
		}
		rf_acc_note(a, STATUS_FAIL, CAUSE_GPU_ARCH_UNSUPPORTED, "it has no code for this GPU's architecture",
			    f->fix);
		buf_release(&have);
	}
}
