/*
 * libscan_dirs.c - the directories where copies of the CUDA libraries live.
 *
 * Listed, each once by resolved path, in this order (the first listing of a
 * directory gives its origin and owner):
 *   toolkits   /usr/local/cuda and /usr/local/cuda-*: lib64, lib, targets/X/lib
 *   wheels     <site>/nvidia/<component>/lib of every Python environment
 *              (probe_in's Python environments; nvidia/cu13/lib is one of them)
 *   conda      <prefix>/lib of conda environments (from the same discovery)
 *              and $CONDA_PREFIX/lib
 *   opt        /opt/X/lib, /opt/X/lib64, /opt/X/Y/lib (two levels, no deeper)
 *   system     the loader's default directories and /usr/local/lib
 *   LD_LIBRARY_PATH entries
 * The directories ld.so.cache names for the sonames of interest are added
 * later by libraries.c from the loader's answers (origin "cache").
 * Nothing is walked recursively: every place is a fixed pattern.
 */
#include "probes/libraries/libscan.h"
#include "probes/probe_in.h"

#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "inventory/inventory.h"

#include <stdlib.h>
#include <string.h>

static const char *const system_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	NULL
};

long libscan_dirs_add(const struct gd_ctx *ctx, struct libscan_dirs *ds, const char *path,
		      const char *origin, const char *owner)
{
	struct buf real = BUF_INIT;
	struct libscan_dir *d;

	if (!path || path[0] != '/')
		return -1;
	if (fs_resolve(ctx->root, path, &real, NULL) < 0 || !fs_is_dir(ctx->root, real.s)) {
		buf_release(&real);
		return -1;
	}
	{
		size_t at;

		if (strmap_get(&ds->by_real, real.s, &at)) {
			buf_release(&real);
			return (long)at;
		}
	}
	XGROW(ds->d, ds->n, ds->cap);
	d = &ds->d[ds->n];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	d->real = buf_detach(&real);
	d->origin = origin;
	d->owner = xstrdup_or_null(owner);
	strmap_put(&ds->by_real, d->real, ds->n);
	return (long)ds->n++;
}

void libscan_dirs_release(struct libscan_dirs *ds)
{
	for (size_t i = 0; i < ds->n; i++) {
		free(ds->d[i].path);
		free(ds->d[i].real);
		free(ds->d[i].owner);
		free(ds->d[i].site);
		free(ds->d[i].toolkit);
	}
	free(ds->d);
	strmap_release(&ds->by_real);
	memset(ds, 0, sizeof(*ds));
}

static void add_toolkit_record(const struct gd_ctx *ctx, struct libraries_inventory *li,
			       const char *path, const char *real)
{
	struct lib_toolkit *t;

	for (size_t i = 0; i < li->ntoolkits; i++)
		if (strcmp(li->toolkits[i].realpath, real) == 0)
			return;
	XGROW(li->toolkits, li->ntoolkits, li->toolkits_cap);
	t = &li->toolkits[li->ntoolkits++];
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	t->realpath = xstrdup(real);
	libversion_toolkit(ctx, real, &t->version, &t->version_source);
}

/* One toolkit dir: its lib dirs, tagged with the toolkit's resolved path. */
static void add_toolkit(const struct gd_ctx *ctx, struct inventory *inv, struct libscan_dirs *ds,
			const char *tk, const char *active_real)
{
	static const char *const subs[] = { "lib64", "lib", NULL };
	struct buf real = BUF_INIT;
	char **names = NULL, *owner, *targets;
	size_t n = 0;

	if (fs_resolve(ctx->root, tk, &real, NULL) < 0 || !fs_is_dir(ctx->root, real.s)) {
		buf_release(&real);
		return;
	}
	add_toolkit_record(ctx, &inv->libs, tk, real.s);
	owner = xasprintf("toolkit %s", real.s);
	for (int i = 0; subs[i]; i++) {
		char *p = fs_join(tk, subs[i]);
		long k = libscan_dirs_add(ctx, ds, p, "toolkit", owner);

		if (k >= 0 && !ds->d[k].toolkit) {
			ds->d[k].toolkit = xstrdup(real.s);
			ds->d[k].in_active = active_real && strcmp(active_real, real.s) == 0;
		}
		free(p);
	}
	targets = fs_join(real.s, "targets");
	if (libscan_list(ctx, targets, &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *t = fs_join(targets, names[i]);
			char *p = fs_join(t, "lib");
			long k = libscan_dirs_add(ctx, ds, p, "toolkit", owner);

			if (k >= 0 && !ds->d[k].toolkit) {
				ds->d[k].toolkit = xstrdup(real.s);
				ds->d[k].in_active = active_real && strcmp(active_real, real.s) == 0;
			}
			free(p);
			free(t);
		}
		fs_names_free(names, n);
	}
	free(targets);
	free(owner);
	buf_release(&real);
}

static void collect_toolkits(const struct gd_ctx *ctx, struct inventory *inv,
			     struct libscan_dirs *ds)
{
	struct buf active = BUF_INIT;
	char **names = NULL;
	size_t n = 0;
	const char *act = NULL;

