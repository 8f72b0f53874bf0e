/*
 * pyenv.c - Python environment discovery without running an interpreter.
 *
 * Candidates come from the environment (VIRTUAL_ENV, CONDA_PREFIX, PATH,
 * HOME), the command line (--python, --site-packages) and a short list of
 * well-known prefixes.  Each candidate prefix is resolved inside the root and
 * listed once; its site directories are found with one directory listing of
 * <prefix>/lib (and lib64), never a deep walk, so the whole discovery costs a
 * few dozen stat() calls.
 */
#include "python/pyenv.h"

#include "core/buf.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Well-known conda installs, relative to / and to $HOME. */
static const char *const conda_roots[] = {
	"/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3",
	"/opt/mambaforge", "/usr/local/miniconda3", "/usr/local/anaconda3",
	NULL
};
static const char *const conda_home_roots[] = {
	"miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", ".conda",
	NULL
};

static void pyenv_add_site(struct pyenv *p, const char *root, const char *dir)
{
	struct buf r = BUF_INIT;
	struct err e = ERR_INIT;
	const char *key;

	/* Compare resolved paths so that lib64 -> lib links count once. */
	key = fs_resolve(root, dir, &r, &e) == 0 ? r.s : dir;
	for (size_t i = 0; i < p->nsite; i++) {
		struct buf o = BUF_INIT;
		int same;

		if (fs_resolve(root, p->site_dirs[i], &o, NULL) < 0)
			buf_puts(&o, p->site_dirs[i]);
		same = strcmp(o.s, key) == 0;
		buf_release(&o);
		if (same) {
			buf_release(&r);
			return;
		}
	}
	buf_release(&r);
	XGROW(p->site_dirs, p->nsite + 1, p->site_cap);
	p->site_dirs[p->nsite++] = xstrdup(dir);
}

