/*
 * fw_resolve.c - which file a framework's library request gives, and whose
 * copy it is.
 *
 * Resolution is loader/ldso.h with the framework's own requester chain; this
 * file adds what the framework layer needs on top: one level of the winner's
 * own DT_NEEDED (libcusolver.so.11 fails to load when libnvJitLink.so.12 is
 * missing: "libnvJitLink.so.12: cannot open shared object file"), the version of the winner (from its real file
 * name or from the wheel whose RECORD lists it), and cuDNN's sub-libraries.
 */
#include "probes/frameworks/fw_internal.h"

#include "core/buf.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/elf.h"
#include "loader/ldso.h"
#include "loader/fatbin.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void fw_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int fw_elf_dyn(const char *root, const char *path, char **rpath, char **runpath,
	       char ***needed, size_t *nneeded)
{
	struct buf full = BUF_INIT;
	struct elf_file ef;
	int rc;

	memset(&ef, 0, sizeof(ef));
	if (rpath)
		*rpath = NULL;
	if (runpath)
		*runpath = NULL;
	if (needed) {
		*needed = NULL;
		*nneeded = 0;
	}
	rc = fs_path(root, path, &full) ? elf_open(full.s, &ef, NULL) : -1;
	buf_release(&full);
	if (rc < 0) {
		elf_close(&ef);
		return -1;
	}
	if (rpath)
		*rpath = xstrdup_or_null(ef.rpath);
	if (runpath)
		*runpath = xstrdup_or_null(ef.runpath);
	if (needed && ef.nneeded) {
		*needed = xcalloc(ef.nneeded, sizeof(**needed));
		for (size_t i = 0; i < ef.nneeded; i++)
			(*needed)[i] = xstrdup(ef.needed[i]);
		*nneeded = ef.nneeded;
	}
	elf_close(&ef);
	return 0;
}

char *fw_site_file(const struct fw_site *s, const char *rel)
{
	char *p = fs_join(s->idx.dir, rel);

	if (fs_exists(s->root, p))
		return p;
	free(p);
	return NULL;
}

const char *fw_dist_version(const struct fw_site *s, const char *name)
{
	const struct distinfo_dist *d = distinfo_find(&s->idx, name);

	return d ? d->version : NULL;
}

char *fw_requirement(const struct fw_site *s, const struct distinfo_dist *d, const char *dep,
		     const char *extra)
{
	struct distinfo_meta m = DISTINFO_META_INIT;
	const char *r;
	size_t n = 0;
	char *out = NULL;

	if (!d || distinfo_read_metadata(s->root, d, &m, NULL) < 0) {
		distinfo_meta_release(&m);
		return NULL;
	}
	r = distinfo_requirement(&m, dep, extra, &n);
	if (r)
		out = xstrndup(r, n);
	distinfo_meta_release(&m);
	return out;
}

void fw_note_wheels(struct fw_site *s, struct fw_entry *fw)
{
	for (size_t i = 0; i < s->idx.n; i++) {
		const struct distinfo_dist *d = &s->idx.dists[i];

		if (strncmp(d->norm, "nvidia-", 7) != 0)
			continue;
		XGROW(fw->wheels, fw->nwheels + 1, fw->wheels_cap);
		fw->wheels[fw->nwheels++] = xasprintf("%s %s", d->norm, d->version ? d->version : "?");
	}
}

/* Read the RECORDs of the nvidia-* wheels once per site directory. */
static void fw_read_records(struct fw_site *s)
{
	if (s->records_read)
		return;
	s->records_read = 1;
	for (size_t i = 0; i < s->idx.n; i++) {
		const struct distinfo_dist *d = &s->idx.dists[i];
		struct distinfo_record r = { NULL, 0, 0 };
		struct buf b = BUF_INIT;
		char *path, *owner;

		if (strncmp(d->norm, "nvidia-", 7) != 0)
			continue;
		path = fs_join(d->dir, "RECORD");
		if (fs_read_file(s->root, path, 4 << 20, &b, NULL) < 0) {
			free(path);
			buf_release(&b);
			continue;
		}
		free(path);
		distinfo_parse_record(b.s, b.len, &r, NULL);
		buf_release(&b);
		owner = xasprintf("%s %s", d->norm, d->version ? d->version : "?");
		XGROW(s->owners, s->nowners + 1, s->owners_cap);
		s->owners[s->nowners++] = owner;
		for (size_t k = 0; k < r.n; k++) {
			if (!strstr(r.paths[k], "/lib/"))
				continue;
			XGROW(s->rec_paths, s->nrec + 1, s->rec_cap);
			s->rec_owner = xrealloc(s->rec_owner, s->rec_cap * sizeof(*s->rec_owner));
			s->rec_paths[s->nrec] = r.paths[k];
			s->rec_owner[s->nrec] = owner;
			r.paths[k] = NULL;
			s->nrec++;
		}
		distinfo_record_release(&r);
	}
}

