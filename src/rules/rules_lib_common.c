/*
 * rules_lib_common.c - what the libraries layer's rules share (rules_lib.h):
 * a copy's name, directory and place for people, its reach (is it on the
 * path work takes), its evidence line and the fix that reinstalls its
 * owner, release comparison, the loader's winner for a soname and a newer
 * copy in the active toolkit or environment.  Calls no rule.
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

const char *rl_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

char *rl_dir_of(const char *p)
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
enum reach rl_reach_of(const struct lib_copy *c)
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
void rl_fix_reinstall(struct finding *f, const struct lib_copy *c)
{
	if (c->owner && strncmp(c->owner, "wheel ", 6) == 0 && strchr(c->owner + 6, ' ')) {
		const char *pkg = c->owner + 6;
		const char *sp = strchr(pkg, ' ');

		char *spec = xasprintf("%.*s==%s", (int)(sp - pkg), pkg, sp + 1);

		finding_fix_cmd(f, "pip", "install", "--force-reinstall", "--no-deps", spec, NULL);
		free(spec);
	} else if (c->conda_spec && c->owner && strncmp(c->owner, "conda ", 6) == 0) {
		finding_fix_cmd(f, "conda", "install", "--force-reinstall", "-p", c->owner + 6, c->conda_spec,
				NULL);
	} else if (c->owner && strncmp(c->owner, "conda ", 6) == 0) {
		finding_fix_cmd(f, "conda", "list", "-p", c->owner + 6, NULL);
		finding_fix_note(f, "find the package that owns the library, then conda install "
				 "--force-reinstall it in that prefix");
	} else {
		finding_fix_cmd(f, "dpkg", "-S", c->realpath, NULL);
		finding_fix_note(f, "or rpm -qf: the package that owns it; then apt-get install "
				 "--reinstall PACKAGE");
	}
}

void rl_ev_copy(struct finding *f, const struct lib_copy *c)
{
	finding_evidence(f, "%s (%s%s%s, %s%s%s, %s)", c->path,
			 c->version ? c->version : "version unknown",
			 c->version_source ? " from " : "",
			 c->version_source ? c->version_source : "",
			 c->owner ? c->owner : c->origin,
			 c->conda_spec ? ", conda package " : "", c->conda_spec ? c->conda_spec : "",
			 where(c));
}

/* "9.19.0.56" vs "9.19.0": same when the common leading parts (up to 3) agree. */
int rl_same_release(const char *a, const char *b)
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

/*
 * The newest copy of r's soname in the active toolkit or environment that is
 * newer than the machine-wide winner w, among pip wheels' copies (wheels) or
 * the others (!wheels).  A wheel's copy is never the machine-wide pick: its
 * framework reaches it through its own RPATH/RUNPATH (torch, TF) or loads it
 * by path (JAX), so an older machine-wide winner is not shadowing it -- on
 * the H200 the system cuDNN 9.14 in ld.so.cache beside the venv's 9.19 is
 * normal, and the frameworks layer judges what each framework loads.
 */
const struct lib_copy *rl_newer_active_copy(const struct libraries_inventory *li,
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
		    rl_same_release(c->version, w->version) == 0 &&
		    (!best || version_cmp_str(c->version, best->version) > 0))
			best = c;
	}
	return best;
}

const struct lib_copy *rl_winner_of(const struct libraries_inventory *li, const char *so)
{
	const struct lib_resolved *r = libraries_resolved(li, so);

	return r && r->realpath ? libraries_copy_by_realpath(li, r->realpath) : NULL;
}
