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
 */
#include "rules/rules.h"
#include "rules/rules_conda.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/shquote.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/elf.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static char *dir_of(const char *p)
{
	const char *s = strrchr(p, '/');
	size_t n = s ? (size_t)(s - p) : 0;
	char *d = malloc(n + 2);

	if (!d)
		return NULL;
	if (n == 0) {
		strcpy(d, "/");
		return d;
	}
	memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

/* A copy the loader picks, or one of the active toolkit/environment, is on
 * the path work takes; others are latent (severity policy: severity.h). */
static enum reach reach_of(const struct lib_copy *c)
{
	return (c->winner || c->in_active) ? REACH_WORK : REACH_LATENT;
}

static const char *where(const struct lib_copy *c)
{
	if (c->winner)
		return "the copy the loader picks";
	if (c->in_active)
		return "in the active toolkit/environment";
	return "not picked by default";
}

/* A fix that reinstalls the owner of c. */
static void fix_reinstall(struct finding *f, const struct lib_copy *c)
{
	if (c->owner && strncmp(c->owner, "wheel ", 6) == 0 && strchr(c->owner + 6, ' ')) {
		const char *pkg = c->owner + 6;
		const char *sp = strchr(pkg, ' ');

		char *spec = xasprintf("%.*s==%s", (int)(sp - pkg), pkg, sp + 1);

		finding_fix(f, "pip install --force-reinstall --no-deps %s", shq(spec));
		free(spec);
	} else if (c->conda_spec && c->owner && strncmp(c->owner, "conda ", 6) == 0) {
		finding_fix(f, "conda install --force-reinstall -p %s %s",
			    shq(c->owner + 6), shq(c->conda_spec));
	} else if (c->owner && strncmp(c->owner, "conda ", 6) == 0) {
		finding_fix(f, "conda install --force-reinstall -p %s <the package owning %s>",
			    shq(c->owner + 6), shq(base_name(c->path)));
	} else {
		finding_fix(f, "reinstall the package that owns it: dpkg -S %s (or rpm -qf %s), "
			    "then apt-get install --reinstall PACKAGE", shq(c->realpath), shq(c->realpath));
	}
}

static void ev_copy(struct finding *f, const struct lib_copy *c)
{
	finding_evidence(f, "%s (%s%s%s, %s%s%s, %s)", c->path,
			 c->version ? c->version : "version unknown",
			 c->version_source ? " from " : "",
			 c->version_source ? c->version_source : "",
			 c->owner ? c->owner : c->origin,
			 c->conda_spec ? ", conda package " : "", c->conda_spec ? c->conda_spec : "",
			 where(c));
}

static int rule_corrupt(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		struct finding *f;

		if (c->elf_problem == ELF_OK || c->elf_problem == ELF_UNREADABLE)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.corrupt", CAUSE_LIB_CORRUPT, reach_of(c),
			       "%s is not a valid shared object (%s)", base_name(c->path),
			       elf_problem_name((enum elf_problem)c->elf_problem));
		ev_copy(f, c);
		finding_evidence(f, "%s", c->problem ? c->problem : "elf_open failed");
		if (c->size_bytes >= 0)
			finding_evidence(f, "file size %lld bytes", c->size_bytes);
		fix_reinstall(f, c);
		n++;
	}
	return n;
}