/* "nvidia-cudnn-cu12 9.1.0.70" for a file installed by a wheel of this site. */
static const char *fw_wheel_of(struct fw_site *s, const char *path)
{
	size_t n = strlen(s->idx.dir);
	const char *rel;

	if (strncmp(path, s->idx.dir, n) != 0 || path[n] != '/')
		return NULL;
	rel = path + n + 1;
	if (strncmp(rel, "nvidia/", 7) != 0)
		return NULL;
	fw_read_records(s);
	for (size_t i = 0; i < s->nrec; i++)
		if (strcmp(s->rec_paths[i], rel) == 0)
			return s->rec_owner[i];
	return NULL;
}

/* "libcudnn.so.9.19.0" -> "9.19.0" when the name carries more than the soname. */
static char *fw_version_from_name(const char *path, const char *soname)
{
	const char *base = strrchr(path, '/');
	const char *so;
	size_t sl = strlen(soname);

	base = base ? base + 1 : path;
	if (strncmp(base, soname, sl) != 0 || base[sl] != '.' || !isdigit((unsigned char)base[sl + 1]))
		return NULL;
	so = strstr(base, ".so.");
	return so ? xstrdup(so + 4) : NULL;
}

/* Libraries every process has: their NEEDED entries are not the framework's problem. */
static int fw_is_system_soname(const char *n)
{
	static const char *const sys[] = {
		"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so",
		"libstdc++.so", "ld-linux", "libutil.so", "libz.so", "libcuda.so", NULL
	};

	for (size_t i = 0; sys[i]; i++)
		if (strncmp(n, sys[i], strlen(sys[i])) == 0)
			return 1;
	return 0;
}

static void fw_lib_fill(struct fw_site *s, struct fw_lib *l, const char *realpath)
{
	const char *w;

	l->version = fw_version_from_name(realpath ? realpath : l->path, l->soname);
	w = fw_wheel_of(s, l->path);
	if (!w && realpath)
		w = fw_wheel_of(s, realpath);
	if (w) {
		const char *sp = strchr(w, ' ');

		l->wheel = xstrdup(w);
		if (!l->version && sp && strcmp(sp + 1, "?") != 0)
			l->version = xstrdup(sp + 1);
	}
}

/* Is soname already resolved for fw (so the loader would reuse the loaded object)? */
static int fw_already_loaded(const struct fw_entry *fw, const char *soname)
{
	for (size_t i = 0; fw && i < fw->nlibs; i++)
		if (fw->libs[i].path && !strcmp(fw->libs[i].soname, soname))
			return 1;
	return 0;
}

/* One level of the winner's own DT_NEEDED (an soname the framework has loaded already is reused). */
static void fw_check_deps(struct fw_site *s, const struct fw_entry *fw, struct fw_lib *l,
			  const char *const *chain, size_t n)
{
	char **needed = NULL;
	size_t nn = 0;
	const char **sub;

	if (!s->ldso || fw_elf_dyn(s->root, l->path, NULL, NULL, &needed, &nn) < 0)
		return;
	sub = xcalloc(n + 2, sizeof(*sub));
	sub[0] = l->path;
	for (size_t i = 0; i < n; i++)
		sub[i + 1] = chain[i];
	for (size_t i = 0; i < nn && !l->missing_dep; i++) {
		struct ldso_result r = LDSO_RESULT_INIT;

		if (fw_is_system_soname(needed[i]) || fw_already_loaded(fw, needed[i]))
			continue;
		if (ldso_resolve(s->ldso, needed[i], sub, n + 1, &r, NULL) == 0 && !r.path)
			l->missing_dep = xstrdup(needed[i]);
		ldso_result_release(&r);
	}
	free(sub);
	fw_strv_free(needed, nn);
}

/* "/a/b/../c/./d" -> "/a/c/d", lexically (the ldso path keeps RPATH's ".."). */
static char *fw_normpath(const char *p)
{
	struct buf b;
	const char *s = p;

	buf_init(&b);
	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n == 1 && s[0] == '.') {
			/* skip */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			char *sl = strrchr(b.s, '/');

			if (sl) {
				b.len = (size_t)(sl - b.s);
				b.s[b.len] = 0;
			}
		} else {
			buf_addc(&b, '/');
			buf_add(&b, s, n);
		}
		s += n;
	}
	if (!b.len)
		buf_addc(&b, '/');
	return buf_detach(&b);
}

