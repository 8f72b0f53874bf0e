/*
 * ldso.c - the search of glibc's _dl_map_object (elf/dl-load.c), step by
 * step, for one soname requested by one object.  See ldso.h for the order
 * and docs/loader.md for the rules and their sources.
 */
#include "loader/ldso.h"
#include "loader/elf.h"
#include "loader/ldcache.h"
#include "loader/ldso_priv.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/strmap.h"
#include "core/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ldso_source_name(enum ldso_source s)
{
	switch (s) {
	case LDSO_NONE: return "not found";
	case LDSO_PATH: return "path";
	case LDSO_RPATH: return "RPATH";
	case LDSO_LD_LIBRARY_PATH: return "LD_LIBRARY_PATH";
	case LDSO_RUNPATH: return "RUNPATH";
	case LDSO_CACHE: return "ld.so.cache";
	case LDSO_DEFAULT_DIR: return "default directory";
	case LDSO_ALREADY_LOADED: return "already loaded";
	case LDSO_PRELOAD: return "preloaded";
	}
	return "unknown";
}

const char *ldso_source_id(enum ldso_source s)
{
	switch (s) {
	case LDSO_NONE: return NULL;
	case LDSO_PATH: return "path";
	case LDSO_RPATH: return "rpath";
	case LDSO_LD_LIBRARY_PATH: return "ld-library-path";
	case LDSO_RUNPATH: return "runpath";
	case LDSO_CACHE: return "cache";
	case LDSO_DEFAULT_DIR: return "default";
	case LDSO_ALREADY_LOADED: return "already-loaded";
	case LDSO_PRELOAD: return "preload";
	}
	return NULL;
}

/* ---- requesters: RPATH, RUNPATH, flags, $ORIGIN, read once ---- */

static const struct ldso_obj *obj_get_locked(struct ldso *l, const char *path)
{
	/* An array of pointers: what callers hold stays valid when it grows. */
	struct ldso_obj **objs, *o;
	struct buf host = BUF_INIT;
	struct elf_file ef;

	/* A derived loader (ldso_init_from) shares its base's memo. */
	if (l->base)
		l = l->base;
	objs = l->objs;

	for (size_t i = 0; i < l->nobjs; i++)
		if (!strcmp(objs[i]->path, path))
			return objs[i];
	XGROW(objs, l->nobjs, l->objs_cap);
	l->objs = objs;
	o = objs[l->nobjs++] = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->origin = ldso_origin(path, l->env.cwd);
	fs_path(l->env.root, path, &host);
	if (elf_open(host.s, &ef, NULL) == 0) {
		o->ok = 1;
		o->rpath = xstrdup_or_null(ef.rpath);
		o->runpath = xstrdup_or_null(ef.runpath);
		o->flags_1 = ef.flags_1;
		if (ef.interp) {
			/* A program started by the kernel: glibc takes $ORIGIN from
			 * /proc/self/exe, which has every symlink resolved. */
			struct buf rp = BUF_INIT;

			if (fs_resolve(l->env.root, path, &rp, NULL) == 0) {
				free(o->origin);
				o->origin = ldso_origin(rp.s, NULL);
			}
			buf_release(&rp);
		}
	}
	elf_close(&ef);
	buf_release(&host);
	return o;
}

const struct ldso_obj *ldso_obj_get(struct ldso *l, const char *path)
{
	const struct ldso_obj *o;

	ldso_memo_lock(l);
	o = obj_get_locked(l, path);
	ldso_memo_unlock(l);
	return o;
}

void ldso_objs_free(struct ldso *l)
{
	struct ldso_obj **objs = l->objs;

	for (size_t i = 0; i < l->nobjs; i++) {
		free(objs[i]->path);
		free(objs[i]->rpath);
		free(objs[i]->runpath);
		free(objs[i]->origin);
		free(objs[i]);
	}
	free(objs);
	l->objs = NULL;
	l->nobjs = l->objs_cap = 0;
}

/* ---- the result ---- */

