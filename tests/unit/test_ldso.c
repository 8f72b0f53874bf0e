/*
 * test_ldso.c - the loader emulation inside a fixture root: default
 * directories, ld.so.cache written by the real ldconfig -r, staleness, a
 * missing cache, DST expansion, secure mode, DF_1_NODEFLIB, glibc-hwcaps.
 */
#include "loader/ldso.h"
#include "loader/ldso_tree.h"
#include "loader/ldso_priv.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "tap.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/gd-test-ldso-XXXXXX";
static int have_ldconfig;

static const char *cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char *cmd = xasprintf(fmt, a, b);
	int r = system(cmd);

	if (r != 0)
		printf("# failed (%d): %s\n", r, cmd);
	free(cmd);
	return r;
}

/* The fixture: a Debian-like root with libc, two library dirs, a cache. */
static void setup(void)
{
	char *c = xasprintf(
		"set -e; cd %s; mkdir -p lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu etc/ld.so.conf.d "
		"opt/a/glibc-hwcaps/x86-64-v2 opt/b opt/late app/lib app/deps;"
		"cp -L /lib/x86_64-linux-gnu/libc.so.6 lib/x86_64-linux-gnu/;"
		"echo 'int f(void){return 1;}' > x.c;"
		"CC=%s;"
		"$CC -shared -fPIC -o opt/a/libgdx.so.1 x.c -Wl,-soname,libgdx.so.1;"
		"cp opt/a/libgdx.so.1 opt/a/glibc-hwcaps/x86-64-v2/;"
		"$CC -shared -fPIC -o opt/b/libgdy.so.2 x.c -Wl,-soname,libgdy.so.2;"
		"$CC -shared -fPIC -o app/deps/libgddep.so.1 x.c -Wl,-soname,libgddep.so.1;"
		"$CC -shared -fPIC -o app/lib/libtop.so x.c -Wl,-soname,libtop.so -Wl,--no-as-needed "
		"  app/deps/libgddep.so.1 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../deps';"
		"$CC -shared -fPIC -o app/lib/libnodef.so x.c -Wl,-z,nodefaultlib;"
		"printf '/opt/a\\n/opt/b\\n' > etc/ld.so.conf.d/gd.conf;"
		"echo 'include /etc/ld.so.conf.d/*.conf' > etc/ld.so.conf",
		root, cc());
	if (system(c) != 0)
		printf("# setup failed: %s\n", c);
	free(c);
	have_ldconfig = access("/sbin/ldconfig", X_OK) == 0 &&
			sh("/sbin/ldconfig -r %s -X 2>/dev/null%s", root, "") == 0;
	/* Written after the cache: found through the default directories. */
	sh("cd %s && %s -shared -fPIC -o usr/lib/x86_64-linux-gnu/libgdsys.so.1 x.c -Wl,-soname,libgdsys.so.1",
	   root, cc());
}

static void init(struct ldso *l, const char *llp, int secure)
{
	struct ldso_env env = { 0 };

	env.root = root;
	env.ld_library_path = llp;
	env.secure = secure;
	env.legacy_hwcaps = LDSO_LEGACY_OFF;
	env.hwcaps = "x86-64-v2";
	env.cwd = "/";
	CHECK_INT(ldso_init(l, &env, NULL), 0);
}

static void test_defaults_of_a_debian_root(void)
{
	struct ldso l;

	init(&l, NULL, 0);
	CHECK_INT(l.ndefault_dirs, 4);
	if (l.ndefault_dirs == 4) {
		CHECK_STR(l.default_dirs[0], "/lib/x86_64-linux-gnu");
		CHECK_STR(l.default_dirs[3], "/usr/lib");
	}
	CHECK_STR(l.env.lib, "lib/x86_64-linux-gnu");
	CHECK_INT(l.glibc_major, 2);
	CHECK(l.glibc_minor >= 17);
	CHECK_INT(l.ncapstrs, 2);
	CHECK_STR(l.capstrs[0], "glibc-hwcaps/x86-64-v2");
	CHECK_STR(l.capstrs[1], "");
	CHECK_INT(l.nconf_dirs, 2);
	ldso_release(&l);
}