static struct fw_lib *fw_lib_new(struct fw_entry *fw, const char *soname, enum fw_role role,
				 int required, int dlopened, const char *requester)
{
	struct fw_lib *l;

	XGROW(fw->libs, fw->nlibs + 1, fw->libs_cap);
	l = &fw->libs[fw->nlibs++];
	memset(l, 0, sizeof(*l));
	l->soname = xstrdup(soname);
	l->role = role;
	l->required = required;
	l->dlopened = dlopened;
	l->requester = xstrdup_or_null(requester);
	return l;
}

char *fw_site_wheel_lib(struct fw_site *s, const char *soname)
{
	char *nv = fs_join(s->idx.dir, "nvidia");
	char **names = NULL;
	size_t n = 0;
	char *hit = NULL;

	if (fs_list_dir(s->root, nv, &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n && !hit; i++) {
			char *p = xasprintf("%s/%s/lib/%s", nv, names[i], soname);

			if (fs_exists(s->root, p))
				hit = p;
			else
				free(p);
		}
		fs_names_free(names, n);
	}
	free(nv);
	return hit;
}

struct fw_lib *fw_resolve_lib(struct fw_site *s, struct fw_entry *fw, const char *soname,
			      enum fw_role role, int required, int dlopened,
			      const char *const *chain, size_t n)
{
	struct fw_lib *l = fw_lib_new(fw, soname, role, required, dlopened, n ? chain[0] : NULL);
	struct ldso_result r = LDSO_RESULT_INIT;

	if (!s->ldso)
		return l;
	if (ldso_resolve(s->ldso, soname, chain, n, &r, NULL) == 0 && r.path) {
		l->path = fw_normpath(r.path);
		l->realpath = xstrdup_or_null(r.realpath);
		l->source = ldso_source_id(r.source);
		l->via = r.source;
		l->from = xstrdup_or_null(r.from);
		fw_lib_fill(s, l, r.realpath);
		if (role != FW_ROLE_DRIVER)
			fw_check_deps(s, fw, l, chain, n);
	} else if (role != FW_ROLE_DRIVER) {
		/*
		 * Not found, yet an nvidia wheel in this very site may hold it: the
		 * requester's RUNPATH lacks that directory (TF 2.21's DsoLoader and
		 * nvidia/cusolver/lib).  Reinstalling would change nothing.
		 */
		l->unreached = fw_site_wheel_lib(s, soname);
	}
	ldso_result_release(&r);
	return l;
}

void fw_lib_set_path(struct fw_site *s, const struct fw_entry *fw, struct fw_lib *l,
		     const char *path, const char *source)
{
	struct buf rp = BUF_INIT;

	free(l->path);
	free(l->realpath);
	l->path = xstrdup(path);
	l->realpath = NULL;
	if (fs_resolve(s->root, path, &rp, NULL) == 0)
		l->realpath = xstrdup(rp.s);
	buf_release(&rp);
	l->source = source;
	fw_lib_fill(s, l, l->realpath);
	fw_check_deps(s, fw, l, NULL, 0);
}

struct fw_lib *fw_lib_at_path(struct fw_site *s, struct fw_entry *fw, const char *soname,
			      enum fw_role role, int required, const char *path)
{
	struct fw_lib *l = fw_lib_new(fw, soname, role, required, 1, NULL);

	fw_lib_set_path(s, fw, l, path, "preload");
	return l;
}

static char *fw_dirname(const char *p)
{
	const char *sl = strrchr(p, '/');

	return sl && sl != p ? xstrndup(p, (size_t)(sl - p)) : xstrdup("/");
}

/*
 * cuDNN 8 and 9 are a shim that dlopen()s its sub-libraries, asking first
 * for the full version (libcudnn_graph.so.9.19.0) and then the soname
 * (seen on the H200: docs/h200-results.md).  The shim has DT_RUNPATH
 * $ORIGIN, so LD_LIBRARY_PATH wins over the shim's own directory: a
 * sub-library of another release there is torch's "cuDNN version
 * incompatibility" error (docs/h200-results.md).
 */
