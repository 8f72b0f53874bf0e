/*
 * ldso_init.c - what the dynamic loader of a root knows before it searches:
 * its trusted directories, the glibc-hwcaps and legacy subdirectories it
 * tries in each directory, $LIB and $PLATFORM, ld.so.cache, and whether that
 * cache is stale with respect to ld.so.conf.  See ldso.h and docs/loader.md.
 */
#include "loader/ldso.h"
#include "loader/elf.h"
#include "loader/ldcache.h"
#include "loader/ldconf.h"
#include "loader/ldso_priv.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#define HOST_PLATFORM "aarch64"
#define HOST_TRIPLET "aarch64-linux-gnu"
#define HOST_CACHE_FLAGS LDCACHE_FLAGS_AARCH64
#else
#define HOST_MACHINE EM_X86_64
#define HOST_PLATFORM "x86_64"
#define HOST_TRIPLET "x86_64-linux-gnu"
#define HOST_CACHE_FLAGS LDCACHE_FLAGS_X86_64
#endif

static void push(char ***arr, size_t *n, const char *s)
{
	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = xstrdup(s);
}

static void split_push(char ***arr, size_t *n, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
		push(arr, n, t);
	free(copy);
}

/* 1 when every flag in the space-separated list is in the cpuinfo flags line. */
static int has_flags(const char *flags, const char *want)
{
	char *copy = xstrdup(want), *save = NULL;
	int ok = 1;

	for (char *t = strtok_r(copy, " ", &save); t && ok; t = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(t);
		const char *p = flags;

		ok = 0;
		while ((p = strstr(p, t)) != NULL) {
			if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n')) {
				ok = 1;
				break;
			}
			p += n;
		}
	}
	free(copy);
	return ok;
}

/*
 * From /proc/cpuinfo: the x86-64 ISA level, as glibc's sysdeps/x86
 * get-isa-level.h defines the levels, and $PLATFORM.  ld.so does not use the
 * kernel's AT_PLATFORM ("x86_64") as is: sysdeps/x86/cpu-features.c
 * (init_cpu_features) replaces it on Intel CPUs with "xeon_phi" (AVX512ER and
 * AVX512PF) or "haswell" (AVX2, FMA, BMI1, BMI2, LZCNT, MOVBE, POPCNT).  Seen
 * on the H200 machine (Ubuntu 24.04, glibc 2.39, Intel): ld.so
 * --list-diagnostics says dl_platform="haswell" while AT_PLATFORM is x86_64,
 * and an RPATH of $ORIGIN/../$PLATFORM looked in .../haswell.
 */
static unsigned cpu_isa_level(const char *root, const char **platform)
{
	struct buf b = BUF_INIT;
	const char *fl;
	unsigned lvl = 0;

	*platform = NULL;
	if (fs_read_file(root, "/proc/cpuinfo", 16u << 20, &b, NULL) < 0)
		goto out;
	fl = strstr(b.s, "\nflags");
	if (!fl)
		goto out;
	{
		const char *colon = strchr(fl, ':'), *nl;
		char *line;

		if (!colon)
			goto out;
		nl = strchr(colon, '\n');
		line = xstrndup(colon + 1, nl ? (size_t)(nl - colon - 1) : strlen(colon + 1));
		if (strstr(b.s, "GenuineIntel")) {
			if (has_flags(line, "avx512cd avx512er avx512pf"))
				*platform = "xeon_phi";
			else if (has_flags(line, "avx2 fma bmi1 bmi2 abm movbe popcnt"))
				*platform = "haswell";
		}
		if (has_flags(line, "cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3")) {
			lvl = 1;
			if (has_flags(line, "avx avx2 bmi1 bmi2 f16c fma abm movbe xsave")) {
				lvl = 2;
				if (has_flags(line, "avx512f avx512bw avx512cd avx512dq avx512vl"))
					lvl = 3;
			}
		}
		free(line);
	}
out:
	buf_release(&b);
	return lvl;
}

/* glibc version of the root's libc.so.6, from its highest GLIBC_2.N version definition. */
static void glibc_version(struct ldso *l)
{
	l->glibc_major = l->glibc_minor = -1;
	for (size_t i = 0; i < l->ndefault_dirs; i++) {
		struct buf p = BUF_INIT;
		struct elf_file ef;
		char *abs = fs_join(l->default_dirs[i], "libc.so.6");
		char **names;
		size_t n;
		int found = 0;

		fs_path(l->env.root, abs, &p);
		free(abs);
		if (elf_open(p.s, &ef, NULL) == 0 && elf_version_defs(&ef, &names, &n, NULL) == 0) {
			for (size_t k = 0; k < n; k++) {
				int ma, mi;

				if (sscanf(names[k], "GLIBC_%d.%d", &ma, &mi) == 2 &&
				    (ma > l->glibc_major || (ma == l->glibc_major && mi > l->glibc_minor))) {
					l->glibc_major = ma;
					l->glibc_minor = mi;
				}
				free(names[k]);
			}
			free(names);
			found = 1;
		}
		elf_close(&ef);
		buf_release(&p);
		if (found)
			return;
	}
}

