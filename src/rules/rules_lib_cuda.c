/*
 * rules_lib_cuda.c - the libraries layer's checks of the CUDA libraries'
 * releases (rules_lib.h): cuDNN sub-libraries and headers of another
 * release (cudnn-incomplete, cudnn-version-mismatch), a winner shadowed by
 * a newer active copy (lib-shadowed), the runtime against the driver
 * (cuda-runtime-missing, cuda-runtime-too-new-for-driver) and NCCL asked
 * for by its headers (nccl-missing).  Called by rules_libraries.c.
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

/* 1 when an unreadable directory is in the active toolkit: its runtime is unknown. */
static int active_toolkit_unreadable(const struct libraries_inventory *li)
{
	for (size_t i = 0; i < li->nunreadable; i++)
		if (li->unreadable[i].active)
			return 1;
	return 0;
}

static const struct lib_copy *copy_by_path(const struct libraries_inventory *li, const char *p)
{
	for (size_t i = 0; i < li->n; i++)
		if (strcmp(li->copies[i].path, p) == 0)
			return &li->copies[i];
	return NULL;
}

int rl_rule_cudnn_subs(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->ncudnn_subs;) {
		const char *shim = li->cudnn_subs[i].shim;
		const struct lib_copy *sc = copy_by_path(li, shim);
		char *shim_dir = rl_dir_of(shim);
		struct finding *inc = NULL, *shad = NULL;
		enum reach st = sc ? rl_reach_of(sc) : REACH_LATENT;
		size_t k;

		for (k = i; k < li->ncudnn_subs && strcmp(li->cudnn_subs[k].shim, shim) == 0; k++) {
			const struct lib_cudnn_sub *s = &li->cudnn_subs[k];
			char *sd = s->path ? rl_dir_of(s->path) : NULL;
			int same_dir = sd && shim_dir && strcmp(sd, shim_dir) == 0;

			if (!s->path) {
				if (!inc) {
					inc = report_add(rep, LAYER_LIBRARIES, "libraries.cudnn-incomplete",
							 CAUSE_CUDNN_INCOMPLETE, st,
							 "cuDNN at %s is incomplete", shim_dir);
					if (sc)
						rl_ev_copy(inc, sc);
				}
				finding_evidence(inc, "%s: not found by the loader (asked by %s)",
						 s->soname, shim);
			} else if (rl_same_release(s->version, s->shim_version) == 0) {
				if (same_dir) {
					if (!inc) {
						inc = report_add(rep, LAYER_LIBRARIES,
								 "libraries.cudnn-incomplete",
								 CAUSE_CUDNN_INCOMPLETE, st,
								 "cuDNN at %s mixes releases", shim_dir);
						if (sc)
							rl_ev_copy(inc, sc);
					}
					finding_evidence(inc, "%s is %s, the shim is %s", s->path,
							 s->version, s->shim_version);
				} else {
					if (!shad) {
						shad = report_add(rep, LAYER_LIBRARIES,
								  "libraries.cudnn-shadowed",
								  CAUSE_LIB_SHADOWED, st,
								  "cuDNN %s at %s would load sub-libraries "
								  "of cuDNN %s from another directory",
								  s->shim_version, shim_dir, s->version);
						if (sc)
							rl_ev_copy(shad, sc);
					}
					finding_evidence(shad, "%s -> %s (%s, found via %s)", s->soname,
							 s->path, s->version, s->source ? s->source : "?");
					if (s->via == LDSO_LD_LIBRARY_PATH)
						finding_fix_note(shad, "remove the older cuDNN's directory (the "
								 "evidence names it) from LD_LIBRARY_PATH: its "
								 "older cuDNN outranks the shim's RUNPATH $ORIGIN");
					else
						finding_fix_note(shad, "remove the older cuDNN the evidence names, "
								 "or install the same cuDNN release in its "
								 "directory");
				}
			}
			free(sd);
		}
		if (inc) {
			/* The shim's path is the machine's: one quoted word. */
			finding_fix_cmd(inc, "dpkg", "-S", shim, NULL);
			finding_fix_note(inc, "names the package that owns it; reinstall cuDNN as "
					 "one package: apt-get install --reinstall that package, or pip "
					 "install --force-reinstall nvidia-cudnn-cuXX");
		}
		n += !!inc + !!shad;
		free(shim_dir);
		i = k;
	}
	return n;
}