static void test_cache_hit_prefers_hwcaps_entry(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;

	if (!have_ldconfig)
		SKIP("no working /sbin/ldconfig -r to write the fixture's cache");
	init(&l, NULL, 0);
	CHECK(l.cache != NULL);
	CHECK_INT(ldso_resolve(&l, "libgdx.so.1", NULL, 0, &r, NULL), 0);
	CHECK_STR(r.path, "/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1");
	CHECK_INT(r.source, LDSO_CACHE);
	CHECK_STR(r.soname, "libgdx.so.1");
	CHECK(r.bytes_read > 0);
	ldso_result_release(&r);
	CHECK_INT(ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r, NULL), 0);
	CHECK_STR(r.path, "/opt/b/libgdy.so.2");
	ldso_result_release(&r);
	/* Not in the cache: found in a default directory. */
	CHECK_INT(ldso_resolve(&l, "libgdsys.so.1", NULL, 0, &r, NULL), 0);
	CHECK_STR(r.path, "/usr/lib/x86_64-linux-gnu/libgdsys.so.1");
	CHECK_INT(r.source, LDSO_DEFAULT_DIR);
	CHECK(r.ndirs >= 2);
	ldso_result_release(&r);
	ldso_release(&l);
}

static void test_ld_library_path_and_secure(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;

	init(&l, "/nonexistent::/opt/b/", 0);
	ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r, NULL);
	CHECK_STR(r.path, "/opt/b/libgdy.so.2");
	CHECK_INT(r.source, LDSO_LD_LIBRARY_PATH);
	ldso_result_release(&r);
	ldso_release(&l);
	init(&l, "/opt/b", 1);
	ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r, NULL);
	CHECK(r.source != LDSO_LD_LIBRARY_PATH);
	ldso_result_release(&r);
	ldso_release(&l);
}

static void test_runpath_origin_and_tree(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;
	struct ldso_tree t;
	const char *chain[] = { "/app/lib/libtop.so" };

	init(&l, NULL, 0);
	ldso_resolve(&l, "libgddep.so.1", chain, 1, &r, NULL);
	CHECK_STR(r.path, "/app/lib/../deps/libgddep.so.1");
	CHECK_STR(r.realpath, "/app/deps/libgddep.so.1");
	CHECK_INT(r.source, LDSO_RUNPATH);
	CHECK_STR(r.from, "/app/lib/libtop.so");
	ldso_result_release(&r);
	CHECK_INT(ldso_tree_build(&l, "/app/lib/libtop.so", &t, NULL), 0);
	CHECK(t.n >= 3);	/* top, libgddep, libc ... */
	CHECK_STR(t.nodes[1].name, "libgddep.so.1");
	CHECK_STR(t.nodes[1].res.path, "/app/lib/../deps/libgddep.so.1");
	CHECK(t.bytes_read > 0);
	ldso_tree_release(&t);
	CHECK_INT(ldso_tree_build(&l, "/app/lib/missing.so", &t, NULL), -1);
	ldso_tree_release(&t);
	ldso_release(&l);
}

/* A long loader chain: the requester's data must survive the cache of requesters growing. */
static void test_long_chain(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;
	const char *chain[64];
	char *names[64];

	init(&l, NULL, 0);
	chain[0] = "/app/lib/libtop.so";
	for (int i = 1; i < 64; i++)
		chain[i] = names[i] = xasprintf("/nonexistent/obj%d.so", i);
	ldso_resolve(&l, "libgddep.so.1", chain, 64, &r, NULL);
	CHECK_STR(r.path, "/app/lib/../deps/libgddep.so.1");
	CHECK_INT(r.source, LDSO_RUNPATH);
	ldso_result_release(&r);
	/* Without RUNPATH every loader's RPATH is read, then the requester again. */
	chain[0] = "/app/lib/libnodef.so";
	ldso_resolve(&l, "libgdnothing.so.9", chain, 64, &r, NULL);
	CHECK(r.path == NULL);
	ldso_result_release(&r);
	for (int i = 1; i < 64; i++)
		free(names[i]);
	ldso_release(&l);
}

static void test_nodeflib_skips_cache_and_default_dirs(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;
	const char *chain[] = { "/app/lib/libnodef.so" };

	init(&l, NULL, 0);
	ldso_resolve(&l, "libgdsys.so.1", chain, 1, &r, NULL);
	CHECK(r.path == NULL);
	ldso_result_release(&r);
	ldso_resolve(&l, "libgdy.so.2", chain, 1, &r, NULL);	/* cache entry outside the default dirs */
	if (have_ldconfig)
		CHECK_STR(r.path, "/opt/b/libgdy.so.2");
	ldso_result_release(&r);
	ldso_release(&l);
}

