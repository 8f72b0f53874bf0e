/*
 * rules_conda.c - conda environments whose CUDA libraries come from more
 * than one source: conda's packages (cudatoolkit, cudnn, nccl, cuda-*,
 * libcublas ...) in <env>/lib next to pip's nvidia-* wheels in the same
 * environment, or next to a system toolkit the loader searches.  Reads the
 * libraries inventory (copies, their origin, owner and conda package, and
 * the loader's winners) and the frameworks found in each environment.
 */
#include "rules/rules_conda.h"
#include "core/buf.h"
#include "core/strmap.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"

#include <stdlib.h>
#include <string.h>

static int under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return path && !strncmp(path, prefix, n) && path[n] == '/';
}

static int in_env_lib(const struct lib_copy *c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c->origin && !strcmp(c->origin, "conda") && c->dir &&
	       !strncmp(c->dir, prefix, n) && !strcmp(c->dir + n, "/lib");
}

/* Another source of the same library: a wheel of this env, or a system copy the loader searches. */
static int other_source(const struct lib_copy *c, const char *prefix)
{
	if (!c->origin)
		return 0;
	if (!strcmp(c->origin, "wheel"))
		return under(c->path, prefix);
	if (!strcmp(c->origin, "toolkit") || !strcmp(c->origin, "system") ||
	    !strcmp(c->origin, "ld-library-path") || !strcmp(c->origin, "cache") ||
	    !strcmp(c->origin, "opt"))
		return c->reachable_as != NULL;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

/* "wheel nvidia-cudnn-cu12 9.1.0.70" -> "nvidia-cudnn-cu12" appended to b (once). */
/* Distinct package names, the words of a fix (the names are owned). */
struct names {
	struct fixwords w;
	struct strmap seen;
};
#define NAMES_INIT { FIXWORDS_INIT, STRMAP_INIT }

static void names_add(struct names *l, char *name)
{
	if (strmap_add(&l->seen, name, l->w.n))
		fixwords_add(&l->w, name);
	else
		free(name);
}

static void names_release(struct names *l)
{
	strmap_release(&l->seen);
	for (size_t i = 0; i < l->w.n; i++)
		free((char *)l->w.w[i]);
	fixwords_release(&l->w);
}

static void add_wheel_name(struct names *l, const char *owner)
{
	const char *n, *sp;

	if (!owner || strncmp(owner, "wheel ", 6) != 0)
		return;
	n = owner + 6;
	sp = strchr(n, ' ');
	names_add(l, sp ? xstrndup(n, (size_t)(sp - n)) : xstrdup(n));
}

static void add_conda_name(struct names *l, const struct conda_env *ce, const struct lib_copy *c)
{
	const struct conda_pkg *p = condameta_owner(ce, base_name(c->path));

	if (!p)
		p = condameta_owner(ce, base_name(c->realpath));
	if (p)
		names_add(l, xstrdup(p->name));
}

/* Does a conda copy of the environment share its soname with another source's copy? */
static int same_soname_pair(const struct libraries_inventory *li, const char *prefix)
{
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];

		if (!in_env_lib(c, prefix) || !c->soname)
			continue;
		for (size_t k = 0; k < li->n; k++) {
			const struct lib_copy *o = &li->copies[k];

			if (k != i && o->soname && !strcmp(o->soname, c->soname) && other_source(o, prefix))
				return 1;
		}
	}
	return 0;
}

static void add_soname(struct buf *b, const char *soname)
{
	char *key;

	if (!soname)
		return;
	key = xasprintf("|%s|", soname);
	if (!strstr(buf_cstr(b), key))
		buf_printf(b, "%s%s|", b->len ? "" : "|", soname);
	free(key);
}

/* Which copy each framework of the environment takes, for the sonames involved. */
static void fw_takes(const struct rules_in *in, struct finding *f, const char *prefix,
		     const struct buf *sonames)
{
	const struct frameworks_inventory *fw = &in->inv->fw;

	for (size_t i = 0; i < fw->n; i++) {
		const struct fw_entry *w = &fw->fws[i];

		if (!w->env_prefix || strcmp(w->env_prefix, prefix) != 0)
			continue;
		for (size_t k = 0; k < w->nlibs; k++) {
			const struct fw_lib *l = &w->libs[k];
			char *key = l->soname ? xasprintf("|%s|", l->soname) : NULL;

			if (key && strstr(buf_cstr(sonames), key))
				finding_evidence(f, "%s %s takes %s: %s%s%s%s", w->name,
						 w->version ? w->version : "", l->soname,
						 l->path ? l->path : "not found",
						 l->source ? " (via " : "", l->source ? l->source : "",
						 l->source ? ")" : "");
			free(key);
		}
	}
}