static int rule_unreadable(const struct rules_in *in, struct report *rep,
			   const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		struct finding *f;

		if (c->readable == 0) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.unreadable", CAUSE_LIB_UNREADABLE,
				       reach_of(c), "%s cannot be read by the current user",
				       base_name(c->path));
			ev_copy(f, c);
			finding_evidence(f, "%s: %s", c->realpath,
					 strcmp(in->ctx->root, "/") == 0 ?
					 "access(R_OK) denied" : "no read permission in its mode bits "
					 "for this user");
		} else if (c->root_only) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.root-only", CAUSE_LIB_ROOT_ONLY,
				       REACH_WORK, "%s can be read only by root",
				       base_name(c->path));
			ev_copy(f, c);
			finding_evidence(f, "%s: root-owned without the \"other\" read bit; "
					 "gpudoctor runs as root, every other user fails to load it",
					 c->realpath);
		} else {
			continue;
		}
		finding_fix(f, "sudo chmod a+r %s  (and a+x on its directories)", shq(c->realpath));
		n++;
	}
	/* A directory that cannot be listed hides its libraries: they are
	 * unreadable, not missing (a toolkit's lib64 with mode 0700). */
	for (size_t i = 0; i < li->nunreadable; i++) {
		const struct lib_unreadable_dir *u = &li->unreadable[i];
		struct finding *f;

		f = report_add(rep, LAYER_LIBRARIES, "libraries.unreadable-dir", CAUSE_LIB_UNREADABLE,
			       u->active ? REACH_WORK : REACH_LATENT,
			       "%s cannot be listed by uid %ld: its libraries cannot be loaded by this user",
			       u->dir, (long)in->inv->devices.euid);
		finding_evidence(f, "opendir(%s): %s", u->dir, u->why);
		if (u->active)
			finding_evidence(f, "it is a library directory of the active toolkit (/usr/local/cuda)");
		finding_fix(f, "sudo chmod a+rx %s  (and a+r on the libraries in it)", shq(u->dir));
		n++;
	}
	return n;
}

/* 1 when an unreadable directory is in the active toolkit: its runtime is unknown. */
static int active_toolkit_unreadable(const struct libraries_inventory *li)
{
	for (size_t i = 0; i < li->nunreadable; i++)
		if (li->unreadable[i].active)
			return 1;
	return 0;
}

/* Another copy of soname on the machine, to suggest its directory. */
static const struct lib_copy *other_copy(const struct libraries_inventory *li, const char *so)
{
	const struct lib_copy *best = libraries_newest(li, so);

	if (best)
		return best;
	for (size_t i = 0; i < li->n; i++)
		if (strcmp(li->copies[i].soname, so) == 0 && li->copies[i].elf_problem == ELF_OK)
			return &li->copies[i];
	return NULL;
}

static int rule_deps(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		const struct lib_copy *o;
		struct finding *f;

		if (!c->nmissing_deps)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.dependency-missing",
			       CAUSE_LIB_DEPENDENCY_MISSING, c->winner ? REACH_WORK : REACH_LATENT,
			       "%s needs %s, which the loader cannot find", base_name(c->path),
			       c->missing_deps[0]);
		ev_copy(f, c);
		for (size_t k = 0; k < c->nmissing_deps; k++)
			finding_evidence(f, "NEEDED %s: not found (searched %sRUNPATH %s, "
					 "ld.so.cache, default directories)", c->missing_deps[k],
					 c->deps_checked_exact ? "LD_LIBRARY_PATH, " :
					 "its own directory, LD_LIBRARY_PATH, ",
					 c->runpath ? c->runpath : "(none)");
		o = other_copy(li, c->missing_deps[0]);
		if (o)
			finding_fix(f, "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  "
				    "(a copy of %s is there), or install it next to %s",
				    shq(o->dir), shq(c->missing_deps[0]), shq(base_name(c->path)));
		else
			finding_fix(f, "install the package that provides %s (for NVIDIA libraries: "
				    "pip install nvidia-<component>-cuXX, or the toolkit's apt package)",
				    shq(c->missing_deps[0]));
		n++;
	}
	return n;
}

/* "9.19.0.56" vs "9.19.0": same when the common leading parts (up to 3) agree. */
static int same_release(const char *a, const char *b)
{
	struct version va, vb;
	int n;

	if (!a || !b || version_parse(a, &va) < 0 || version_parse(b, &vb) < 0)
		return -1;
	n = va.n < vb.n ? va.n : vb.n;
	if (n > 3)
		n = 3;
	for (int i = 0; i < n; i++)
		if (va.part[i] != vb.part[i])
			return 0;
	return 1;
}