static void test_stale_and_missing_cache(void)
{
	struct ldso l;
	struct ldso_env env = { 0 };
	struct ldso_result r = LDSO_RESULT_INIT;
	char *late = xasprintf("%s/opt/late/libgdlate.so.4", root);
	char *conf = xasprintf("%s/etc/ld.so.conf.d/late.conf", root);

	sh("%s -shared -fPIC -x c /dev/null -o %s -Wl,-soname,libgdlate.so.4", cc(), late);
	sh("echo /opt/late > %s%s", conf, "");
	init(&l, NULL, 0);
	if (have_ldconfig) {
		CHECK_INT(l.cache_stale, 1);
		CHECK(l.cache_stale_reason != NULL);
		printf("# stale: %s\n", l.cache_stale_reason ? l.cache_stale_reason : "(null)");
	}
	ldso_resolve(&l, "libgdlate.so.4", NULL, 0, &r, NULL);
	CHECK(r.path == NULL);
	CHECK(r.ncands == 1 && r.cands[0].rejected && strstr(r.cands[0].rejected, "run ldconfig"));
	ldso_result_release(&r);
	ldso_release(&l);
	env.root = root;
	env.cache_path = "/etc/no-such-cache";
	env.legacy_hwcaps = LDSO_LEGACY_AUTO;
	CHECK_INT(ldso_init(&l, &env, NULL), 0);
	CHECK(l.cache == NULL && l.cache_error != NULL);
	/* No /proc/cpuinfo in the root: no glibc-hwcaps; legacy subdirs before glibc 2.37. */
	CHECK_INT(l.nhwcaps, 0);
	if (l.glibc_major == 2 && l.glibc_minor < 37) {
		CHECK_INT(l.ncapstrs, 8);
		CHECK_STR(l.capstrs[0], "tls/x86_64/x86_64");
	}
	CHECK_INT(l.cache_stale, 0);
	ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r, NULL);
	CHECK(r.path == NULL);
	CHECK(r.ncands == 1 && r.cands[0].rejected && strstr(r.cands[0].rejected, "no ld.so.cache"));
	ldso_result_release(&r);
	ldso_release(&l);
	free(late);
	free(conf);
}

static void test_expand(void)
{
	struct ldso l;
	char *s;

	init(&l, NULL, 0);
	s = ldso_expand(&l, "$ORIGIN/../lib", "/o"); CHECK_STR(s, "/o/../lib"); free(s);
	s = ldso_expand(&l, "${ORIGIN}x", "/o"); CHECK_STR(s, "/ox"); free(s);
	s = ldso_expand(&l, "$ORIGINX/a", "/o"); CHECK_STR(s, "$ORIGINX/a"); free(s);
	s = ldso_expand(&l, "/usr/$LIB/$PLATFORM", "/o"); CHECK_STR(s, "/usr/lib/x86_64-linux-gnu/x86_64"); free(s);
	s = ldso_expand(&l, "/a/$FOO", "/o"); CHECK_STR(s, "/a/$FOO"); free(s);
	CHECK(ldso_expand(&l, "$ORIGIN/a", NULL) == NULL);
	l.env.secure = 1;
	s = ldso_expand(&l, "$ORIGIN/a", "/o"); CHECK_STR(s, "/o/a"); free(s);
	CHECK(ldso_expand(&l, "/a/$ORIGIN", "/o") == NULL);
	ldso_release(&l);
	s = ldso_origin("/libx.so", NULL); CHECK_STR(s, "/"); free(s);
	s = ldso_origin("a/b/libx.so", "/w"); CHECK_STR(s, "/w/a/b"); free(s);
	CHECK(ldso_origin("libx.so", NULL) == NULL);
}

static void test_path_with_slash(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;

	init(&l, NULL, 0);
	ldso_resolve(&l, "/opt/b/libgdy.so.2", NULL, 0, &r, NULL);
	CHECK_STR(r.path, "/opt/b/libgdy.so.2");
	CHECK_INT(r.source, LDSO_PATH);
	ldso_result_release(&r);
	ldso_resolve(&l, "/opt/b/libnothere.so", NULL, 0, &r, NULL);
	CHECK(r.path == NULL);
	ldso_result_release(&r);
	ldso_release(&l);
}

static char *joined(const char *text, int file)
{
	size_t n;
	char **v = ldso_preload_split(text, strlen(text), file, &n);
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s[%s]", i ? " " : "", v[i]);
	fs_names_free(v, n);
	return buf_detach(&b);
}

static void test_preload_split(void)
{
	char *s;

	/* LD_PRELOAD: ' ' and ':' only; a tab is part of a name there */
	CHECK_STR((s = joined("  /a/libx.so:libY.so.1 ::\tz ", 0)), "[/a/libx.so] [libY.so.1] [\tz]");
	free(s);
	/* /etc/ld.so.preload: whitespace, ':' and comments */
	CHECK_STR((s = joined("# pinned\n/opt/a.so\t/opt/b.so # tail\nlibc.so#x:libd.so\n", 1)),
		  "[/opt/a.so] [/opt/b.so] [libc.so]");
	free(s);
	CHECK_STR((s = joined("", 1)), "");
	free(s);
	CHECK_STR((s = joined("#only a comment", 1)), "");
	free(s);
	{
		size_t n = 9;
		char **v = ldso_preload_split(NULL, 0, 0, &n);

		CHECK(v == NULL && n == 0);
		/* length bounds the text, as when it comes from a file */
		v = ldso_preload_split("libab.so", 4, 0, &n);
		CHECK(n == 1 && !strcmp(v[0], "liba"));
		fs_names_free(v, n);
	}
}