static void add_cand(struct ldso_result *r, const char *path, enum ldso_source src,
		     const char *from, const char *rejected)
{
	struct ldso_candidate *c;

	XGROW(r->cands, r->ncands, r->cands_cap);
	c = &r->cands[r->ncands++];
	c->path = xstrdup(path);
	c->source = src;
	c->from = xstrdup_or_null(from);
	c->rejected = xstrdup_or_null(rejected);
}

static void add_dir(struct ldso_result *r, const char *dir, enum ldso_source src, const char *from)
{
	struct ldso_dir *d;

	XGROW(r->dirs, r->ndirs, r->dirs_cap);
	d = &r->dirs[r->ndirs++];
	d->dir = xstrdup(dir);
	d->source = src;
	d->from = xstrdup_or_null(from);
}

void ldso_result_release(struct ldso_result *r)
{
	for (size_t i = 0; i < r->ncands; i++) {
		free(r->cands[i].path);
		free(r->cands[i].from);
		free(r->cands[i].rejected);
	}
	for (size_t i = 0; i < r->ndirs; i++) {
		free(r->dirs[i].dir);
		free(r->dirs[i].from);
	}
	free(r->cands);
	free(r->dirs);
	free(r->path);
	free(r->realpath);
	free(r->from);
	free(r->load_error);
	free(r->soname);
	memset(r, 0, sizeof(*r));
}

/* ---- one file, as open_verify judges it ---- */

enum try_outcome { TRY_ABSENT, TRY_SKIP, TRY_FATAL, TRY_OK };

static enum try_outcome try_file(struct ldso *l, const char *path, enum ldso_source src,
				 const char *from, struct ldso_result *r)
{
	struct buf host = BUF_INIT;
	struct elf_file ef;
	struct err e = ERR_INIT;
	enum try_outcome out;
	char *why = NULL;
	int fd;

	fs_path(l->env.root, path, &host);
	fd = open(host.s, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;

		buf_release(&host);
		if (err == ENOENT || err == ENOTDIR)
			return TRY_ABSENT;
		why = xasprintf("cannot open: %s", strerror(err));
		add_cand(r, path, src, from, why);
		free(why);
		/* ld.so goes on after EACCES; other errors end this search list. */
		return TRY_SKIP;
	}
	close(fd);
	if (elf_open(host.s, &ef, &e) == 0) {
		if (ef.machine != l->machine) {
			why = xasprintf("wrong machine (e_machine %u): ld.so skips it", ef.machine);
			out = TRY_SKIP;
		} else {
			out = TRY_OK;
		}
	} else if (ef.problem == ELF_WRONG_CLASS) {
		why = xstrdup("wrong ELF class (32-bit): ld.so skips it");
		out = TRY_SKIP;
	} else if (ef.problem == ELF_WRONG_MACHINE && ef.elf_class == ELFCLASS64 &&
		   ef.machine != 0 && ef.machine != l->machine) {
		why = xasprintf("wrong machine (e_machine %u): ld.so skips it", ef.machine);
		out = TRY_SKIP;
	} else {
		/* open_verify's "lose" path: the load fails here, the search does not go on. */
		out = TRY_FATAL;
	}
	if (out == TRY_SKIP) {
		add_cand(r, path, src, from, why);
	} else {
		add_cand(r, path, src, from, NULL);
		free(r->path);
		r->path = xstrdup(path);
		r->source = src;
		free(r->from);
		r->from = xstrdup_or_null(from);
		r->bytes_read = ef.bytes_touched;
		free(r->soname);
		r->soname = out == TRY_OK ? xstrdup_or_null(ef.soname) : NULL;
		if (out == TRY_FATAL)
			r->load_error = xstrdup(e.msg);
	}
	free(why);
	elf_close(&ef);
	buf_release(&host);
	return out;
}

/*
 * try_file through the memo: a file is opened and its headers read once per
 * loader; later questions replay what it gave into their own result.
 */
