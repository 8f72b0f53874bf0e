/*
 * test_ldcache.c - the ld.so.cache reader against caches written by the real
 * ldconfig (new, old and compat formats), hand-built images, broken files,
 * and this machine's /etc/ld.so.cache compared entry by entry with ldconfig -p.
 */
#include "loader/ldcache.h"
#include "loader/ldconf.h"
#include "core/xalloc.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/gd-test-ldcache-XXXXXX";
static int have_ldconfig;

static const char *cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

static int sh(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		printf("# failed (%d): %s\n", r, cmd);
	return r;
}

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s%s", root, rel);
	FILE *f = fopen(p, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

/* A root with two library dirs, one with a glibc-hwcaps subdir, and caches in all formats. */
static void setup(void)
{
	char *cmd = xasprintf(
		"set -e; cd %s; mkdir -p etc/ld.so.conf.d opt/a/glibc-hwcaps/x86-64-v2 opt/b opt/c;"
		"echo 'int f(void){return 1;}' > x.c;"
		"%s -shared -fPIC -o opt/a/libgdx.so.1 x.c -Wl,-soname,libgdx.so.1;"
		"cp opt/a/libgdx.so.1 opt/a/glibc-hwcaps/x86-64-v2/;"
		"%s -shared -fPIC -o opt/b/libgdy.so.2 x.c -Wl,-soname,libgdy.so.2;"
		"%s -shared -fPIC -o opt/b/libgdy.so.10 x.c -Wl,-soname,libgdy.so.10;"
		"%s -shared -fPIC -o opt/c/libgdz.so.3 x.c -Wl,-soname,libgdz.so.3",
		root, cc(), cc(), cc(), cc());

	sh(cmd);
	free(cmd);
	put("/etc/ld.so.conf", "# comment\ninclude ld.so.conf.d/*.conf\n/opt/a/ # trailing slash\nhwcap 1 foo\n");
	put("/etc/ld.so.conf.d/b.conf", "  /opt/b=libc6\n\n/opt/a\n");
	put("/etc/ld.so.conf.d/c.notconf", "/opt/c\n");
	have_ldconfig = access("/sbin/ldconfig", X_OK) == 0;
	if (!have_ldconfig)
		return;
	cmd = xasprintf("cd %s && for f in new old compat; do /sbin/ldconfig -r %s -C /etc/c.$f "
			"-f /etc/ld.so.conf -c $f -X 2>/dev/null || exit 1; done", root, root);
	if (sh(cmd) != 0)
		have_ldconfig = 0;
	free(cmd);
}

static const char *const v2_only[] = { "x86-64-v2" };
static const struct ldcache_hw hw_v2 = { v2_only, 1, 1 };

static void test_ldconf_includes(void)
{
	struct ldconf c;

	CHECK_INT(ldconf_load(root, "/etc/ld.so.conf", &c, NULL), 0);
	CHECK_INT(c.ndirs, 2);
	if (c.ndirs == 2) {
		CHECK_STR(c.dirs[0], "/opt/b");	/* the include comes first in the file */
		CHECK_STR(c.dirs[1], "/opt/a");
	}
	CHECK_INT(c.nfiles, 2);
	ldconf_release(&c);
	CHECK_INT(ldconf_load(root, "/etc/missing.conf", &c, NULL), -1);
	ldconf_release(&c);
}

/*
 * What this machine's ldconfig itself put in the cache for soname (first
 * x86-64 entry of `ldconfig -p`), or NULL.  The expectations for /opt/b come
 * from here because how ldconfig reads "  /opt/b=libc6" in an included file
 * differs between glibc releases (Debian 12's 2.36 lists /opt/b, Ubuntu
 * 24.04's 2.39 did not).
 */
static char *ldconfig_lists(const char *cache, const char *soname)
{
	char *cmd = xasprintf("/sbin/ldconfig -p -C '%s%s' 2>/dev/null", root, cache);
	FILE *f = popen(cmd, "r");
	char line[4096], *found = NULL, *want = xasprintf("\t%s (", soname);

	free(cmd);
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *arrow = strstr(line, "=> ");

		if (strncmp(line, want, strlen(want)) || !strstr(line, "x86-64") || !arrow)
			continue;
		arrow[strcspn(arrow, "\n")] = '\0';
		found = xstrdup(arrow + 3);
	}
	if (f)
		pclose(f);
	free(want);
	return found;
}

static void check_lookup_as_ldconfig(struct ldcache *c, const char *cache, const char *soname)
{
	const struct ldcache_entry *x = ldcache_lookup(c, soname, LDCACHE_FLAGS_X86_64, &hw_v2);
	char *want = ldconfig_lists(cache, soname);

	if (want)
		CHECK(x && !strcmp(x->value, want));
	else
		CHECK(x == NULL);
	free(want);
}