	if (fs_resolve(ctx->root, "/usr/local/cuda", &active, NULL) == 0)
		act = active.s;
	add_toolkit(ctx, inv, ds, "/usr/local/cuda", act);
	if (libscan_list(ctx, "/usr/local", &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (strncmp(names[i], "cuda-", 5) == 0) {
				char *p = fs_join("/usr/local", names[i]);

				add_toolkit(ctx, inv, ds, p, act);
				free(p);
			}
		}
		fs_names_free(names, n);
	}
	buf_release(&active);
}

static void collect_wheels(const struct gd_ctx *ctx, const struct pyenv_list *envs,
			   struct libscan_dirs *ds)
{

	for (size_t i = 0; i < envs->n; i++) {
		const struct pyenv *pe = &envs->envs[i];

		for (size_t s = 0; s < pe->nsite; s++) {
			char *nv = fs_join(pe->site_dirs[s], "nvidia");
			char **names = NULL;
			size_t n = 0;

			if (libscan_list(ctx, nv, &names, &n, NULL) == 0) {
				for (size_t k = 0; k < n; k++) {
					char *comp = fs_join(nv, names[k]);
					char *lib = fs_join(comp, "lib");
					long idx = libscan_dirs_add(ctx, ds, lib, "wheel", NULL);

					if (idx >= 0 && !ds->d[idx].site) {
						ds->d[idx].site = xstrdup(pe->site_dirs[s]);
						ds->d[idx].in_active = pe->active;
					}
					free(lib);
					free(comp);
				}
				fs_names_free(names, n);
			}
			free(nv);
		}
	}
}

static void collect_conda(const struct gd_ctx *ctx, const struct pyenv_list *envs,
			  const char *cp, struct libscan_dirs *ds)
{

	if (cp && cp[0] == '/') {
		char *lib = fs_join(cp, "lib");
		char *owner = xasprintf("conda %s", cp);
		long k = libscan_dirs_add(ctx, ds, lib, "conda", owner);

		if (k >= 0)
			ds->d[k].in_active = 1;
		free(owner);
		free(lib);
	}
	for (size_t i = 0; i < envs->n; i++) {
		const struct pyenv *pe = &envs->envs[i];
		char *lib, *owner;
		long k;

		if (!pe->kind || strcmp(pe->kind, "conda") != 0 || !pe->prefix)
			continue;
		lib = fs_join(pe->prefix, "lib");
		owner = xasprintf("conda %s", pe->prefix);
		k = libscan_dirs_add(ctx, ds, lib, "conda", owner);
		if (k >= 0 && pe->active)
			ds->d[k].in_active = 1;
		free(owner);
		free(lib);
	}
}

/* /opt/X/lib, /opt/X/lib64, /opt/X/Y/lib: bounded, no recursion. */
static void collect_opt(const struct gd_ctx *ctx, struct libscan_dirs *ds)
{
	char **names = NULL;
	size_t n = 0;

	if (libscan_list(ctx, "/opt", &names, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n && i < 64; i++) {
		char *top = fs_join("/opt", names[i]);
		char **sub = NULL;
		size_t ns = 0;
		static const char *const libs[] = { "lib", "lib64", NULL };

		for (int l = 0; libs[l]; l++) {
			char *p = fs_join(top, libs[l]);

			libscan_dirs_add(ctx, ds, p, "opt", top);
			free(p);
		}
		if (libscan_list(ctx, top, &sub, &ns, NULL) == 0) {
			for (size_t k = 0; k < ns && k < 64; k++) {
				char *mid, *p;

				if (sub[k][0] == '.' && strcmp(sub[k], ".venv") != 0)
					continue;
				mid = fs_join(top, sub[k]);
				p = fs_join(mid, "lib");
				libscan_dirs_add(ctx, ds, p, "opt", top);
				free(p);
				free(mid);
			}
			fs_names_free(sub, ns);
		}
		free(top);
	}
	fs_names_free(names, n);
}

static void collect_system(const struct gd_ctx *ctx, struct libscan_dirs *ds)
{
	for (int i = 0; system_dirs[i]; i++)
		libscan_dirs_add(ctx, ds, system_dirs[i], "system", "system");
}

static void collect_llp(const struct gd_ctx *ctx, const char *llp, struct libscan_dirs *ds)
{
	char *copy, *save = NULL;

	if (!llp)
		return;
	copy = xstrdup(llp);
	for (char *t = strtok_r(copy, ":;", &save); t; t = strtok_r(NULL, ":;", &save))
		libscan_dirs_add(ctx, ds, t, "ld-library-path", "LD_LIBRARY_PATH");
	free(copy);
}

void libscan_dirs_collect(const struct probe_in *in, struct inventory *inv,
			  struct libscan_dirs *out)
{
	const struct gd_ctx *ctx = in->ctx;

	collect_toolkits(ctx, inv, out);
	collect_wheels(ctx, &in->pyenvs, out);
	collect_conda(ctx, &in->pyenvs, in->env.conda_prefix, out);
	collect_opt(ctx, out);
	collect_system(ctx, out);
	collect_llp(ctx, in->env.ld_library_path, out);
}