/* "python3.11" -> 1 when the name is a versioned python3 directory. */
static int pyenv_is_pydir(const char *name)
{
	const char *s;

	if (strncmp(name, "python3.", 8) != 0 || !name[8])
		return 0;
	for (s = name + 8; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Add <prefix>/<lib>/python3.*\/{site,dist}-packages and python3/dist-packages. */
static void pyenv_scan_lib(struct pyenv *p, const char *root, const char *prefix,
			   const char *lib)
{
	char *libdir = fs_join(prefix, lib);
	char **names = NULL;
	size_t n = 0;

	if (fs_list_dir(root, libdir, &names, &n, NULL) == 0) {
		/* Newest first: the interpreter a user reaches for is the newest. */
		for (size_t i = n; i-- > 0;) {
			const char *sub[] = { "site-packages", "dist-packages" };

			if (!pyenv_is_pydir(names[i]) && strcmp(names[i], "python3") != 0)
				continue;
			for (size_t k = 0; k < 2; k++) {
				char *d = xasprintf("%s/%s/%s", libdir, names[i], sub[k]);

				if (fs_is_dir(root, d)) {
					pyenv_add_site(p, root, d);
					if (!p->python_version && pyenv_is_pydir(names[i]))
						p->python_version = xstrdup(names[i] + 6);
				}
				free(d);
			}
		}
		/* Debian's /usr has python3/dist-packages: the version is the stdlib's dir. */
		for (size_t i = n; p->nsite && !p->python_version && i-- > 0;)
			if (pyenv_is_pydir(names[i]))
				p->python_version = xstrdup(names[i] + 6);
		fs_names_free(names, n);
	}
	free(libdir);
}

static void pyenv_scan_prefix(struct pyenv *p, const char *root)
{
	pyenv_scan_lib(p, root, p->prefix, "lib");
	pyenv_scan_lib(p, root, p->prefix, "lib64");
}

/* "3.11.4" -> "3.11". */
static char *pyenv_major_minor(const char *v)
{
	const char *dot = strchr(v, '.');
	size_t n;

	if (!dot)
		return xstrdup(v);
	dot = strchr(dot + 1, '.');
	n = dot ? (size_t)(dot - v) : strlen(v);
	return xstrndup(v, n);
}

static char *pyenv_cfg_get(const char *text, const char *key);

/* A venv's base interpreter from pyvenv.cfg's `home` (the directory of the
 * interpreter the venv was made from): home/python3.X, else home/python3. */
static char *pyenv_base_python(const char *root, const char *cfg, const char *version)
{
	char *home = pyenv_cfg_get(cfg, "home"), *out = NULL;

	if (home && home[0] == '/') {
		char *names[2];

		names[0] = version ? xasprintf("python%s", version) : NULL;
		names[1] = xstrdup("python3");
		for (int i = 0; i < 2 && !out; i++) {
			char *c = names[i] ? fs_join(home, names[i]) : NULL;

			if (c && fs_exists(root, c))
				out = c;
			else
				free(c);
		}
		free(names[0]);
		free(names[1]);
	}
	free(home);
	return out;
}

/* Value of "key = value" in a pyvenv.cfg text, or NULL. */
static char *pyenv_cfg_get(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		const char *s = line;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		while (s < line + len && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(line + len - s) > klen && strncmp(s, key, klen) == 0) {
			const char *v = s + klen;

			while (v < line + len && (*v == ' ' || *v == '\t'))
				v++;
			if (v < line + len && *v == '=') {
				const char *ve = line + len;

				v++;
				while (v < ve && (*v == ' ' || *v == '\t'))
					v++;
				while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
					ve--;
				return xstrndup(v, (size_t)(ve - v));
			}
		}
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The directory part of an absolute path ("/a/b" -> "/a", "/a" -> "/"). */
static char *pyenv_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static void pyenv_free_one(struct pyenv *p)
{
	free(p->prefix);
	free(p->python);
	free(p->python_version);
	free(p->base_python);
	for (size_t i = 0; i < p->nsite; i++)
		free(p->site_dirs[i]);
	free(p->site_dirs);
	memset(p, 0, sizeof(*p));
}

struct pyenv_seen {
	char **keys;		/* resolved prefixes (or site dir for "given" site dirs) */
	size_t n, cap;
};

static int pyenv_seen_add(struct pyenv_seen *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return 0;
	XGROW(s->keys, s->n + 1, s->cap);
	s->keys[s->n++] = xstrdup(key);
	return 1;
}

/*
 * Add the environment at prefix unless its resolved prefix is known.
 * A prefix without any site directory is dropped (not a Python prefix).
 */
static void pyenv_add(const char *root, struct pyenv_list *out, struct pyenv_seen *seen,
		      const char *prefix, const char *kind, int active, const char *python)
{
	struct buf r = BUF_INIT, cfg = BUF_INIT;
	struct pyenv p;
	char *cfgpath;

	if (!prefix || prefix[0] != '/')
		return;
	if (fs_resolve(root, prefix, &r, NULL) < 0 || !fs_is_dir(root, r.s)) {
		buf_release(&r);
		return;
	}
	if (!pyenv_seen_add(seen, r.s)) {
		/* Already listed: an active environment seen again is still active. */
		for (size_t i = 0; active && i < out->n; i++) {
			struct buf o = BUF_INIT;

			if (fs_resolve(root, out->envs[i].prefix, &o, NULL) == 0 &&
			    strcmp(o.s, r.s) == 0)
				out->envs[i].active = 1;
			buf_release(&o);
		}
		buf_release(&r);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.prefix = xstrdup(prefix);
	p.kind = kind;
	p.active = active;

	cfgpath = fs_join(prefix, "pyvenv.cfg");
	if (fs_read_file(root, cfgpath, 64 * 1024, &cfg, NULL) == 0) {
		char *v = pyenv_cfg_get(cfg.s, "version_info");

		if (!v)
			v = pyenv_cfg_get(cfg.s, "version");
		p.kind = "venv";
		if (v) {
			p.python_version = pyenv_major_minor(v);
			free(v);
		}
		p.base_python = pyenv_base_python(root, cfg.s, p.python_version);
	} else {
		char *meta = fs_join(prefix, "conda-meta");

		if (fs_is_dir(root, meta))
			p.kind = "conda";
		free(meta);
	}
	free(cfgpath);

	pyenv_scan_prefix(&p, root);
	if (cfg.len) {
		/* include-system-site-packages: the base's site dirs come after ours. */
		char *inc = pyenv_cfg_get(cfg.s, "include-system-site-packages");
		char *home = pyenv_cfg_get(cfg.s, "home");

		if (inc && home && home[0] == '/' && strcasecmp(inc, "true") == 0) {
			struct pyenv base;
			char *bp = pyenv_dirname(home);

			memset(&base, 0, sizeof(base));
			base.prefix = bp;
			pyenv_scan_prefix(&base, root);
			for (size_t i = 0; i < base.nsite; i++)
				pyenv_add_site(&p, root, base.site_dirs[i]);
			if (!p.python_version && base.python_version)
				p.python_version = xstrdup(base.python_version);
			pyenv_free_one(&base);
		}
		free(inc);
		free(home);
	}
	buf_release(&cfg);

	if (p.nsite == 0) {
		pyenv_free_one(&p);
		buf_release(&r);
		return;
	}
	if (python) {
		p.python = xstrdup(python);
	} else {
		const char *names[] = { "bin/python3", "bin/python" };

		for (size_t i = 0; i < 2 && !p.python; i++) {
			char *c = fs_join(prefix, names[i]);

			if (fs_exists(root, c))
				p.python = c;
			else
				free(c);
		}
	}
	XGROW(out->envs, out->n + 1, out->cap);
	out->envs[out->n++] = p;
	buf_release(&r);
}

/*
 * The prefix of an interpreter path, as Python computes it: a venv when
 * pyvenv.cfg sits next to bin/ (the link is not followed), else the
 * resolved executable's ../.
 */
static char *pyenv_prefix_of_python(const char *root, const char *python)
{
	char *bin = pyenv_dirname(python);
	char *prefix = pyenv_dirname(bin);
	char *cfg = fs_join(prefix, "pyvenv.cfg");
	struct buf r = BUF_INIT;

	free(bin);
	if (fs_exists(root, cfg)) {
		free(cfg);
		return prefix;
	}
	free(cfg);
	free(prefix);
	if (fs_resolve(root, python, &r, NULL) < 0) {
		buf_release(&r);
		return NULL;
	}
	bin = pyenv_dirname(r.s);
	prefix = pyenv_dirname(bin);
	free(bin);
	buf_release(&r);
	return prefix;
}

static void pyenv_add_python(const char *root, struct pyenv_list *out, struct pyenv_seen *seen,
			     const char *python, const char *kind)
{
	char *prefix;

	if (!python || python[0] != '/' || !fs_exists(root, python))
		return;
	prefix = pyenv_prefix_of_python(root, python);
	if (prefix)
		pyenv_add(root, out, seen, prefix, kind, 0, python);
	free(prefix);
}

/* A --site-packages DIR: its own environment of kind "given". */
static void pyenv_add_site_given(const char *root, struct pyenv_list *out,
				 struct pyenv_seen *seen, const char *dir)
{
	struct buf r = BUF_INIT;
	struct pyenv p;
	const char *py;

	if (!dir || dir[0] != '/' || fs_resolve(root, dir, &r, NULL) < 0 ||
	    !fs_is_dir(root, r.s)) {
		buf_release(&r);
		return;
	}
	for (size_t i = 0; i < out->n; i++)
		for (size_t k = 0; k < out->envs[i].nsite; k++) {
			struct buf o = BUF_INIT;
			int same = fs_resolve(root, out->envs[i].site_dirs[k], &o, NULL) == 0 &&
				   strcmp(o.s, r.s) == 0;

			buf_release(&o);
			if (same) {
				buf_release(&r);
				return;
			}
		}
	(void)seen;
	memset(&p, 0, sizeof(p));
	p.prefix = xstrdup(dir);
	p.kind = "given";
	/* .../lib/python3.11/site-packages tells its version. */
	py = strstr(dir, "/python3.");
	if (py) {
		size_t n = 0;

		py += 1;
		while (py[8 + n] >= '0' && py[8 + n] <= '9')
			n++;
		if (n)
			p.python_version = xstrndup(py + 6, 2 + n);
	}
	XGROW(p.site_dirs, 1, p.site_cap);
	p.site_dirs[p.nsite++] = xstrdup(dir);
	XGROW(out->envs, out->n + 1, out->cap);
	out->envs[out->n++] = p;
	buf_release(&r);
}

static void pyenv_add_conda_install(const char *root, struct pyenv_list *out,
				    struct pyenv_seen *seen, const char *base)
{
	char *envs = fs_join(base, "envs");
	char **names = NULL;
	size_t n = 0;

	pyenv_add(root, out, seen, base, "conda", 0, NULL);
	if (fs_list_dir(root, envs, &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *p = fs_join(envs, names[i]);

			pyenv_add(root, out, seen, p, "conda", 0, NULL);
			free(p);
		}
		fs_names_free(names, n);
	}
	free(envs);
}

int pyenv_discover(const struct gd_ctx *ctx, struct pyenv_list *out, struct err *e)
{
	const char *root = ctx->root;
	struct pyenv_seen seen = { NULL, 0, 0 };
	const char *venv = getenv("VIRTUAL_ENV");
	const char *conda = getenv("CONDA_PREFIX");
	const char *path = getenv("PATH");
	const char *home = getenv("HOME");
	/* The wheel's entry point names the interpreter that ran it, so
	 * ~/venv/bin/gpudoctor inspects ~/venv without activating it. */
	const char *wheel_python = getenv("GPUDOCTOR_PYTHON");

	(void)e;
	out->envs = NULL;
	out->n = out->cap = 0;

	/* 1. the active environments */
	if (venv && *venv)
		pyenv_add(root, out, &seen, venv, "venv", 1, NULL);
	if (conda && *conda)
		pyenv_add(root, out, &seen, conda, "conda", 1, NULL);
	/* 2. what the user named */
	for (size_t i = 0; i < ctx->npython_paths; i++)
		pyenv_add_python(root, out, &seen, ctx->python_paths[i], "given");
	if (wheel_python && wheel_python[0] == '/')
		pyenv_add_python(root, out, &seen, wheel_python, "given");
	/* 3. interpreters on PATH */
	if (path) {
		char *copy = xstrdup(path), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *py;

			if (d[0] != '/')
				continue;
			py = fs_join(d, "python3");
			pyenv_add_python(root, out, &seen, py, "system");
			free(py);
		}
		free(copy);
	}
	/* 4. the system prefixes and the user's site */
	pyenv_add(root, out, &seen, "/usr/local", "system", 0, NULL);
	pyenv_add(root, out, &seen, "/usr", "system", 0, NULL);
	if (home && home[0] == '/') {
		char *local = fs_join(home, ".local");

		pyenv_add(root, out, &seen, local, "user", 0, NULL);
		free(local);
	}
	/* 5. conda installs and their envs */
	for (size_t i = 0; conda_roots[i]; i++)
		pyenv_add_conda_install(root, out, &seen, conda_roots[i]);
	for (size_t i = 0; home && home[0] == '/' && conda_home_roots[i]; i++) {
		char *b = fs_join(home, conda_home_roots[i]);

		pyenv_add_conda_install(root, out, &seen, b);
		free(b);
	}
	/* 6. --site-packages, unless a known environment has it already */
	for (size_t i = 0; i < ctx->nsite_dirs; i++)
		pyenv_add_site_given(root, out, &seen, ctx->site_dirs[i]);

	for (size_t i = 0; i < seen.n; i++)
		free(seen.keys[i]);
	free(seen.keys);
	return 0;
}

void pyenv_list_copy(struct pyenv_list *dst, const struct pyenv_list *src)
{
	dst->envs = src->n ? xcalloc(src->n, sizeof(*dst->envs)) : NULL;
	dst->n = dst->cap = src->n;
	for (size_t i = 0; i < src->n; i++) {
		const struct pyenv *s = &src->envs[i];
		struct pyenv *d = &dst->envs[i];

		d->prefix = xstrdup_or_null(s->prefix);
		d->kind = s->kind;
		d->python = xstrdup_or_null(s->python);
		d->python_version = xstrdup_or_null(s->python_version);
		d->base_python = xstrdup_or_null(s->base_python);
		d->site_dirs = s->nsite ? xcalloc(s->nsite, sizeof(char *)) : NULL;
		d->nsite = d->site_cap = s->nsite;
		for (size_t k = 0; k < s->nsite; k++)
			d->site_dirs[k] = xstrdup_or_null(s->site_dirs[k]);
		d->active = s->active;
	}
}

void pyenv_list_release(struct pyenv_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		pyenv_free_one(&l->envs[i]);
	free(l->envs);
	l->envs = NULL;
	l->n = l->cap = 0;
}