static enum try_outcome try_file_memo(struct ldso *l, const char *path, enum ldso_source src,
				      const char *from, struct ldso_result *r)
{
	const struct ldso_file_memo *m = ldso_file_memo_get(l, path);
	struct ldso_file_memo put;
	enum try_outcome out;

	if (m) {
		out = (enum try_outcome)m->outcome;
		if (out == TRY_ABSENT)
			return out;
		add_cand(r, path, src, from, out == TRY_SKIP ? m->why : NULL);
		if (out == TRY_SKIP)
			return out;
		free(r->path);
		r->path = xstrdup(path);
		r->source = src;
		free(r->from);
		r->from = xstrdup_or_null(from);
		r->bytes_read = m->bytes_read;
		free(r->soname);
		r->soname = xstrdup_or_null(m->soname);
		if (m->load_error) {
			free(r->load_error);
			r->load_error = xstrdup(m->load_error);
		}
		return out;
	}
	out = try_file(l, path, src, from, r);
	memset(&put, 0, sizeof(put));
	put.outcome = out;
	if (out == TRY_SKIP && r->ncands)
		put.why = r->cands[r->ncands - 1].rejected;
	if (out == TRY_OK || out == TRY_FATAL) {
		put.soname = r->soname;
		put.load_error = out == TRY_FATAL ? r->load_error : NULL;
		put.bytes_read = r->bytes_read;
	}
	ldso_file_memo_put(l, path, &put);
	return out;
}

/* One directory with every capability subdir in front of it (open_path).
 * Subdirectories that do not exist are known once per directory
 * (ldso_dir_caps), as ld.so marks them "nonexisting"; hostdir (ncapstrs
 * entries, or NULL) keeps each subdirectory's host path for the lstat
 * fast path inside a tree. */