static void check_generated(const char *name, enum ldcache_format fmt, const char *want_x_hw,
			    const char *want_x_plain)
{
	struct ldcache *c = NULL;
	const struct ldcache_entry *x;
	struct err e = ERR_INIT;

	if (!have_ldconfig)
		SKIP("no working /sbin/ldconfig to write the cache this test reads");
	CHECK_INT(ldcache_load(root, name, &c, &e), 0);
	if (!c) {
		printf("# %s\n", e.msg);
		return;
	}
	CHECK_INT(c->format, fmt);
	check_lookup_as_ldconfig(c, name, "libgdy.so.2");
	check_lookup_as_ldconfig(c, name, "libgdy.so.10");
	x = ldcache_lookup(c, "libgdx.so.1", LDCACHE_FLAGS_X86_64, &hw_v2);
	CHECK(x && !strcmp(x->value, want_x_hw));
	x = ldcache_lookup(c, "libgdx.so.1", LDCACHE_FLAGS_X86_64, NULL);
	CHECK(x && !strcmp(x->value, want_x_plain));
	CHECK(ldcache_lookup(c, "libgdz.so.3", LDCACHE_FLAGS_X86_64, &hw_v2) == NULL);
	CHECK(ldcache_lookup(c, "libgdy.so.2", LDCACHE_FLAGS_AARCH64, &hw_v2) == NULL);
	CHECK(ldcache_lookup(c, "libgdy.so", LDCACHE_FLAGS_X86_64, &hw_v2) == NULL);
	ldcache_free(c);
}

static void test_new_format(void)
{
	check_generated("/etc/c.new", LDCACHE_NEW, "/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1",
			"/opt/a/libgdx.so.1");
}

/* The old format has no hwcap field: ldconfig writes the hwcaps copy as a plain entry, first. */
static void test_old_format(void)
{
	check_generated("/etc/c.old", LDCACHE_OLD, "/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1",
			"/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1");
}

static void test_compat_format(void)
{
	check_generated("/etc/c.compat", LDCACHE_COMPAT, "/opt/a/glibc-hwcaps/x86-64-v2/libgdx.so.1",
			"/opt/a/libgdx.so.1");
}

static unsigned char *slurp(const char *rel, size_t *n)
{
	char *p = xasprintf("%s%s", root, rel);
	FILE *f = fopen(p, "rb");
	unsigned char *d = xmalloc(1 << 20);

	*n = f ? fread(d, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	free(p);
	return d;
}

/* Every truncation of a valid cache is either parsed or refused, never a crash. */
static void test_truncated_and_corrupt(void)
{
	size_t n, i;
	unsigned char *d;
	struct ldcache *c;
	struct err e = ERR_INIT;

	if (!have_ldconfig)
		SKIP("no working /sbin/ldconfig to write the cache this test reads");
	d = slurp("/etc/c.compat", &n);
	CHECK(n > 100);
	for (i = 0; i < n; i++) {
		if (ldcache_parse(d, i, "t", &c, &e) == 0)
			ldcache_free(c);
	}
	CHECK_INT(ldcache_parse(d, 10, "t", &c, &e), -1);
	CHECK(c == NULL && strstr(e.msg, "not a valid ld.so.cache") != NULL);
	free(d);
	d = slurp("/etc/c.new", &n);
	d[20] = 0xff; d[21] = 0xff;	/* nlibs far past the file */
	CHECK_INT(ldcache_parse(d, n, "t", &c, &e), -1);
	d[20] = 3; d[21] = 0;
	d[48 + 4] = 0xff; d[48 + 5] = 0xff;	/* first key offset outside */
	CHECK_INT(ldcache_parse(d, n, "t", &c, &e), -1);
	free(d);
	CHECK_INT(ldcache_parse((const unsigned char *)"hello world, not a cache", 24, "t", &c, &e), -1);
}

static void test_libcmp(void)
{
	CHECK(ldcache_libcmp("libfoo.so.10", "libfoo.so.9") > 0);
	CHECK(ldcache_libcmp("libfoo.so.9", "libfoo.so.10") < 0);
	CHECK_INT(ldcache_libcmp("libfoo.so.1", "libfoo.so.1"), 0);
	CHECK(ldcache_libcmp("libfoo.so", "libfoo.so.1") < 0);
	CHECK(ldcache_libcmp("libfoo1.so", "libfoo.so") > 0);	/* digit sorts after non-digit */
}

/* This machine's cache agrees with ldconfig -p, entry by entry and in order. */
static void test_real_cache_matches_ldconfig_p(void)
{
	struct ldcache *c = NULL;
	struct err e = ERR_INIT;
	FILE *p;
	char line[4096];
	size_t i = 0, mismatches = 0;

	if (access("/etc/ld.so.cache", R_OK) != 0 || !have_ldconfig)
		SKIP("no /etc/ld.so.cache or no working /sbin/ldconfig");
	CHECK_INT(ldcache_load("/", "/etc/ld.so.cache", &c, &e), 0);
	if (!c)
		return;
	p = popen("/sbin/ldconfig -p", "r");
	CHECK(p != NULL);
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char *arrow = strstr(line, " => "), *sp, *want;

		if (line[0] != '\t' || !arrow)
			continue;
		sp = strchr(line + 1, ' ');
		*sp = '\0';
		arrow[strcspn(arrow, "\n")] = '\0';
		want = arrow + 4;
		if (i >= c->n || strcmp(c->entries[i].key, line + 1) || strcmp(c->entries[i].value, want)) {
			if (mismatches++ < 5)
				printf("# entry %zu: ldconfig -p has %s => %s\n", i, line + 1, want);
		}
		i++;
	}
	pclose(p);
	/* a comparison of nothing proves nothing */
	CHECK(i > 0);
	CHECK_INT(i, c->n);
	CHECK_INT(mismatches, 0);
	printf("# %zu entries, format %s, generator %s\n", c->n, ldcache_format_name(c->format),
	       c->generator ? c->generator : "(none)");
	CHECK(ldcache_lookup(c, "libc.so.6", LDCACHE_FLAGS_X86_64, &hw_v2) != NULL);
	ldcache_free(c);
}