void fw_resolve_cudnn_subs(struct fw_site *s, struct fw_entry *fw, const struct fw_lib *shim,
			   int cudnn_major)
{
	static const char *const subs9[] = {
		"libcudnn_graph", "libcudnn_ops", "libcudnn_cnn", "libcudnn_adv",
		"libcudnn_engines_precompiled", "libcudnn_engines_runtime_compiled",
		"libcudnn_heuristic", NULL
	};
	static const char *const subs8[] = {
		"libcudnn_ops_infer", "libcudnn_ops_train", "libcudnn_cnn_infer",
		"libcudnn_cnn_train", "libcudnn_adv_infer", "libcudnn_adv_train", NULL
	};
	const char *const *subs = cudnn_major == 9 ? subs9 : cudnn_major == 8 ? subs8 : NULL;
	char *shim_path, *shim_dir, *shim_version;
	size_t shim_index = (size_t)(shim - fw->libs);

	if (!subs || !shim->path || !s->ldso)
		return;
	/* fw->libs may move as we add: keep copies */
	shim_path = xstrdup(shim->path);
	shim_dir = fw_dirname(shim->realpath ? shim->realpath : shim->path);
	shim_version = xstrdup_or_null(shim->version);
	for (size_t i = 0; subs[i]; i++) {
		const char *chain[] = { shim_path };
		char *full = shim_version ? xasprintf("%s.so.%s", subs[i], shim_version) : NULL;
		char *soname = xasprintf("%s.so.%d", subs[i], cudnn_major);
		struct ldso_result r = LDSO_RESULT_INIT;
		struct fw_lib *l;

		/* the full-version name first: it only exists where that release is */
		if (full && ldso_resolve(s->ldso, full, chain, 1, &r, NULL) == 0 && r.path) {
			l = fw_lib_new(fw, full, FW_ROLE_CUDNN_SUB, 1, 1, shim_path);
			l->path = fw_normpath(r.path);
			l->realpath = xstrdup_or_null(r.realpath);
			l->source = ldso_source_id(r.source);
			l->via = r.source;
			l->from = xstrdup_or_null(r.from);
			fw_lib_fill(s, l, r.realpath);
		} else {
			l = fw_resolve_lib(s, fw, soname, FW_ROLE_CUDNN_SUB, 1, 1, chain, 1);
		}
		ldso_result_release(&r);
		if (l->path) {
			char *dir = fw_dirname(l->realpath ? l->realpath : l->path);

			if (strcmp(dir, shim_dir) != 0) {
				/* what the shim meant: the copy beside it */
				char *mine = xasprintf("%s/%s", shim_dir, soname);

				if (fs_exists(s->root, mine)) {
					l->shadowed = mine;
					mine = NULL;
					l->shadowed_version = xstrdup_or_null(shim_version);
				}
				free(mine);
			}
			free(dir);
		}
		free(full);
		free(soname);
	}
	(void)shim_index;
	free(shim_path);
	free(shim_dir);
	free(shim_version);
}

void fw_note_other_cudart(struct fw_site *s, struct fw_entry *fw)
{
	const char *chain[1];
	size_t n = 0;

	for (size_t i = 0; i < fw->nlibs; i++)
		if (fw->libs[i].role == FW_ROLE_CUDART && fw->libs[i].path)
			return;
	if (!s->ldso || !s->kb)
		return;
	if (fw->main_lib)
		chain[n++] = fw->main_lib;
	for (int major = 13; major >= 10 && !fw->other_cudart; major--) {
		const char *so = major == fw->cuda_major ? NULL : kb_soname(s->kb, major, "cudart");
		struct ldso_result r = LDSO_RESULT_INIT;

		if (so && ldso_resolve(s->ldso, so, chain, n, &r, NULL) == 0 && r.path) {
			char *p = fw_normpath(r.path);

			fw->other_cudart = xasprintf("%s -> %s (CUDA %d)", so, p, major);
			free(p);
		}
		ldso_result_release(&r);
	}
}

/*
 * The GPU code of lib: archs with a substantial share of the fat binary's
 * entries are what it is built for, the rest are "a few kernels" (the rule
 * and the H200 observation behind it: fatbin.h).  The summary is already
 * sorted by kind (SASS first) and number, so sm_75 comes before sm_100.
 */
int fw_archs_from_fatbin(struct fw_site *s, struct fw_entry *fw, const char *lib, struct err *e)
{
	struct fatbin_summary fb = FATBIN_SUMMARY_INIT;

	if (fatbin_read_library(s->root, lib, &fb, e) < 0) {
		fatbin_summary_release(&fb);
		return -1;
	}
	if (fb.n) {
		fw->archs = xcalloc(fb.n + 1, sizeof(*fw->archs));
		fw->arch_entries = xcalloc(fb.n + 1, sizeof(*fw->arch_entries));
		fw->archs_partial = xcalloc(fb.n + 1, sizeof(*fw->archs_partial));
		fw->arch_partial_entries = xcalloc(fb.n + 1, sizeof(*fw->arch_partial_entries));
		for (size_t i = 0; i < fb.n; i++) {
			char name[32];

			fatbin_arch_name(&fb.archs[i], name, sizeof(name));
			if (fatbin_arch_is_full(&fb, i)) {
				fw->arch_entries[fw->narchs] = fb.archs[i].count;
				fw->archs[fw->narchs++] = xstrdup(name);
			} else {
				fw->arch_partial_entries[fw->narchs_partial] = fb.archs[i].count;
				fw->archs_partial[fw->narchs_partial++] = xstrdup(name);
			}
		}
		fw->archs_source = "fatbin";
		fw->archs_from = xstrdup(lib);
	}
	fatbin_summary_release(&fb);
	return 0;
}