static enum try_outcome try_dir(struct ldso *l, const char *dir, const char *name,
				enum ldso_source src, const char *from, struct ldso_result *r,
				char **hostdir)
{
	const unsigned char *exists = ldso_dir_caps(l, dir);
	int in_tree = strcmp(l->env.root, "/") != 0 && !strchr(name, '/');

	add_dir(r, dir, src, from);
	for (size_t c = 0; c < l->ncapstrs; c++) {
		char *sub, *p;
		enum try_outcome t;

		if (!exists[c])
			continue;	/* as ld.so's "nonexisting" status */
		sub = l->capstrs[c][0] ? fs_join(dir, l->capstrs[c]) : xstrdup(dir);
		p = fs_join(sub, name);
		/* Inside a tree, a name absent from a directory resolved once is
		 * one lstat, as it is one open for ld.so; resolving every path
		 * component again for every soname made long lists slow.  A file
		 * already tried answers from the memo, whatever changed since. */
		if (hostdir && in_tree && !ldso_file_memo_get(l, p)) {
			struct buf hp = BUF_INIT;
			struct stat st;
			int absent;

			if (!hostdir[c])
				hostdir[c] = xstrdup(fs_path(l->env.root, sub, &hp) ? hp.s : "");
			buf_reset(&hp);
			buf_printf(&hp, "%s/%s", hostdir[c], name);
			absent = hostdir[c][0] && lstat(hp.s, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
			buf_release(&hp);
			if (absent) {
				free(sub);
				free(p);
				continue;
			}
		}
		t = try_file_memo(l, p, src, from, r);
		free(sub);
		free(p);
		if (t == TRY_OK || t == TRY_FATAL)
			return t;
	}
	return TRY_ABSENT;
}

static int same_key(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The list expanded and de-duplicated (fillin_rpath), built once per ldso. */
static const struct ldso_list *list_dirs(struct ldso *l, const char *list, const char *seps,
					 const char *origin)
{
	struct ldso_list *lists = l->lists, *out;
	struct strmap seen = STRMAP_INIT;
	char *copy, *rest, *tok;
	size_t cap = 0;

	for (size_t i = 0; i < l->nlists; i++)
		if (same_key(lists[i].list, list) && !strcmp(lists[i].seps, seps) &&
		    same_key(lists[i].origin, origin))
			return &lists[i];
	XGROW(lists, l->nlists, l->lists_cap);
	l->lists = lists;
	out = &lists[l->nlists++];
	memset(out, 0, sizeof(*out));
	out->list = xstrdup(list);
	out->seps = xstrdup(seps);
	out->origin = xstrdup_or_null(origin);
	copy = rest = xstrdup(list);
	while ((tok = strsep(&rest, seps)) != NULL) {
		char *d = tok[0] ? ldso_expand(l, tok, origin) : xstrdup("");
		size_t len;

		if (!d)
			continue;
		len = strlen(d);
		if (tok[0] && len == 0) {
			free(d);
			continue;
		}
		while (len > 1 && d[len - 1] == '/')
			d[--len] = '\0';
		if (d[0] != '/') {
			/* Relative entries (and an empty one: the current directory) are
			 * opened relative to the process's working directory. */
			char *abs;

			if (!l->env.cwd) {
				free(d);
				continue;
			}
			abs = len ? fs_join(l->env.cwd, d) : xstrdup(l->env.cwd);
			free(d);
			d = abs;
		}
		if (!strmap_add(&seen, d, 0)) {
			free(d);
			continue;
		}
		XGROW(out->dirs, out->n, cap);
		out->dirs[out->n++] = d;
	}
	strmap_release(&seen);
	free(copy);
	out->host = xcalloc(out->n * l->ncapstrs + 1, sizeof(*out->host));
	return out;
}

void ldso_lists_free(struct ldso *l)
{
	struct ldso_list *lists = l->lists;

	for (size_t i = 0; i < l->nlists; i++) {
		free(lists[i].list);
		free(lists[i].seps);
		free(lists[i].origin);
		fs_names_free(lists[i].dirs, lists[i].n);
		fs_names_free(lists[i].host, lists[i].n * l->ncapstrs);
	}
	free(lists);
	l->lists = NULL;
	l->nlists = l->lists_cap = 0;
}

/* A colon list (RPATH, RUNPATH; ":;" for LD_LIBRARY_PATH) searched in order. */
static enum try_outcome try_list(struct ldso *l, const char *list, const char *seps,
				 const char *origin, const char *name, enum ldso_source src,
				 const char *from, struct ldso_result *r)
{
	const struct ldso_list *dl = list_dirs(l, list, seps, origin);
	enum try_outcome out = TRY_ABSENT;

	for (size_t i = 0; i < dl->n && out != TRY_OK && out != TRY_FATAL; i++)
		out = try_dir(l, dl->dirs[i], name, src, from, r, dl->host + i * l->ncapstrs);
	return out;
}

static int in_system_dir(const struct ldso *l, const char *path)
{
	for (size_t i = 0; i < l->ndefault_dirs; i++) {
		size_t n = strlen(l->default_dirs[i]);

		if (!strncmp(path, l->default_dirs[i], n) && path[n] == '/')
			return 1;
	}
	return 0;
}

static void finish(struct ldso *l, struct ldso_result *r)
{
	struct buf rp = BUF_INIT;

	if (r->path && fs_resolve(l->env.root, r->path, &rp, NULL) == 0)
		r->realpath = buf_detach(&rp);
	buf_release(&rp);
}

int ldso_resolve(struct ldso *l, const char *soname, const char *const *chain, size_t n,
		 struct ldso_result *r, struct err *e)
{
	const struct ldso_obj *req = n ? ldso_obj_get(l, chain[0]) : NULL;
	const struct ldso_obj *main_obj = n ? ldso_obj_get(l, chain[n - 1]) : NULL;
	enum try_outcome t = TRY_ABSENT;
	uint64_t flags_1 = req ? req->flags_1 : 0;

	(void)e;
	ldso_result_release(r);
	r->source = LDSO_NONE;
	/* 0. _dl_map_object first asks the objects already loaded (_dl_name_match_p). */
	for (size_t i = 0; i < l->npreloads; i++) {
		const struct ldso_preload *p = &l->preloads[i];

		if (p->path && (!strcmp(soname, p->name) || !strcmp(soname, p->path) ||
				(p->soname && !strcmp(soname, p->soname)))) {
			r->path = xstrdup(p->path);
			r->source = LDSO_PRELOAD;
			r->from = xstrdup(p->via);
			r->soname = xstrdup_or_null(p->soname);
			add_cand(r, p->path, LDSO_PRELOAD, p->via, NULL);
			goto done;
		}
	}
	if (strchr(soname, '/')) {
		char *p = req ? ldso_expand(l, soname, req->origin) : xstrdup(soname);

		if (p) {
			if (p[0] != '/' && l->env.cwd) {
				char *abs = fs_join(l->env.cwd, p);

				free(p);
				p = abs;
			}
			if (try_file_memo(l, p, LDSO_PATH, NULL, r) == TRY_ABSENT)
				add_cand(r, p, LDSO_PATH, NULL, "no such file");
			free(p);
		}
		goto done;
	}
	/* 2. DT_RPATH of the requester and its loaders, then the executable's,
	 * unless the requester has DT_RUNPATH. */
	if (!req || !req->runpath) {
		for (size_t i = 0; i < n && t == TRY_ABSENT; i++) {
			const struct ldso_obj *o = ldso_obj_get(l, chain[i]);

			if (o->rpath)
				t = try_list(l, o->rpath, ":", o->origin, soname, LDSO_RPATH, o->path, r);
		}
	}
	/* 3. LD_LIBRARY_PATH, unless set-uid; its $ORIGIN is the executable's. */
	if (t == TRY_ABSENT && l->env.ld_library_path && !l->env.secure)
		t = try_list(l, l->env.ld_library_path, ":;", main_obj ? main_obj->origin : NULL,
			     soname, LDSO_LD_LIBRARY_PATH, NULL, r);
	/* 4. DT_RUNPATH of the requester only. */
	if (t == TRY_ABSENT && req && req->runpath)
		t = try_list(l, req->runpath, ":", req->origin, soname, LDSO_RUNPATH, req->path, r);
	/* 5. ld.so.cache; with DF_1_NODEFLIB an entry in a trusted directory is not used. */
	if (t == TRY_ABSENT && l->cache) {
		struct ldcache_hw hw = { (const char *const *)l->hwcaps, l->nhwcaps, l->isa_level };
		const struct ldcache_entry *hit = ldcache_lookup(l->cache, soname, l->cache_flags, &hw);

		if (hit && (flags_1 & DF_1_NODEFLIB) && in_system_dir(l, hit->value))
			add_cand(r, hit->value, LDSO_CACHE, NULL,
				 "in a default directory, and the requester has DF_1_NODEFLIB");
		else if (hit)
			t = try_file_memo(l, hit->value, LDSO_CACHE, NULL, r);
	}
	/* 6. The trusted default directories, unless DF_1_NODEFLIB. */
	if (t == TRY_ABSENT || t == TRY_SKIP) {
		if (!(flags_1 & DF_1_NODEFLIB))
			for (size_t i = 0; i < l->ndefault_dirs && (t == TRY_ABSENT || t == TRY_SKIP); i++)
				t = try_dir(l, l->default_dirs[i], soname, LDSO_DEFAULT_DIR, NULL, r, NULL);
	}
	/* Not found: say where it is that the search did not look (stale or missing cache). */
	if (!r->path) {
		for (size_t i = 0; i < l->nconf_dirs; i++) {
			char *p = fs_join(l->conf_dirs[i], soname);

			if (fs_exists(l->env.root, p))
				add_cand(r, p, LDSO_NONE, NULL, l->cache
					 ? "listed in ld.so.conf but not in ld.so.cache: run ldconfig"
					 : "listed in ld.so.conf but there is no ld.so.cache: run ldconfig");
			free(p);
		}
	}
done:
	finish(l, r);
	return 0;
}