/* A hand-built new-format image: v3 and v2 hwcaps entries before the plain one. */
static void test_handmade_hwcaps_priority(void)
{
	unsigned char d[512] = { 0 };
	const char *strs[] = { "libq.so.1", "/v3/libq.so.1", "/v2/libq.so.1", "/p/libq.so.1",
			       "x86-64-v2", "x86-64-v3" };
	uint32_t off[6], pos = 48 + 3 * 24, ext;
	struct ldcache *c;
	const struct ldcache_entry *x;
	static const char *const v3v2[] = { "x86-64-v3", "x86-64-v2" };
	struct ldcache_hw hw3 = { v3v2, 2, 2 }, hw2 = { v3v2 + 1, 1, 1 };

	memcpy(d, "glibc-ld.so.cache1.1", 20);
	d[20] = 3;
	d[28] = 2;
	for (int i = 0; i < 6; i++) {
		off[i] = pos;
		memcpy(d + pos, strs[i], strlen(strs[i]) + 1);
		pos += (uint32_t)strlen(strs[i]) + 1;
	}
	ext = (pos + 3) & ~3u;
	d[32] = (unsigned char)ext;
	d[33] = (unsigned char)(ext >> 8);
	/* entries: v3 (hwcaps index 1, ISA level 2), v2 (index 0, level 1), plain */
	for (int i = 0; i < 3; i++) {
		unsigned char *en = d + 48 + i * 24;
		uint64_t hw = i == 2 ? 0 : ((1ULL << 62) | ((uint64_t)(i == 0 ? 2 : 1) << 32) | (uint64_t)(i == 0 ? 1 : 0));

		en[0] = 3; en[1] = 3;
		memcpy(en + 4, &off[0], 4);
		memcpy(en + 8, &off[1 + i], 4);
		memcpy(en + 16, &hw, 8);
	}
	{
		uint32_t hdr[2] = { 0xeaa42174u, 1 }, sec[4] = { 1, 0, ext + 24, 8 }, arr[2] = { off[4], off[5] };

		memcpy(d + ext, hdr, 8);
		memcpy(d + ext + 8, sec, 16);
		memcpy(d + ext + 24, arr, 8);
		pos = ext + 32;
	}
	CHECK_INT(ldcache_parse(d, pos, "hand", &c, NULL), 0);
	if (!c)
		return;
	CHECK_INT(c->nhwcaps, 2);
	x = ldcache_lookup(c, "libq.so.1", LDCACHE_FLAGS_X86_64, &hw3);
	CHECK(x && !strcmp(x->value, "/v3/libq.so.1"));
	x = ldcache_lookup(c, "libq.so.1", LDCACHE_FLAGS_X86_64, &hw2);
	CHECK(x && !strcmp(x->value, "/v2/libq.so.1"));
	x = ldcache_lookup(c, "libq.so.1", LDCACHE_FLAGS_X86_64, NULL);
	CHECK(x && !strcmp(x->value, "/p/libq.so.1"));
	ldcache_free(c);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(root))
		return 1;
	setup();
	RUN(test_ldconf_includes);
	RUN(test_new_format);
	RUN(test_old_format);
	RUN(test_compat_format);
	RUN(test_truncated_and_corrupt);
	RUN(test_libcmp);
	RUN(test_real_cache_matches_ldconfig_p);
	RUN(test_handmade_hwcaps_priority);
	cmd = xasprintf("rm -rf %s", root);
	sh(cmd);
	free(cmd);
	return tap_done();
}