static const struct lib_copy *copy_by_path(const struct libraries_inventory *li, const char *p)
{
	for (size_t i = 0; i < li->n; i++)
		if (strcmp(li->copies[i].path, p) == 0)
			return &li->copies[i];
	return NULL;
}

static int rule_cudnn_subs(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->ncudnn_subs;) {
		const char *shim = li->cudnn_subs[i].shim;
		const struct lib_copy *sc = copy_by_path(li, shim);
		char *shim_dir = dir_of(shim);
		struct finding *inc = NULL, *shad = NULL;
		enum reach st = sc ? reach_of(sc) : REACH_LATENT;
		size_t k;

		for (k = i; k < li->ncudnn_subs && strcmp(li->cudnn_subs[k].shim, shim) == 0; k++) {
			const struct lib_cudnn_sub *s = &li->cudnn_subs[k];
			char *sd = s->path ? dir_of(s->path) : NULL;
			int same_dir = sd && shim_dir && strcmp(sd, shim_dir) == 0;

			if (!s->path) {
				if (!inc) {
					inc = report_add(rep, LAYER_LIBRARIES, "libraries.cudnn-incomplete",
							 CAUSE_CUDNN_INCOMPLETE, st,
							 "cuDNN at %s is incomplete", shim_dir);
					if (sc)
						ev_copy(inc, sc);
				}
				finding_evidence(inc, "%s: not found by the loader (asked by %s)",
						 s->soname, shim);
			} else if (same_release(s->version, s->shim_version) == 0) {
				if (same_dir) {
					if (!inc) {
						inc = report_add(rep, LAYER_LIBRARIES,
								 "libraries.cudnn-incomplete",
								 CAUSE_CUDNN_INCOMPLETE, st,
								 "cuDNN at %s mixes releases", shim_dir);
						if (sc)
							ev_copy(inc, sc);
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
							ev_copy(shad, sc);
					}
					finding_evidence(shad, "%s -> %s (%s, found via %s)", s->soname,
							 s->path, s->version, s->source ? s->source : "?");
					if (s->via == LDSO_LD_LIBRARY_PATH)
						finding_fix(shad, "remove %s from LD_LIBRARY_PATH (its older "
							    "cuDNN outranks the shim's RUNPATH $ORIGIN)", shq(sd));
					else
						finding_fix(shad, "remove the older cuDNN in %s, or install "
							    "the same cuDNN release there", shq(sd));
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

/*
 * The newest copy of r's soname in the active toolkit or environment that is
 * newer than the machine-wide winner w, among pip wheels' copies (wheels) or
 * the others (!wheels).  A wheel's copy is never the machine-wide pick: its
 * framework reaches it through its own RPATH/RUNPATH (torch, TF) or loads it
 * by path (JAX), so an older machine-wide winner is not shadowing it -- on
 * the H200 the system cuDNN 9.14 in ld.so.cache beside the venv's 9.19 is
 * normal, and the frameworks layer judges what each framework loads.
 */
static const struct lib_copy *newer_active_copy(const struct libraries_inventory *li,
						const struct lib_resolved *r,
						const struct lib_copy *w, int wheels)
{
	const struct lib_copy *best = NULL;

	for (size_t k = 0; k < li->n; k++) {
		const struct lib_copy *c = &li->copies[k];
		int is_wheel = c->origin && strcmp(c->origin, "wheel") == 0;

		if (c == w || !c->in_active || !c->version || c->elf_problem != ELF_OK ||
		    is_wheel != wheels || strcmp(c->soname, r->soname) != 0)
			continue;
		if (version_cmp_str(c->version, w->version) > 0 &&
		    same_release(c->version, w->version) == 0 &&
		    (!best || version_cmp_str(c->version, best->version) > 0))
			best = c;
	}
	return best;
}

/* A winner older than another copy in the active toolkit or environment (not a wheel's). */
static int rule_shadowed(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->nresolved; i++) {
		const struct lib_resolved *r = &li->resolved[i];
		const struct lib_copy *w, *best;
		struct finding *f;
		char *wd;

		if (!r->realpath || !(w = libraries_copy_by_realpath(li, r->realpath)) || !w->version)
			continue;
		best = newer_active_copy(li, r, w, 0);
		if (!best)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.shadowed", CAUSE_LIB_SHADOWED, REACH_LATENT,
			       "%s: the loader picks %s (%s) over the newer %s in %s", r->soname,
			       w->path, w->version, best->version,
			       best->owner ? best->owner : best->dir);
		finding_evidence(f, "loader: %s -> %s via %s", r->soname, r->path,
				 r->source ? r->source : "?");
		ev_copy(f, w);
		ev_copy(f, best);
		wd = dir_of(w->path);
		if (r->via == LDSO_LD_LIBRARY_PATH)
			finding_fix(f, "remove %s from LD_LIBRARY_PATH, or put %s before it", shq(wd),
				    shq(best->dir));
		else
			finding_fix(f, "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}, "
				    "or remove the older copy %s", shq(best->dir), shq(w->realpath));
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

static int rule_runtime(const struct rules_in *in, struct report *rep,
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
		finding_fix(f, "reinstall the toolkit's runtime (apt-get install --reinstall "
			    "cuda-cudart-%s, or the runfile installer)",
			    li->cuda_link_version ? shq(li->cuda_link_version) : "X-Y");
		n++;
	} else if (tk) {
		const struct lib_resolved *r = libraries_resolved(li, tk->soname);

		if (!r || !r->path) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-runtime", CAUSE_CUDA_RUNTIME_MISSING,
				       REACH_LATENT,
				       "the toolkit's %s is not on the loader's path",
				       tk->soname);
			ev_copy(f, tk);
			finding_evidence(f, "loader: %s not found (LD_LIBRARY_PATH, ld.so.cache, "
					 "default directories); programs linked against it fail with "
					 "\"error while loading shared libraries: %s\"",
					 tk->soname, tk->soname);
			finding_fix(f, "echo %s | sudo tee /etc/ld.so.conf.d/cuda.conf && sudo ldconfig  "
				    "(or export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH})",
				    shq(tk->dir), shq(tk->dir));
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
		ev_copy(f, c);
		finding_evidence(f, "driver %s (from %s)", drv, dsrc);
		finding_evidence(f, "%s%s%s", v.why, v.source ? " [source: " : "",
				 v.source ? v.source : "");
		if (v.source)
			finding_evidence(f, "]");
		finding_fix(f, "upgrade the NVIDIA driver%s to one that supports CUDA %s "
			    "(see the evidence for the floor), or use a CUDA %ld.x build the driver "
			    "supports", platform_driver_where(&in->inv->platform), shq(c->version),
			    (long)(cv / 1000));
		n++;
	}
	return n;
}

static int rule_symlink(struct report *rep, const struct libraries_inventory *li)
{
	struct finding *f;

	if (li->cuda_link == 2) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-symlink", CAUSE_CUDA_SYMLINK_BROKEN,
			       REACH_WORK, "/usr/local/cuda points nowhere");
		finding_evidence(f, "/usr/local/cuda -> %s: does not resolve to a directory",
				 li->cuda_link_target ? li->cuda_link_target : "?");
		if (li->nvcc_toolkit && li->nvcc_version)
			finding_fix(f, "sudo ln -sfn %s /usr/local/cuda", shq(li->nvcc_toolkit));
		else if (li->ntoolkits)
			finding_fix(f, "sudo ln -sfn %s /usr/local/cuda", shq(li->toolkits[0].realpath));
		else
			finding_fix(f, "sudo rm /usr/local/cuda  (no toolkit is installed), or "
				    "install the toolkit it should point to");
		return 1;
	}
	/*
	 * A mismatch is claimed only against a toolkit whose version is known:
	 * an nvcc outside any toolkit (a wrapper we could not follow, a
	 * distribution's /usr/bin/nvcc) says nothing about /usr/local/cuda.
	 */
	if (li->cuda_link_resolved && li->nvcc_toolkit && li->nvcc_version &&
	    strcmp(li->cuda_link_resolved, li->nvcc_toolkit) != 0 &&
	    same_release(li->cuda_link_version, li->nvcc_version) != 1) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-symlink", CAUSE_CUDA_SYMLINK_BROKEN,
			       REACH_WORK,
			       "/usr/local/cuda is CUDA %s but the nvcc on PATH is CUDA %s",
			       li->cuda_link_version ? li->cuda_link_version : "(unknown)",
			       li->nvcc_version);
		finding_evidence(f, "/usr/local/cuda -> %s (%s)", li->cuda_link_resolved,
				 li->cuda_link_version ? li->cuda_link_version : "version unknown");
		if (li->nvcc_wrapper)
			finding_evidence(f, "PATH: %s is a script that runs the nvcc of %s (%s)",
					 li->nvcc_path, li->nvcc_toolkit, li->nvcc_version);
		else
			finding_evidence(f, "PATH: %s is in %s (%s)", li->nvcc_path,
					 li->nvcc_toolkit, li->nvcc_version);
		finding_fix(f, "sudo ln -sfn %s /usr/local/cuda  (or put /usr/local/cuda/bin first "
			    "on PATH)", shq(li->nvcc_toolkit));
		return 1;
	}
	return 0;
}

