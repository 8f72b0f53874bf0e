/*
 * libscan_resolve.c - the loader's view of the copies (loader/ldso.h).
 *
 *   winner         ldso_resolve(soname) with no requester, in the
 *                  environment gpudoctor runs in: a program without RPATH or
 *                  RUNPATH, or dlopen() from Python, gets this file.
 *   reachable_as   how the loader could see the copy on its own: its
 *                  directory is on LD_LIBRARY_PATH, or it is what ld.so.cache
 *                  or the default directories give without LD_LIBRARY_PATH;
 *                  NULL when only a requester's RPATH/RUNPATH can reach it
 *                  (pip wheels: frameworks carry RPATHs to them).
 *   missing_deps   each NEEDED resolved with the copy itself as requester,
 *                  so its RUNPATH/$ORIGIN apply.  Winners: in the real
 *                  environment.  Other copies: with their own directory
 *                  first on LD_LIBRARY_PATH (what a user does to use that
 *                  copy), so only a truly absent dependency is reported.
 *                  glibc's own libraries and the driver's (libcuda.so.1,
 *                  libnvidia-ml.so.1: the driver layer's business) are not
 *                  judged here.
 *   cudnn_subs     for every cuDNN 9 shim, the sub-libraries it dlopen()s,
 *                  as the shim itself asks for them: first the full version
 *                  name (libcudnn_graph.so.9.19.0), then the soname
 *                  (seen on the H200: docs/h200-results.md); its RUNPATH ranks after
 *                  LD_LIBRARY_PATH, which is how an old system cuDNN on
 *                  LD_LIBRARY_PATH gets mixed into a wheel's cuDNN.
 */
#include "probes/libraries/libscan.h"
#include "probes/probe_in.h"

#include "core/ctx.h"
#include "core/fs.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "loader/ldcache.h"
#include "loader/ldconf.h"
#include "loader/ldso.h"

#include <stdlib.h>
#include <string.h>

/* The shared loader with another LD_LIBRARY_PATH (ldso_init_from: nothing re-read). */
static struct ldso *loader_new(struct ldso *base, const char *llp)
{
	struct ldso *l = xcalloc(1, sizeof(*l));

	ldso_init_from(l, base, llp);
	return l;
}

static void loader_free(struct ldso *l)
{
	if (l) {
		ldso_release(l);
		free(l);
	}
}

void libscan_loader_init(const struct probe_in *in, struct libraries_inventory *li,
			 struct libscan_loader *ld)
{
	const struct gd_ctx *ctx = in->ctx;
	const char *llp = in->env.ld_library_path;

	memset(ld, 0, sizeof(*ld));
	ld->llp = llp;
	if (!in->loader) {
		li->ldso_error = xstrdup(in->loader_error ? in->loader_error : "no loader");
		return;
	}
	ld->base = in->loader;
	ld->main = loader_new(ld->base, llp);
	ld->nollp = loader_new(ld->base, NULL);
	if (ld->main->cache_error)
		li->cache_error = xstrdup(ld->main->cache_error);
	li->cache_stale = ld->main->cache_stale;
	li->preloads = ldso_preloads_copy(ld->main, &li->npreloads);
	if (ld->main->cache_stale_reason)
		li->cache_stale_reason = xstrdup(ld->main->cache_stale_reason);
	if (llp) {
		char *copy = xstrdup(llp), *save = NULL;

		for (char *t = strtok_r(copy, ":;", &save); t; t = strtok_r(NULL, ":;", &save)) {
			struct buf r = BUF_INIT;

			ld->llp_dirs = xrealloc(ld->llp_dirs, (ld->nllp + 1) * sizeof(char *));
			if (fs_resolve(ctx->root, t, &r, NULL) < 0) {
				buf_reset(&r);
				buf_puts(&r, t);
			}
			ld->llp_dirs[ld->nllp++] = buf_detach(&r);
		}
		free(copy);
	}
}