static int env_has_framework(const struct rules_in *in, const char *prefix)
{
	const struct frameworks_inventory *fw = &in->inv->fw;

	for (size_t i = 0; i < fw->n; i++)
		if (fw->fws[i].env_prefix && !strcmp(fw->fws[i].env_prefix, prefix))
			return 1;
	return 0;
}

static const struct conda_pkg *conda_framework(const struct conda_env *ce)
{
	for (size_t i = 0; i < ce->n; i++)
		if (ce->pkgs[i].framework)
			return &ce->pkgs[i];
	return NULL;
}

static void copy_line(struct finding *f, const struct lib_copy *c, const char *what)
{
	finding_evidence(f, "%s: %s %s (%s%s%s)", c->soname ? c->soname : base_name(c->path), what,
			 c->path, c->version ? c->version : "version unknown",
			 c->conda_spec || c->owner ? ", " : "",
			 c->conda_spec ? c->conda_spec : c->owner ? c->owner : "");
}

static void judge_env(const struct rules_in *in, struct report *rep, const struct conda_env *ce)
{
	const struct libraries_inventory *li = &in->inv->libs;
	struct finding *f = NULL;
	struct names wheels = NAMES_INIT, condas = NAMES_INIT;
	struct buf sysdirs = BUF_INIT, winners = BUF_INIT;
	struct buf sonames = BUF_INIT;	/* "|libcudnn.so.8|libcudart.so.12|": the sonames involved */
	const struct conda_pkg *cfw = conda_framework(ce);
	/*
	 * Work meets it when a framework of the environment can ask for a
	 * soname both sources have; other majors (conda's libcudart.so.11.0
	 * beside a wheel's libcudart.so.12) are loaded by no one by mistake.
	 */
	enum reach reach = same_soname_pair(li, ce->prefix) && env_has_framework(in, ce->prefix)
			   ? REACH_WORK : REACH_LATENT;

	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		int first = 1;

		if (!in_env_lib(c, ce->prefix) || !c->family)
			continue;
		for (size_t k = 0; k < li->n; k++) {
			const struct lib_copy *o = &li->copies[k];
			const struct lib_resolved *r;

			if (k == i || !o->family || strcmp(o->family, c->family) != 0 ||
			    !other_source(o, ce->prefix))
				continue;
			if (!f)
				f = report_add(rep, LAYER_LIBRARIES, "libraries.conda-mixed", CAUSE_CONDA_CUDA_MIXED,
					       reach,
					       "conda environment %s mixes conda's CUDA packages with %s",
					       ce->prefix, !strcmp(o->origin, "wheel") ? "pip nvidia-* wheels" :
					       "the system's CUDA libraries");
			if (first) {
				copy_line(f, c, "conda");
				add_conda_name(&condas, ce, c);
				first = 0;
			}
			copy_line(f, o, !strcmp(o->origin, "wheel") ? "pip" : o->origin);
			add_soname(&sonames, o->soname);
			add_soname(&sonames, c->soname);
			if (!strcmp(o->origin, "wheel")) {
				add_wheel_name(&wheels, o->owner);
			} else if (o->dir && !strstr(buf_cstr(&sysdirs), o->dir)) {
				buf_printf(&sysdirs, "%s%s", sysdirs.len ? ", " : "", o->dir);
			}
			r = o->soname ? libraries_resolved(li, o->soname) : NULL;
			if (r && r->path && !strstr(buf_cstr(&winners), r->path))
				buf_printf(&winners, "%s%s -> %s (%s)", winners.len ? "; " : "", r->soname,
					   r->path, r->source ? r->source : "?");
		}
		if (!first) {
			const struct lib_resolved *r = c->soname ? libraries_resolved(li, c->soname) : NULL;

			if (r && r->path && !strstr(buf_cstr(&winners), r->path))
				buf_printf(&winners, "%s%s -> %s (%s)", winners.len ? "; " : "", r->soname,
					   r->path, r->source ? r->source : "?");
		}
	}
	if (!f)
		goto out;
	if (reach == REACH_LATENT)
		finding_evidence(f, "no framework of this environment can load a library both sources "
				 "have under one name: nothing loads the wrong copy today");
	fw_takes(in, f, ce->prefix, &sonames);
	if (winners.len)
		finding_evidence(f, "the loader (a program without RPATH) takes: %s", winners.s);
	if (cfw)
		finding_evidence(f, "the framework came from conda: %s%s%s=%s", cfw->channel ? cfw->channel : "",
				 cfw->channel ? "::" : "", cfw->name, cfw->version);
	if (cfw && wheels.w.n) {
		struct fixwords cmd = FIXWORDS_INIT;

		fixwords_add(&cmd, "pip");
		fixwords_add(&cmd, "uninstall");
		fixwords_add(&cmd, "-y");
		for (size_t i = 0; i < wheels.w.n; i++)
			fixwords_add(&cmd, wheels.w.w[i]);
		finding_fix_argv(f, cmd.w);
		fixwords_release(&cmd);
		finding_fix_note(f, "keep conda's CUDA: the framework is a conda package%s",
				 sysdirs.len ? "; and drop the system's directories above from LD_LIBRARY_PATH" : "");
	} else if (condas.w.n) {
		struct fixwords cmd = FIXWORDS_INIT;

		fixwords_add(&cmd, "conda");
		fixwords_add(&cmd, "remove");
		fixwords_add(&cmd, "-p");
		fixwords_add(&cmd, ce->prefix);
		fixwords_add(&cmd, "--force");
		for (size_t i = 0; i < condas.w.n; i++)
			fixwords_add(&cmd, condas.w.w[i]);
		finding_fix_argv(f, cmd.w);
		fixwords_release(&cmd);
		finding_fix_note(f, "keep one source per environment: the framework's pip wheels bring their "
				 "own CUDA%s",
				 sysdirs.len ? "; and drop the system's directories above from LD_LIBRARY_PATH" : "");
	} else
		finding_fix_catalogue(f);