static const struct lib_copy *winner_of(const struct libraries_inventory *li, const char *so)
{
	const struct lib_resolved *r = libraries_resolved(li, so);

	return r && r->realpath ? libraries_copy_by_realpath(li, r->realpath) : NULL;
}

static int rule_cudnn_header(const struct rules_in *in, struct report *rep,
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
		finding_fix(f, "install the cuDNN %ld runtime (apt-get install libcudnn%ld-cuda-XX, or "
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
	ev_copy(f, w);
	finding_evidence(f, "%s", v.why);
	finding_fix(f, "install the cuDNN runtime of the headers' release, or remove the older "
		    "copy %s from the loader's path", shq(w->realpath));
	return 1;
}

/*
 * NCCL is not part of the toolkit: it is needed only where something asks
 * for it.  Without framework facts here, the ask is the NCCL headers
 * (libnccl-dev / the wheel's include/nccl.h): installed headers with no
 * libnccl.so.2 the loader can find means programs built on them fail.
 * The frameworks layer judges the frameworks' own need.
 */
static int rule_nccl(struct report *rep, const struct libraries_inventory *li)
{
	struct finding *f;

	if (!li->nccl_header || winner_of(li, "libnccl.so.2"))
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

static int rule_live(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->nlive; i++) {
		const struct lib_live *l = &li->live[i];
		struct finding *f;

		if (!l->ok) {
			int dep = l->error && strstr(l->error, "cannot open shared object file");

			f = report_add(rep, LAYER_LIBRARIES, "libraries.live",
				       dep ? CAUSE_LIB_DEPENDENCY_MISSING : CAUSE_LIB_CORRUPT,
				       l->crashed || dep ? REACH_WORK : REACH_LATENT,
				       "%s: its own version call failed in an isolated process",
				       base_name(l->path));
			finding_evidence(f, "gpudoctor __probe libversion %s %s: %s", l->path, l->kind,
					 l->error ? l->error : "no answer");
			if (dep)
				finding_fix(f, "gpudoctor which --from %s --all  (shows the dependency "
					    "that is missing), then install it", shq(l->path));
			else
				finding_fix(f, "reinstall the package that owns %s", shq(l->path));
			n++;
			continue;
		}
		if (l->static_version && same_release(l->version, l->static_version) == 0) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.live", CAUSE_LIB_VERSION_CONFLICT,
				       REACH_WORK, "%s says it is %s, its files say %s", base_name(l->path),
				       l->version, l->static_version);
			finding_evidence(f, "gpudoctor __probe libversion %s %s: version=%s raw=%s",
					 l->path, l->kind, l->version, l->raw ? l->raw : "?");
			finding_evidence(f, "static: %s", l->static_version);
			finding_fix(f, "reinstall the package that owns %s (the file is not the release "
				    "its package metadata names)", shq(l->path));
			n++;
		}
	}
	return n;
}

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
		    !(wh = newer_active_copy(li, r, w, 1)))
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