static void default_dirs(struct ldso *l)
{
	const char *root = l->env.root;

	if (l->env.default_dirs) {
		split_push(&l->default_dirs, &l->ndefault_dirs, l->env.default_dirs);
		return;
	}
	/* Debian/Ubuntu build glibc with multiarch slibdir/libdir: what LD_DEBUG=libs prints as
	 * the system search path on Debian 12 is exactly these four. */
	if (fs_exists(root, "/lib/" HOST_TRIPLET "/libc.so.6") ||
	    fs_exists(root, "/usr/lib/" HOST_TRIPLET "/libc.so.6")) {
		split_push(&l->default_dirs, &l->ndefault_dirs,
			   "/lib/" HOST_TRIPLET ":/usr/lib/" HOST_TRIPLET ":/lib:/usr/lib");
	} else if (fs_exists(root, "/usr/lib64/libc.so.6") || fs_exists(root, "/lib64/libc.so.6")) {
		split_push(&l->default_dirs, &l->ndefault_dirs, "/lib64:/usr/lib64");
	} else {
		split_push(&l->default_dirs, &l->ndefault_dirs, "/lib:/usr/lib");
	}
}

static void capstrs(struct ldso *l)
{
	int legacy = l->env.legacy_hwcaps;
	int hwcaps_ok = l->glibc_major < 0 || l->glibc_major > 2 ||
			(l->glibc_major == 2 && l->glibc_minor >= 33);
	static const char *const x86_levels[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };

	if (l->env.hwcaps) {
		split_push(&l->hwcaps, &l->nhwcaps, l->env.hwcaps);
	} else if (l->machine == EM_X86_64 && hwcaps_ok) {
		for (unsigned i = 0; i < 3; i++)
			if (l->isa_level >= 3 - i)
				push(&l->hwcaps, &l->nhwcaps, x86_levels[i]);
	}
	for (size_t i = 0; i < l->nhwcaps; i++) {
		char *s = xasprintf("glibc-hwcaps/%s", l->hwcaps[i]);

		push(&l->capstrs, &l->ncapstrs, s);
		free(s);
	}
	if (legacy <= LDSO_LEGACY_AUTO)
		legacy = l->glibc_major == 2 && l->glibc_minor < 37;
	else
		legacy = legacy == LDSO_LEGACY_ON;
	if (legacy) {
		/* The order LD_DEBUG=libs shows on Debian 12 (glibc 2.36, x86-64): the power
		 * set of {tls, $PLATFORM, hwcap "x86_64"}; aarch64 has no hwcap names. */
		const char *p = l->env.platform;
		char *s[7];
		size_t ns = 0;

		if (l->machine == EM_X86_64) {
			s[ns++] = xasprintf("tls/%s/x86_64", p);
			s[ns++] = xasprintf("tls/%s", p);
			s[ns++] = xstrdup("tls/x86_64");
			s[ns++] = xstrdup("tls");
			s[ns++] = xasprintf("%s/x86_64", p);
			s[ns++] = xstrdup(p);
			s[ns++] = xstrdup("x86_64");
		} else {
			s[ns++] = xasprintf("tls/%s", p);
			s[ns++] = xstrdup("tls");
			s[ns++] = xstrdup(p);
		}
		for (size_t i = 0; i < ns; i++) {
			push(&l->capstrs, &l->ncapstrs, s[i]);
			free(s[i]);
		}
	}
	push(&l->capstrs, &l->ncapstrs, "");
}