out:
	names_release(&wheels);
	names_release(&condas);
	buf_release(&sysdirs);
	buf_release(&winners);
	buf_release(&sonames);
}

void rules_conda_env_evidence(const struct rules_in *in, struct finding *f, const char *prefix)
{
	const struct libraries_inventory *li = &in->inv->libs;
	struct buf b = BUF_INIT;

	for (size_t i = 0; prefix && i < li->nconda; i++) {
		const struct conda_env *ce = &li->conda[i];

		if (strcmp(ce->prefix, prefix) != 0)
			continue;
		for (size_t k = 0; k < ce->n; k++)
			if (!ce->pkgs[k].framework)
				buf_printf(&b, "%s%s%s%s=%s", b.len ? ", " : "",
					   ce->pkgs[k].channel ? ce->pkgs[k].channel : "",
					   ce->pkgs[k].channel ? "::" : "", ce->pkgs[k].name, ce->pkgs[k].version);
	}
	if (b.len)
		finding_evidence(f, "conda CUDA packages in this environment: %s", b.s);
	buf_release(&b);
}

int rules_conda_fix_upgrade(const struct rules_in *in, const char *realpath, const char *minimum,
			    struct finding *f)
{
	const struct lib_copy *c = realpath ? libraries_copy_by_realpath(&in->inv->libs, realpath) : NULL;
	const char *spec, *sep, *eq;
	char *channel, *name, *req;
	long major;

	if (!c || !c->conda_spec || !c->owner || strncmp(c->owner, "conda ", 6) != 0 || !minimum)
		return 0;
	spec = c->conda_spec;
	sep = strstr(spec, "::");
	channel = sep ? xstrndup(spec, (size_t)(sep - spec)) : NULL;
	name = sep ? xstrdup(sep + 2) : xstrdup(spec);
	if ((eq = strchr(name, '=')))
		name[eq - name] = 0;
	major = strtol(minimum, NULL, 10);
	req = xasprintf("%s>=%s,<%ld", name, minimum, major + 1);
	if (channel)
		finding_fix_cmd(f, "conda", "install", "-p", c->owner + 6, "-c", channel, req, NULL);
	else
		finding_fix_cmd(f, "conda", "install", "-p", c->owner + 6, req, NULL);
	finding_fix_note(f, "conda's package is the copy loaded; or take its directory off "
			 "LD_LIBRARY_PATH when the framework brings its own");
	free(channel);
	free(name);
	free(req);
	return 1;
}

void rules_conda(const struct rules_in *in, struct report *rep)
{
	const struct libraries_inventory *li = &in->inv->libs;

	for (size_t i = 0; i < li->nconda; i++)
		judge_env(in, rep, &li->conda[i]);
}