/*
 * The loader reads /etc/ld.so.cache, not the directories: a library added
 * to a directory of ld.so.conf without running ldconfig is invisible, and a
 * missing cache leaves only the default directories.
 */
static int rule_ldcache(struct report *rep, const struct libraries_inventory *li)
{
	struct finding *f;

	if (li->cache_stale) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.ldcache", CAUSE_LDCACHE_STALE, REACH_WORK,
			       "/etc/ld.so.cache is out of date");
		finding_evidence(f, "%s", li->cache_stale_reason ? li->cache_stale_reason
				 : "ld.so.conf or one of its directories changed after the cache was built");
		finding_fix(f, "sudo ldconfig");
		return 1;
	}
	if (li->cache_error) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.ldcache", CAUSE_LDCACHE_STALE, REACH_WORK,
			       "there is no usable /etc/ld.so.cache: only LD_LIBRARY_PATH, RPATH/RUNPATH "
			       "and the default directories are searched");
		finding_evidence(f, "%s", li->cache_error);
		finding_fix(f, "sudo ldconfig");
		return 1;
	}
	return 0;
}

/*
 * A preload that cannot be loaded: ld.so says so on stderr in every process
 * and goes on.  One that loads answers for its soname in every program
 * (the resolved libraries show it as "preload"); that is noted, not judged.
 */
