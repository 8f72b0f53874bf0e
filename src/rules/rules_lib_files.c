/*
 * rules_lib_files.c - the libraries layer's checks of the files and the
 * loader (rules_lib.h): ld.so.cache (not the directories) is what the
 * loader reads (ldcache-stale), preloads (preload-broken), corrupt,
 * unreadable and root-only copies (lib-corrupt, lib-unreadable,
 * lib-root-only), missing dependencies (lib-dependency-missing), broken
 * toolkit symlinks (cuda-symlink-broken) and the libraries' own version
 * calls run live (lib-version-conflict).  Called by rules_libraries.c.
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

int rl_rule_corrupt(struct report *rep, const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		struct finding *f;

		if (c->elf_problem == ELF_OK || c->elf_problem == ELF_UNREADABLE)
			continue;
		f = report_add(rep, LAYER_LIBRARIES, "libraries.corrupt", CAUSE_LIB_CORRUPT, rl_reach_of(c),
			       "%s is not a valid shared object (%s)", rl_base_name(c->path),
			       elf_problem_name((enum elf_problem)c->elf_problem));
		rl_ev_copy(f, c);
		finding_evidence(f, "%s", c->problem ? c->problem : "elf_open failed");
		if (c->size_bytes >= 0)
			finding_evidence(f, "file size %lld bytes", c->size_bytes);
		rl_fix_reinstall(f, c);
		n++;
	}
	return n;
}

int rl_rule_unreadable(const struct rules_in *in, struct report *rep,
			   const struct libraries_inventory *li)
{
	int n = 0;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		struct finding *f;

		if (c->readable == 0) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.unreadable", CAUSE_LIB_UNREADABLE,
				       rl_reach_of(c), "%s cannot be read by the current user",
				       rl_base_name(c->path));
			rl_ev_copy(f, c);
			finding_evidence(f, "%s: %s", c->realpath,
					 strcmp(in->ctx->root, "/") == 0 ?
					 "access(R_OK) denied" : "no read permission in its mode bits "
					 "for this user");
		} else if (c->root_only) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.root-only", CAUSE_LIB_ROOT_ONLY,
				       REACH_WORK, "%s can be read only by root",
				       rl_base_name(c->path));
			rl_ev_copy(f, c);
			finding_evidence(f, "%s: root-owned without the \"other\" read bit; "
					 "gpudoctor runs as root, every other user fails to load it",
					 c->realpath);
		} else {
			continue;
		}
		finding_fix_cmd(f, "sudo", "chmod", "a+r", c->realpath, NULL);
		finding_fix_note(f, "and a+x on its directories");
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
		finding_fix_cmd(f, "sudo", "chmod", "a+rx", u->dir, NULL);
		finding_fix_note(f, "and a+r on the libraries in it");
		n++;
	}
	return n;
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

int rl_rule_deps(struct report *rep, const struct libraries_inventory *li)
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
			       "%s needs %s, which the loader cannot find", rl_base_name(c->path),
			       c->missing_deps[0]);
		rl_ev_copy(f, c);
		for (size_t k = 0; k < c->nmissing_deps; k++)
			finding_evidence(f, "NEEDED %s: not found (searched %sRUNPATH %s, "
					 "ld.so.cache, default directories)", c->missing_deps[k],
					 c->deps_checked_exact ? "LD_LIBRARY_PATH, " :
					 "its own directory, LD_LIBRARY_PATH, ",
					 c->runpath ? c->runpath : "(none)");
		o = other_copy(li, c->missing_deps[0]);
		if (o) {
			finding_fix_cmd(f, "export", "LD_LIBRARY_PATH=", FIX_GLUE, o->dir, FIX_GLUE, FIX_SH,
					"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", NULL);
			finding_fix_note(f, "a copy of the missing library is there; or install it next to the "
					 "library that needs it");
		} else {
			finding_fix_note(f, "install the package that provides the missing library (for NVIDIA "
					 "libraries: pip install nvidia-<component>-cuXX, or the toolkit's apt package)");
		}
		n++;
	}
	return n;
}

int rl_rule_symlink(struct report *rep, const struct libraries_inventory *li)
{
	struct finding *f;

	if (li->cuda_link == 2) {
		f = report_add(rep, LAYER_LIBRARIES, "libraries.cuda-symlink", CAUSE_CUDA_SYMLINK_BROKEN,
			       REACH_WORK, "/usr/local/cuda points nowhere");
		finding_evidence(f, "/usr/local/cuda -> %s: does not resolve to a directory",
				 li->cuda_link_target ? li->cuda_link_target : "?");
		if (li->nvcc_toolkit && li->nvcc_version)
			finding_fix_cmd(f, "sudo", "ln", "-sfn", li->nvcc_toolkit, "/usr/local/cuda", NULL);
		else if (li->ntoolkits)
			finding_fix_cmd(f, "sudo", "ln", "-sfn", li->toolkits[0].realpath, "/usr/local/cuda", NULL);
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
	    rl_same_release(li->cuda_link_version, li->nvcc_version) != 1) {
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
		finding_fix_cmd(f, "sudo", "ln", "-sfn", li->nvcc_toolkit, "/usr/local/cuda", NULL);
		finding_fix_note(f, "or put /usr/local/cuda/bin first on PATH");
		return 1;
	}
	return 0;
}

int rl_rule_live(struct report *rep, const struct libraries_inventory *li)
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
				       rl_base_name(l->path));
			finding_evidence(f, "gpudoctor __probe libversion %s %s: %s", l->path, l->kind,
					 l->error ? l->error : "no answer");
			if (dep) {
				finding_fix_cmd(f, "gpudoctor", "which", "--from", l->path, "--all", NULL);
				finding_fix_note(f, "shows the dependency that is missing; then install it");
			} else {
				finding_fix_cmd(f, "dpkg", "-S", l->path, NULL);
				finding_fix_note(f, "or rpm -qf: reinstall the package that owns it");
			}
			n++;
			continue;
		}
		if (l->static_version && rl_same_release(l->version, l->static_version) == 0) {
			f = report_add(rep, LAYER_LIBRARIES, "libraries.live", CAUSE_LIB_VERSION_CONFLICT,
				       REACH_WORK, "%s says it is %s, its files say %s", rl_base_name(l->path),
				       l->version, l->static_version);
			finding_evidence(f, "gpudoctor __probe libversion %s %s: version=%s raw=%s",
					 l->path, l->kind, l->version, l->raw ? l->raw : "?");
			finding_evidence(f, "static: %s", l->static_version);
			finding_fix_cmd(f, "dpkg", "-S", l->path, NULL);
			finding_fix_note(f, "or rpm -qf: reinstall the package that owns it; the file is not "
					 "the release its package metadata names");
			n++;
		}
	}
	return n;
}

/*
 * The loader reads /etc/ld.so.cache, not the directories: a library added
 * to a directory of ld.so.conf without running ldconfig is invisible, and a
 * missing cache leaves only the default directories.
 */
int rl_rule_ldcache(struct report *rep, const struct libraries_inventory *li)
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
int rl_rule_preloads(struct report *rep, const struct libraries_inventory *li)
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
			finding_fix_cmd(f, "unset", "LD_PRELOAD", NULL);
			finding_fix_note(f, "or remove the library from it");
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
			finding_fix_cmd(f, "sudo", "sed", "-i", expr.s, p->via, NULL);
			buf_release(&expr);
		}
		n++;
	}
	return n;
}