/* A stale cache: ld.so.conf changed after it, or a directory it lists holds a soname the cache lacks. */
static void check_stale(struct ldso *l, const char *cache_path)
{
	struct ldconf conf;
	struct stat cst, st;
	const char *root = l->env.root;
	const char *conf_path = l->env.conf_path ? l->env.conf_path : "/etc/ld.so.conf";

	if (ldconf_load(root, conf_path, &conf, NULL) < 0) {
		ldconf_release(&conf);
		return;
	}
	for (size_t i = 0; i < conf.ndirs; i++)
		push(&l->conf_dirs, &l->nconf_dirs, conf.dirs[i]);
	if (!l->cache || fs_stat(root, cache_path, &cst) < 0)
		goto out;
	for (size_t i = 0; i < conf.nfiles && !l->cache_stale; i++)
		if (fs_stat(root, conf.files[i], &st) == 0 && st.st_mtime > cst.st_mtime) {
			l->cache_stale = 1;
			l->cache_stale_reason = xasprintf("%s is newer than %s", conf.files[i], cache_path);
		}
	for (size_t i = 0; i < conf.ndirs && !l->cache_stale; i++) {
		char **names;
		size_t n;

		if (fs_stat(root, conf.dirs[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		/* A directory's mtime alone is not used: adding any file (a python
		 * package under /usr/local/lib) changes it, and ld.so does not care. */
		if (fs_list_dir(root, conf.dirs[i], &names, &n, NULL) < 0)
			continue;
		for (size_t k = 0; k < n && !l->cache_stale; k++) {
			const char *so = strstr(names[k], ".so."), *d;
			const struct ldcache_entry *hit;

			if (strncmp(names[k], "lib", 3) || !so)
				continue;
			for (d = so + 4; *d >= '0' && *d <= '9'; d++)
				;
			if (d == so + 4 || *d)
				continue;	/* only soname-shaped names: libX.so.N */
			hit = ldcache_lookup(l->cache, names[k], l->cache_flags, NULL);
			if (!hit) {
				struct buf p = BUF_INIT;
				struct elf_file ef;
				char *abs = fs_join(conf.dirs[i], names[k]);

				fs_path(root, abs, &p);
				if (elf_open(p.s, &ef, NULL) == 0 && ef.machine == l->machine &&
				    ef.soname && !strcmp(ef.soname, names[k])) {
					l->cache_stale = 1;
					l->cache_stale_reason = xasprintf("%s is not in %s (run ldconfig)", abs, cache_path);
				}
				elf_close(&ef);
				buf_release(&p);
				free(abs);
			}
		}
		fs_names_free(names, n);
	}
out:
	ldconf_release(&conf);
}

int ldso_init(struct ldso *l, const struct ldso_env *env, struct err *e)
{
	struct err ce = ERR_INIT;
	const char *cache_path;

	memset(l, 0, sizeof(*l));
	ldso_dirstat_init(l);
	l->env = *env;
	if (!l->env.root || !*l->env.root)
		l->env.root = "/";
	if (!l->env.cwd && !strcmp(l->env.root, "/")) {
		l->cwd_buf = getcwd(NULL, 0);
		l->env.cwd = l->cwd_buf;
	}
	if (!l->env.platform)
		l->env.platform = HOST_PLATFORM;
	l->machine = HOST_MACHINE;
	l->cache_flags = HOST_CACHE_FLAGS;
	cache_path = l->env.cache_path ? l->env.cache_path : "/etc/ld.so.cache";
	default_dirs(l);
	if (!l->env.lib)
		l->env.lib = fs_exists(l->env.root, "/lib/" HOST_TRIPLET "/libc.so.6") ||
			     fs_exists(l->env.root, "/usr/lib/" HOST_TRIPLET "/libc.so.6")
			     ? "lib/" HOST_TRIPLET : "lib64";
	glibc_version(l);
	if (l->machine == EM_X86_64) {
		const char *platform;

		l->isa_level = cpu_isa_level(l->env.root, &platform);
		if (platform && !env->platform)
			l->env.platform = platform;
	} else {
		l->isa_level = 0;
	}
	capstrs(l);
	if (ldcache_load(l->env.root, cache_path, &l->cache, &ce) < 0) {
		l->cache = NULL;
		l->cache_error = xstrdup(ce.msg);
	}
	check_stale(l, cache_path);
	ldso_preloads_load(l);
	(void)e;
	return 0;
}

void ldso_init_from(struct ldso *l, struct ldso *base, const char *ld_library_path)
{
	while (base->base)
		base = base->base;
	/* the memo's fields of base may be growing on another thread */
	ldso_memo_lock(base);
	*l = *base;
	ldso_memo_unlock(base);
	l->env.ld_library_path = ld_library_path;
	l->base = base;
	/* search lists are per loader: the copy runs on another thread */
	l->lists = NULL;
	l->nlists = l->lists_cap = 0;
}

void ldso_release(struct ldso *l)
{
	if (l->base) {
		/* everything is base's but its own search lists */
		ldso_lists_free(l);
		memset(l, 0, sizeof(*l));
		return;
	}
	ldcache_free(l->cache);
	free(l->cache_error);
	free(l->cache_stale_reason);
	fs_names_free(l->default_dirs, l->ndefault_dirs);
	fs_names_free(l->conf_dirs, l->nconf_dirs);
	fs_names_free(l->capstrs, l->ncapstrs);
	fs_names_free(l->hwcaps, l->nhwcaps);
	ldso_objs_free(l);
	ldso_dirstat_free(l);
	ldso_lists_free(l);
	ldso_preloads_free(l->preloads, l->npreloads);
	free(l->cwd_buf);
	memset(l, 0, sizeof(*l));
}