static int rule_preloads(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->npreloads; i++) {
		const struct ldso_preload *p = &li->preloads[i];
		struct finding *f;
		char *id;

		if (p->path)
			continue;
		id = xasprintf("libraries.preload.%zu", i);
		f = report_add(rep, LAYER_LIBRARIES, id, CAUSE_PRELOAD_BROKEN, REACH_WORK,
			       "%s names %s, which ld.so cannot load: every program prints an error and goes on",
			       p->via, p->name);
		free(id);
		finding_evidence(f, "ERROR: ld.so: object '%s' from %s cannot be preloaded (%s): ignored.",
				 p->name, p->via, p->error ? p->error : "?");
		if (!strcmp(p->via, "LD_PRELOAD")) {
			finding_fix(f, "unset LD_PRELOAD  (or remove %s from it)", shq(p->name));
		} else {
			/* the name is a regular expression to sed, then one shell word */
			struct buf expr = BUF_INIT;

			buf_puts(&expr, "s|");
			for (const char *q = p->name; *q; q++) {
				if (strchr("\\.*[]^$|", *q))
					buf_addc(&expr, '\\');
				buf_addc(&expr, *q);
			}
			buf_puts(&expr, "||");
			finding_fix(f, "sudo sed -i %s %s", shq(expr.s), shq(p->via));
			buf_release(&expr);
		}
		n++;
	}
	return n;
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
	problems += rule_ldcache(rep, li);
	problems += rule_preloads(rep, li);
	problems += rule_corrupt(rep, li);
	problems += rule_unreadable(in, rep, li);
	problems += rule_deps(rep, li);
	problems += rule_cudnn_subs(rep, li);
	problems += rule_shadowed(rep, li);
	problems += rule_runtime(in, rep, li);
	problems += rule_symlink(rep, li);
	problems += rule_cudnn_header(in, rep, li);
	problems += rule_nccl(rep, li);
	problems += rule_live(rep, li);
	rules_conda(in, rep);
	ok_summary(in, rep, li);
	if (li->n == 0 && !li->cuda_link_resolved) {
		report_skip(rep, LAYER_LIBRARIES, "libraries.none",
			   "no CUDA toolkit and no copy of the CUDA libraries found: nothing on "
			   "this machine outside Python frameworks needs them (frameworks are "
			   "judged in the frameworks layer)");
	} else if (!winner_of(li, "libcudnn.so.9") && !winner_of(li, "libcudnn.so.8") &&
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