void libscan_loader_release(struct libscan_loader *ld)
{
	loader_free(ld->main);
	loader_free(ld->nollp);
	for (size_t i = 0; i < ld->nllp; i++)
		free(ld->llp_dirs[i]);
	free(ld->llp_dirs);
	memset(ld, 0, sizeof(*ld));
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s || s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

void libscan_loader_dirs(const struct gd_ctx *ctx, struct libscan_loader *ld,
			 struct libscan_dirs *ds)
{
	if (!ld->main)
		return;
	if (ld->main->cache) {
		const struct ldcache *c = ld->main->cache;

		for (size_t i = 0; i < c->n; i++) {
			const char *base = strrchr(c->entries[i].key, '/');

			base = base ? base + 1 : c->entries[i].key;
			if (c->entries[i].value && c->entries[i].value[0] == '/' &&
			    libscan_parse_name(base, NULL)) {
				char *d = dir_of(c->entries[i].value);

				libscan_dirs_add(ctx, ds, d, "cache", "ld.so.cache");
				free(d);
			}
		}
	} else {
		/* no cache: ld.so.conf says what ldconfig would have put in it */
		struct ldconf conf;

		memset(&conf, 0, sizeof(conf));
		if (ldconf_load(ctx->root, "/etc/ld.so.conf", &conf, NULL) == 0)
			for (size_t i = 0; i < conf.ndirs; i++)
				libscan_dirs_add(ctx, ds, conf.dirs[i], "cache", "ld.so.conf");
		ldconf_release(&conf);
	}
}

/* glibc's own libraries and the driver's are not this layer's to judge. */
static int ignored_dep(const char *so)
{
	static const char *const names[] = {
		"libc.so.", "libm.so.", "libdl.so.", "libpthread.so.", "librt.so.",
		"libutil.so.", "libresolv.so.", "libanl.so.", "ld-linux", "ld64.so",
		"libcuda.so.", "libnvidia-ml.so.", NULL
	};

	for (int i = 0; names[i]; i++)
		if (strncmp(so, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static struct lib_resolved *resolved_add(struct libraries_inventory *li, const char *so,
					 const char *family)
{
	struct lib_resolved *r;

	for (size_t i = 0; i < li->nresolved; i++)
		if (strcmp(li->resolved[i].soname, so) == 0)
			return NULL;
	XGROW(li->resolved, li->nresolved, li->resolved_cap);
	r = &li->resolved[li->nresolved++];
	memset(r, 0, sizeof(*r));
	r->soname = xstrdup(so);
	r->family = family;
	return r;
}

static void resolve_one(struct ldso *l, const char *so, const char *const *chain, size_t n,
			struct lib_resolved *out)
{
	struct ldso_result r = LDSO_RESULT_INIT;
	struct err e = ERR_INIT;

	if (ldso_resolve(l, so, chain, n, &r, &e) == 0 && r.path) {
		out->path = xstrdup(r.path);
		out->realpath = xstrdup(r.realpath ? r.realpath : r.path);
		out->source = ldso_source_id(r.source);
		out->via = r.source;
		out->from = xstrdup_or_null(r.from);
	}
	for (size_t i = 0; i < r.ncands; i++) {
		if (!r.cands[i].rejected)
			continue;
		out->passed_over = xrealloc(out->passed_over,
					    (out->npassed_over + 1) * sizeof(char *));
		out->passed_over[out->npassed_over++] =
			xasprintf("%s: %s", r.cands[i].path, r.cands[i].rejected);
	}
	ldso_result_release(&r);
}

static void resolve_sonames(struct libraries_inventory *li, struct libscan_loader *ld)
{
	size_t nf;
	const struct lib_family *fams = libscan_families(&nf);

	for (size_t i = 0; i < li->n; i++) {
		struct lib_resolved *r = resolved_add(li, li->copies[i].soname,
						      li->copies[i].family);

		if (r)
			resolve_one(ld->main, r->soname, NULL, 0, r);
	}
	for (size_t f = 0; f < nf; f++) {
		for (int k = 0; fams[f].sonames[k]; k++) {
			struct lib_resolved *r = resolved_add(li, fams[f].sonames[k], fams[f].name);

			if (r)
				resolve_one(ld->main, r->soname, NULL, 0, r);
		}
	}
}

static int in_llp(const struct libscan_loader *ld, const struct gd_ctx *ctx, const char *dir)
{
	struct buf r = BUF_INIT;
	int hit = 0;

	if (fs_resolve(ctx->root, dir, &r, NULL) < 0) {
		buf_reset(&r);
		buf_puts(&r, dir);
	}
	for (size_t i = 0; i < ld->nllp && !hit; i++)
		hit = strcmp(ld->llp_dirs[i], r.s) == 0;
	buf_release(&r);
	return hit;
}

static void mark_winners(const struct gd_ctx *ctx, struct libraries_inventory *li,
			 struct libscan_loader *ld)
{
	for (size_t i = 0; i < li->n; i++) {
		struct lib_copy *c = &li->copies[i];
		const struct lib_resolved *r = libraries_resolved(li, c->soname);

		c->winner = r && r->realpath && strcmp(r->realpath, c->realpath) == 0;
		if (in_llp(ld, ctx, c->dir)) {
			c->reachable_as = "ld-library-path";
		} else if (c->winner && (r->via == LDSO_CACHE || r->via == LDSO_DEFAULT_DIR)) {
			c->reachable_as = r->source;
		} else if (ld->nollp) {
			struct lib_resolved tmp;

			memset(&tmp, 0, sizeof(tmp));
			resolve_one(ld->nollp, c->soname, NULL, 0, &tmp);
			if (tmp.realpath && strcmp(tmp.realpath, c->realpath) == 0)
				c->reachable_as = tmp.source;
			free(tmp.path);
			free(tmp.realpath);
			free(tmp.from);
			for (size_t k = 0; k < tmp.npassed_over; k++)
				free(tmp.passed_over[k]);
			free(tmp.passed_over);
		}
	}
}

static void add_missing(struct lib_copy *c, const char *so)
{
	c->missing_deps = xrealloc(c->missing_deps, (c->nmissing_deps + 1) * sizeof(char *));
	c->missing_deps[c->nmissing_deps++] = xstrdup(so);
}

static int dep_found(struct ldso *l, const char *so, const char *requester)
{
	struct ldso_result r = LDSO_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *chain[] = { requester };
	int found;

	/* an internal error is not a missing library */
	if (ldso_resolve(l, so, chain, 1, &r, &e) < 0)
		return -1;
	found = r.path != NULL;
	ldso_result_release(&r);
	return found;
}

static void check_deps(struct libraries_inventory *li, struct libscan_loader *ld)
{
	const char *llp = ld->llp;
	/* copies come grouped by directory: one extra ldso per directory */
	struct ldso *own = NULL;
	char *own_dir = NULL;
	char *own_llp = NULL;	/* ldso keeps the pointer: lives as long as own */

	for (size_t i = 0; i < li->n; i++) {
		struct lib_copy *c = &li->copies[i];
		struct ldso *l = ld->main;

		if (c->elf_problem != 0 || !c->nneeded)
			continue;
		if (!c->winner) {
			if (!own_dir || strcmp(own_dir, c->dir) != 0) {
				loader_free(own);
				free(own_llp);
				free(own_dir);
				own_dir = xstrdup(c->dir);
				own_llp = llp && llp[0] ? xasprintf("%s:%s", c->dir, llp) :
					  xstrdup(c->dir);
				own = loader_new(ld->base, own_llp);
			}
			if (own)
				l = own;
		}
		c->deps_checked_exact = l == ld->main;
		for (size_t k = 0; k < c->nneeded; k++)
			if (!ignored_dep(c->needed[k]) && dep_found(l, c->needed[k], c->realpath) == 0)
				add_missing(c, c->needed[k]);
	}
	loader_free(own);
	free(own_llp);
	free(own_dir);
}

static void cudnn_subs(struct libraries_inventory *li, struct libscan_loader *ld)
{
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		const char *subs[16];
		size_t ns;

		if (strcmp(c->family, "cudnn") != 0 || c->elf_problem != 0 ||
		    strcmp(c->soname, "libcudnn.so.9") != 0)
			continue;
		ns = libscan_cudnn9_subs(c->version, subs, 16);
		for (size_t k = 0; k < ns; k++) {
			struct lib_resolved r;
			struct lib_cudnn_sub *s;
			/* the real file: its $ORIGIN is where the bytes live, and a
			 * link path could lead outside a fixture root */
			const char *chain[] = { c->realpath };
			struct version v;

			memset(&r, 0, sizeof(r));
			/* the shim asks for the full version's name first */
			if (c->version && version_parse(c->version, &v) == 0 && v.n >= 3) {
				char *full = xasprintf("libcudnn_%s.so.%ld.%ld.%ld", subs[k],
						       v.part[0], v.part[1], v.part[2]);

				resolve_one(ld->main, full, chain, 1, &r);
				free(full);
			}
			if (!r.path) {
				char *so = xasprintf("libcudnn_%s.so.9", subs[k]);

				for (size_t q = 0; q < r.npassed_over; q++)
					free(r.passed_over[q]);
				free(r.passed_over);
				memset(&r, 0, sizeof(r));
				resolve_one(ld->main, so, chain, 1, &r);
				free(so);
			}
			XGROW(li->cudnn_subs, li->ncudnn_subs, li->cudnn_subs_cap);
			s = &li->cudnn_subs[li->ncudnn_subs++];
			memset(s, 0, sizeof(*s));
			s->shim = xstrdup(c->path);
			s->shim_version = xstrdup_or_null(c->version);
			s->sub = subs[k];
			s->soname = xasprintf("libcudnn_%s.so.9", subs[k]);
			s->path = r.path;
			s->source = r.source;
			s->via = r.via;
			if (r.realpath) {
				const struct lib_copy *sc = libraries_copy_by_realpath(li, r.realpath);

				if (sc)
					s->version = xstrdup_or_null(sc->version);
			}
			free(r.realpath);
			free(r.from);
			for (size_t q = 0; q < r.npassed_over; q++)
				free(r.passed_over[q]);
			free(r.passed_over);
		}
	}
}

void libscan_resolve(const struct gd_ctx *ctx, struct libraries_inventory *li,
		     struct libscan_loader *ld)
{
	if (!ld->main)
		return;
	resolve_sonames(li, ld);
	mark_winners(ctx, li, ld);
	check_deps(li, ld);
	cudnn_subs(li, ld);
}