/* A winner older than another copy in the active toolkit or environment (not a wheel's). */
int rl_rule_shadowed(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->nresolved; i++) {
		const struct lib_resolved *r = &li->resolved[i];
		const struct lib_copy *w, *best;
		struct finding *f;
		char *wd;

		if (!r->realpath || !(w = libraries_copy_by_realpath(li, r->realpath)) || !w->version)
			continue;
		best = rl_newer_active_copy(li, r, w, 0);
		if (!best)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.shadowed", CAUSE_LIB_SHADOWED, REACH_LATENT,
			       "%s: the loader picks %s (%s) over the newer %s in %s", r->soname,
			       w->path, w->version, best->version,
			       best->owner ? best->owner : best->dir);
		finding_evidence(f, "loader: %s -> %s via %s", r->soname, r->path,
				 r->source ? r->source : "?");
		rl_ev_copy(f, w);
		rl_ev_copy(f, best);
		wd = rl_dir_of(w->path);
		finding_fix_cmd(f, "export", "LD_LIBRARY_PATH=", FIX_GLUE, best->dir, FIX_GLUE, FIX_SH,
				"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", NULL);
		if (r->via == LDSO_LD_LIBRARY_PATH)
			finding_fix_note(f, "puts the newer copy's directory first; or remove the older copy's "
					 "directory from LD_LIBRARY_PATH");
		else
			finding_fix_note(f, "or remove the older copy the evidence names");
		free(wd);
		n++;
	}
	return n;
}

/* The driver version the runtime must run on: the driver layer's one reading (driver.h). */
static const char *driver_version(const struct inventory *inv, const char **src)
{
	*src = inv->driver.version_source;
	return inv->driver.version;
}

static int datacenter_gpu(const struct rules_in *in)
{
	const struct hw_inventory *hw = &in->inv->hw;

	if (!in->kb)
		return -1;
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct kb_gpu *g = kb_gpu_by_pci(in->kb, (unsigned)hw->gpus[i].vendor,
						       (unsigned)hw->gpus[i].device);

		if (g)
			return g->datacenter;
	}
	return -1;
}

static int cuda_int(const char *ver)
{
	struct version v;

	if (!ver || version_parse(ver, &v) < 0 || v.n < 2)
		return -1;
	return (int)(v.part[0] * 1000 + v.part[1] * 10);
}

static const struct lib_copy *active_toolkit_cudart(const struct libraries_inventory *li)
{
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];

		if (strcmp(c->family, "cudart") == 0 && strcmp(c->origin, "toolkit") == 0 &&
		    c->in_active)
			return c;
	}
	return NULL;
}

int rl_rule_runtime(const struct rules_in *in, struct report *rep,
			const struct libraries_inventory *li)
{
	const struct lib_copy *tk = active_toolkit_cudart(li);
	const char *dsrc = NULL;
	const char *drv = driver_version(in->inv, &dsrc);
	int dc = datacenter_gpu(in);
	int n = 0;
	struct finding *f;

	if (li->cuda_link_resolved && !tk && active_toolkit_unreadable(li)) {
		/* not "missing": rule_unreadable said why it cannot be seen */
	} else if (li->cuda_link_resolved && !tk) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-runtime", CAUSE_CUDA_RUNTIME_MISSING,
			       REACH_WORK, "the CUDA toolkit at %s has no libcudart",
			       li->cuda_link_resolved);
		finding_evidence(f, "no libcudart.so.* in %s/lib64, lib or targets/*/lib",
				 li->cuda_link_resolved);
		if (li->cuda_link_version) {
			finding_fix_cmd(f, "apt-get", "install", "--reinstall", "cuda-cudart-", FIX_GLUE,
					li->cuda_link_version, NULL);
			finding_fix_note(f, "or the toolkit's runfile installer");
		} else {
			finding_fix(f, "reinstall the toolkit's runtime (apt-get install --reinstall "
				    "cuda-cudart-X-Y, or the runfile installer)");
		}
		n++;
	} else if (tk) {
		const struct lib_resolved *r = libraries_resolved(li, tk->soname);

		if (!r || !r->path) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-runtime", CAUSE_CUDA_RUNTIME_MISSING,
				       REACH_LATENT,
				       "the toolkit's %s is not on the loader's path",
				       tk->soname);
			rl_ev_copy(f, tk);
			finding_evidence(f, "loader: %s not found (LD_LIBRARY_PATH, ld.so.cache, "
					 "default directories); programs linked against it fail with "
					 "\"error while loading shared libraries: %s\"",
					 tk->soname, tk->soname);
			finding_fix_cmd(f, "echo", tk->dir, FIX_PIPE, "sudo", "tee", "/etc/ld.so.conf.d/cuda.conf",
					FIX_AND, "sudo", "ldconfig", NULL);
			finding_fix_note(f, "or add that directory to LD_LIBRARY_PATH");
			n++;
		}
	}
	/* every cudart the loader picks, and the active toolkit's */
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		struct kb_verdict v;
		int cv;

		if (strcmp(c->family, "cudart") != 0 || !(c->winner || c == tk))
			continue;
		cv = cuda_int(c->version);
		if (!drv || cv < 0 || !in->kb)
			continue;
		memset(&v, 0, sizeof(v));
		if (kb_driver_runs_cuda(in->kb, drv, cv, dc, &v) != 0 && v.ok != 0)
			continue;
		if (v.ok != 0)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.runtime-too-new",
			       CAUSE_CUDA_RUNTIME_TOO_NEW_FOR_DRIVER,
			       c->winner || c == tk ? REACH_WORK : REACH_LATENT,
			       "CUDA runtime %s is newer than driver %s supports", c->version, drv);
		rl_ev_copy(f, c);
		finding_evidence(f, "driver %s (from %s)", drv, dsrc);
		finding_evidence(f, "%s%s%s", v.why, v.source ? " [source: " : "",
				 v.source ? v.source : "");
		if (v.source)
			finding_evidence(f, "]");
		finding_fix_note(f, "upgrade the NVIDIA driver%s to one that supports this CUDA "
				 "(see the evidence for the floor), or use a CUDA %ld.x build the driver "
				 "supports", platform_driver_where(&in->inv->platform), (long)(cv / 1000));
		n++;
	}
	return n;
}