/*
 * As ld.so's per-directory status: a capability subdirectory that does not
 * exist is stat()ed once and then skipped; one that exists is still searched.
 */
static void test_absent_dirs_remembered(void)
{
	struct ldso l;
	struct ldso_result r = LDSO_RESULT_INIT;

	init(&l, "/opt/b:/opt/a", 0);
	CHECK_INT(ldso_resolve(&l, "libgdnone.so.1", NULL, 0, &r, NULL), 0);
	CHECK(r.path == NULL);
	/* capstrs: "glibc-hwcaps/x86-64-v2", then "" (the directory itself) */
	CHECK_INT(l.ncapstrs, 2);
	CHECK_INT(ldso_dir_caps(&l, "/opt/b")[0], 0);
	CHECK_INT(ldso_dir_caps(&l, "/opt/b")[1], 1);
	CHECK_INT(ldso_dir_caps(&l, "/opt/a")[0], 1);
	CHECK_INT(ldso_dir_caps(&l, "/nonexistent")[1], 0);
	ldso_result_release(&r);
	/* the remembered miss does not hide a file in an existing directory */
	CHECK_INT(ldso_resolve(&l, "libgdx.so.1", NULL, 0, &r, NULL), 0);
	CHECK_STR(r.path, "/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1");
	ldso_result_release(&r);
	CHECK_INT(ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r, NULL), 0);
	CHECK_STR(r.path, "/opt/b/libgdy.so.2");
	ldso_result_release(&r);
	ldso_release(&l);
}

/*
 * Each file is read once per loader: a second question replays the first
 * answer (the file is moved away in between to prove it is not re-read),
 * and a loader derived with ldso_init_from shares that memo.
 */
static void test_files_read_once(void)
{
	struct ldso l, d;
	struct ldso_result r1 = LDSO_RESULT_INIT, r2 = LDSO_RESULT_INIT, r3 = LDSO_RESULT_INIT;
	char *from, *to;

	if (!have_ldconfig)
		SKIP("no working /sbin/ldconfig -r to write the fixture's cache");
	from = xasprintf("%s/opt/b/libgdy.so.2", root);
	to = xasprintf("%s/opt/b/moved", root);
	init(&l, "/opt/b", 0);
	CHECK_INT(ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r1, NULL), 0);
	CHECK_STR(r1.path, "/opt/b/libgdy.so.2");
	CHECK_INT(rename(from, to), 0);
	CHECK_INT(ldso_resolve(&l, "libgdy.so.2", NULL, 0, &r2, NULL), 0);
	CHECK_STR(r2.path, r1.path);
	CHECK_STR(r2.soname, "libgdy.so.2");
	CHECK_INT(r2.source, r1.source);
	CHECK_INT(r2.bytes_read, r1.bytes_read);
	CHECK_INT(r2.ncands, r1.ncands);
	ldso_init_from(&d, &l, NULL);
	CHECK(d.env.ld_library_path == NULL);
	CHECK_INT(ldso_resolve(&d, "libgdy.so.2", NULL, 0, &r3, NULL), 0);
	/* without LD_LIBRARY_PATH: the cache's entry, read once already */
	CHECK_STR(r3.path, "/opt/b/libgdy.so.2");
	CHECK_INT(r3.source, LDSO_CACHE);
	CHECK_INT(rename(to, from), 0);
	ldso_result_release(&r1);
	ldso_result_release(&r2);
	ldso_result_release(&r3);
	ldso_release(&d);
	ldso_release(&l);
	free(from);
	free(to);
}

int main(void)
{
	if (!mkdtemp(root))
		return 1;
	setup();
	RUN(test_defaults_of_a_debian_root);
	RUN(test_cache_hit_prefers_hwcaps_entry);
	RUN(test_ld_library_path_and_secure);
	RUN(test_runpath_origin_and_tree);
	RUN(test_long_chain);
	RUN(test_nodeflib_skips_cache_and_default_dirs);
	RUN(test_stale_and_missing_cache);
	RUN(test_expand);
	RUN(test_path_with_slash);
	RUN(test_preload_split);
	RUN(test_absent_dirs_remembered);
	RUN(test_files_read_once);
	sh("rm -rf %s%s", root, "");
	return tap_done();
}
