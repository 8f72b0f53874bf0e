/*
 * rules_libraries.c - verdicts for the libraries layer.
 *
 * Severity follows "would a program load it": a problem of the copy the
 * loader picks (the winner), or of a copy in the active toolkit / active
 * Python environment, fails; a problem of a copy nothing picks by default
 * warns.  Which libraries are needed: with no toolkit and no framework on
 * the machine nothing is, so a missing cuDNN or runtime is a note, not a
 * failure (frameworks judge their own needs in the frameworks layer).
 *
 * Cause ids: lib-corrupt, lib-unreadable, lib-dependency-missing,
 * lib-shadowed, cudnn-incomplete, cudnn-version-mismatch, cudnn-missing,
 * cuda-runtime-missing, cuda-runtime-too-new-for-driver,
 * cuda-symlink-broken, nccl-missing.  libcuda-stub-on-path is the driver
 * layer's (not repeated here).
 *
 * The live check (libversion child) decides: a crash or hang of the
 * library's own version call, or an answer that disagrees with the version
 * its files claim, is reported as lib-corrupt -- the file is not the
 * library its package says it is, and reinstalling the owner is the fix.
 * A dlopen that fails for a missing dependency is lib-dependency-missing.
 *
 * This file runs the layer and writes its summary; the checks of the files
 * and the loader are rules_lib_files.c's, those of the CUDA libraries'
 * releases rules_lib_cuda.c's, what they share rules_lib_common.c's
 * (rules_lib.h).
 */
#include "rules/rules.h"
#include "rules/rules_lib.h"
#include "rules/rules_conda.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/elf.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ok_summary(const struct rules_in *in, struct report *rep,
		       const struct libraries_inventory *li)
{
	struct finding *f;
	struct buf s = BUF_INIT;
	size_t winners = 0;

	for (size_t i = 0; i < li->n; i++)
		winners += li->copies[i].winner;
	f = report_ok(rep, LAYER_LIBRARIES, "libraries.inventory",
		       "%zu cop%s of CUDA libraries found, %zu picked by the loader", li->n,
		       li->n == 1 ? "y" : "ies", winners);
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];

		if (!c->winner && !in->ctx->verbose)
			continue;
		buf_reset(&s);
		buf_printf(&s, "%s%s -> %s (%s", c->winner ? "loader: " : "", c->soname, c->path,
			   c->version ? c->version : "version unknown");
		if (c->version_source)
			buf_printf(&s, " from %s", c->version_source);
		buf_printf(&s, ", via %s)", c->reachable_as ? c->reachable_as : "RPATH/RUNPATH only");
		if (in->ctx->verbose && c->size_bytes >= 0)
			buf_printf(&s, "; read %zu of %lld bytes", c->bytes_touched, c->size_bytes);
		finding_evidence(f, "%s", s.s);
	}
	for (size_t i = 0; i < li->nresolved; i++) {
		const struct lib_resolved *r = &li->resolved[i];
		const struct lib_copy *w, *wh;

		if (!r->realpath || !(w = libraries_copy_by_realpath(li, r->realpath)) || !w->version ||
		    !(wh = rl_newer_active_copy(li, r, w, 1)))
			continue;
		finding_evidence(f, "%s: the machine-wide pick %s (%s) is older than %s (%s, %s); not a "
				 "problem: the wheel's copy is loaded by its framework through RPATH, "
				 "and the frameworks layer checks that", r->soname, w->path, w->version,
				 wh->path, wh->version, wh->owner ? wh->owner : "wheel");
	}
	for (size_t i = 0; i < li->nlive; i++) {
		const struct lib_live *l = &li->live[i];

		if (l->ok)
			finding_evidence(f, "live: %s reports %s%s%s", l->path, l->version,
					 l->cudart_version ? ", built for CUDA " : "",
					 l->cudart_version ? l->cudart_version : "");
	}
	if (in->ctx->verbose) {
		finding_evidence(f, "static probe took %.1f ms", li->seconds * 1000.0);
		for (size_t i = 0; i < li->nnotes; i++)
			finding_evidence(f, "note: %s", li->notes[i]);
	}
	buf_release(&s);
}

void rules_libraries(const struct rules_in *in, struct report *rep)
{
	const struct libraries_inventory *li = &in->inv->libs;
	int problems = 0;

	if (!li->probed) {
		report_skip(rep, LAYER_LIBRARIES, "libraries.inventory",
			   "the libraries probe did not run");
		return;
	}
	if (li->ldso_error) {
		struct finding *f = report_skip(rep, LAYER_LIBRARIES, "libraries.loader",
					       "the loader emulation could not start; winners unknown");

		finding_evidence(f, "%s", li->ldso_error);
	}
	problems += rl_rule_ldcache(rep, li);
	problems += rl_rule_preloads(rep, li);
	problems += rl_rule_corrupt(rep, li);
	problems += rl_rule_unreadable(in, rep, li);
	problems += rl_rule_deps(rep, li);
	problems += rl_rule_cudnn_subs(rep, li);
	problems += rl_rule_shadowed(rep, li);
	problems += rl_rule_runtime(in, rep, li);
	problems += rl_rule_symlink(rep, li);
	problems += rl_rule_cudnn_header(in, rep, li);
	problems += rl_rule_nccl(rep, li);
	problems += rl_rule_live(rep, li);
	rules_conda(in, rep);
	ok_summary(in, rep, li);
	if (li->n == 0 && !li->cuda_link_resolved) {
		report_skip(rep, LAYER_LIBRARIES, "libraries.none",
			   "no CUDA toolkit and no copy of the CUDA libraries found: nothing on "
			   "this machine outside Python frameworks needs them (frameworks are "
			   "judged in the frameworks layer)");
	} else if (!rl_winner_of(li, "libcudnn.so.9") && !rl_winner_of(li, "libcudnn.so.8") &&
		   !li->cudnn_header_version) {
		report_ok(rep, LAYER_LIBRARIES, "libraries.cudnn",
			   "no cuDNN on the loader's path; nothing outside the frameworks needs it "
			   "(cuDNN is not part of the CUDA toolkit)");
	}
	if (!in->live && !in->ctx->no_load && in->blocked)
		report_skip(rep, LAYER_LIBRARIES, "libraries.live",
			   "the libraries' own version calls did not run: a lower layer failed");
	report_set_summary(rep, LAYER_LIBRARIES, "%zu cop%s, %d problem%s", li->n,
			   li->n == 1 ? "y" : "ies", problems, problems == 1 ? "" : "s");
}