int rl_rule_cudnn_header(const struct rules_in *in, struct report *rep,
			     const struct libraries_inventory *li)
{
	struct version hv;
	char so[32];
	const struct lib_resolved *r;
	const struct lib_copy *w;
	struct finding *f;
	struct kb_verdict v;

	if (!li->cudnn_header_version || version_parse(li->cudnn_header_version, &hv) < 0)
		return 0;
	snprintf(so, sizeof(so), "libcudnn.so.%ld", hv.part[0]);
	r = libraries_resolved(li, so);
	if (!r || !r->path) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.cudnn", CAUSE_CUDNN_MISSING, REACH_LATENT,
			       "cuDNN %s headers are installed but the loader finds no %s",
			       li->cudnn_header_version, so);
		finding_evidence(f, "%s: cuDNN %s", li->cudnn_header, li->cudnn_header_version);
		finding_evidence(f, "loader: %s not found (LD_LIBRARY_PATH, ld.so.cache, default "
				 "directories)", so);
		finding_fix_note(f, "install the cuDNN %ld runtime (apt-get install libcudnn%ld-cuda-XX, or "
				 "pip install nvidia-cudnn-cuXX) or add its directory to "
				 "/etc/ld.so.conf.d/ and run sudo ldconfig", hv.part[0], hv.part[0]);
		return 1;
	}
	w = libraries_copy_by_realpath(li, r->realpath);
	if (!w || !w->version || !in->kb)
		return 0;
	memset(&v, 0, sizeof(v));
	kb_cudnn_satisfies(w->version, li->cudnn_header_version, &v);
	if (v.ok != 0)
		return 0;
	f = report_add(rep, LAYER_LIBRARIES, "libraries.cudnn-version", CAUSE_CUDNN_VERSION_MISMATCH,
		       REACH_LATENT,
		       "programs built against cuDNN %s headers would load cuDNN %s",
		       li->cudnn_header_version, w->version);
	finding_evidence(f, "%s: cuDNN %s", li->cudnn_header, li->cudnn_header_version);
	rl_ev_copy(f, w);
	finding_evidence(f, "%s", v.why);
	finding_fix(f, "install the cuDNN runtime of the headers' release, or remove the older "
		    "copy the evidence names from the loader's path");
	return 1;
}

/*
 * NCCL is not part of the toolkit: it is needed only where something asks
 * for it.  Without framework facts here, the ask is the NCCL headers
 * (libnccl-dev / the wheel's include/nccl.h): installed headers with no
 * libnccl.so.2 the loader can find means programs built on them fail.
 * The frameworks layer judges the frameworks' own need.
 */
int rl_rule_nccl(struct report *rep, const struct libraries_inventory *li)
{
	struct finding *f;

	if (!li->nccl_header || rl_winner_of(li, "libnccl.so.2"))
		return 0;
	f = report_add(rep, LAYER_LIBRARIES, "libraries.nccl", CAUSE_NCCL_MISSING, REACH_LATENT,
		       "NCCL headers are installed but the loader finds no libnccl.so.2");
	finding_evidence(f, "%s exists", li->nccl_header);
	finding_evidence(f, "loader: libnccl.so.2 not found (LD_LIBRARY_PATH, ld.so.cache, "
			 "default directories)");
	finding_fix(f, "apt-get install libnccl2 (or pip install nvidia-nccl-cuXX and add its "
		    "lib directory to LD_LIBRARY_PATH)");
	return 1;
}
