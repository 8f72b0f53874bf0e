/* test_core.c - buf, json, kv, version, fs (root-relative paths and link resolution). */
#include "tap.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/kv.h"
#include "core/shquote.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_buf_printf_grows(void)
{
	struct buf b = BUF_INIT;

	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	CHECK(b.len > 3000);
	CHECK(!strncmp(b.s, "0,1,2,", 6));
	CHECK_INT(strlen(b.s), b.len);
	buf_release(&b);
	CHECK_STR(buf_cstr(&b), "");
}

static void test_buf_detach_unwritten(void)
{
	struct buf b = BUF_INIT;
	char *s = buf_detach(&b);

	CHECK_STR(s, "");
	free(s);
}

static void test_buf_rtrim_detach(void)
{
	struct buf b = BUF_INIT;
	char *s;

	buf_puts(&b, "580.95.05\n \n");
	buf_rtrim(&b);
	CHECK_STR(b.s, "580.95.05");
	s = buf_detach(&b);
	CHECK_STR(s, "580.95.05");
	CHECK(b.s == NULL);
	free(s);
}

static void test_json_escapes_and_nulls(void)
{
	struct json j;

	json_init(&j, 0);
	json_obj_begin(&j, NULL);
	json_str(&j, "a", "q\"b\\\n\x01");
	json_str(&j, "n", NULL);
	json_int_nonneg(&j, "m", -1);
	json_num(&j, "d", NAN);
	json_tribool(&j, "t", 1);
	json_arr_begin(&j, "l");
	json_int(&j, NULL, 3);
	json_arr_end(&j);
	json_obj_end(&j);
	CHECK_STR(j.out.s, "{\"a\":\"q\\\"b\\\\\\n\\u0001\",\"n\":null,\"m\":null,\"d\":null,\"t\":true,\"l\":[3]}");
	json_release(&j);
}

static void test_kv_parse(void)
{
	struct kvlist l = KVLIST_INIT;
	const char *text = "a=1\nname=NVIDIA H200\ngarbage line\nx=a=b\nend\n";

	kvlist_parse(&l, text, strlen(text));
	CHECK(l.complete);
	CHECK_INT(kv_get_ll(&l, "a", -1), 1);
	CHECK_STR(kv_get(&l, "name"), "NVIDIA H200");
	CHECK_STR(kv_get(&l, "x"), "a=b");
	CHECK(kv_get(&l, "missing") == NULL);
	CHECK_INT(kv_get_ll(&l, "name", -7), -7);
	kvlist_release(&l);
	kvlist_parse(&l, "a=1\n", 4);
	CHECK(!l.complete);
	kvlist_release(&l);
}

static void test_version_compare(void)
{
	CHECK(version_cmp_str("580.95.05", "580.65.06") > 0);
	CHECK(version_cmp_str("525.60.13", "525.60.13") == 0);
	CHECK(version_cmp_str("12.4", "12.4.0") == 0);
	CHECK(version_cmp_str("9.10.2", "9.9.0") > 0);
	CHECK(version_cmp_str("garbage", "1.0") < 0);
	/* four and more components (JAX 0.12.0.1, 0.9.0.1 are real releases) */
	CHECK(version_cmp_str("0.12.0.1", "0.12.0") > 0);
	CHECK(version_cmp_str("0.12.0.1", "0.12.1") < 0);
	CHECK(version_cmp_str("0.9.0.1", "0.9.0") > 0);
	CHECK(version_cmp_str("0.9.0.1", "0.10.0") < 0);
	CHECK(version_cmp_str("1.2.3.4.5.6.7", "1.2.3.4.5.6.6") > 0);
	CHECK(version_cmp_str("1.2.3.4.5.6", "1.2.3.4.5.6.0") == 0);
	int ma, mi;
	version_from_cuda_int(12040, &ma, &mi);
	CHECK_INT(ma, 12);
	CHECK_INT(mi, 4);
}

static char *make_root(void)
{
	char tmpl[] = "/tmp/gd-unit-XXXXXX";
	char *r = mkdtemp(tmpl);

	return r ? xstrdup(r) : NULL;
}

static void test_fs_resolve_in_root(void)
{
	char *root = make_root();
	struct buf p = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;

	CHECK(root != NULL);
	if (!root)
		return;
	/* /usr/local/cuda -> /usr/local/cuda-13.0 (absolute, must stay in root) */
	mkdir(fs_path(root, "/usr", &p), 0755);
	mkdir(fs_path(root, "/usr/local", &p), 0755);
	mkdir(fs_path(root, "/usr/local/cuda-13.0", &p), 0755);
	mkdir(fs_path(root, "/usr/local/cuda-13.0/lib64", &p), 0755);
	CHECK(symlink("/usr/local/cuda-13.0", fs_path(root, "/usr/local/cuda", &p)) == 0);
	CHECK(symlink("../lib64", fs_path(root, "/usr/local/cuda-13.0/lib", &p)) == 0);
	CHECK(fs_resolve(root, "/usr/local/cuda/lib64", &out, &e) == 0);
	CHECK_STR(out.s, "/usr/local/cuda-13.0/lib64");
	/* a relative link with .. that climbs above the root is clamped */
	CHECK(symlink("../../../../../../usr", fs_path(root, "/usr/local/up", &p)) == 0);
	CHECK(fs_resolve(root, "/usr/local/up/local/cuda", &out, &e) == 0);
	CHECK_STR(out.s, "/usr/local/cuda-13.0");
	/* reading through an absolute link stays inside the root */
	{
		FILE *f = fopen(fs_path(root, "/usr/local/cuda-13.0/version.txt", &p), "w");
		struct stat st;

		CHECK(f != NULL);
		if (f) {
			fputs("CUDA Version 13.0.96\n", f);
			fclose(f);
		}
		CHECK(strstr(fs_path(root, "/usr/local/cuda/version.txt", &p), root) == p.s);
		CHECK(strstr(p.s, "cuda-13.0") != NULL);
		CHECK(fs_read_line(root, "/usr/local/cuda/version.txt", &out, &e) == 0);
		CHECK_STR(out.s, "CUDA Version 13.0.96");
		CHECK(fs_lstat(root, "/usr/local/cuda", &st) == 0 && S_ISLNK(st.st_mode));
		CHECK(fs_readlink(root, "/usr/local/cuda", &out, &e) == 0);
		CHECK_STR(out.s, "/usr/local/cuda-13.0");
		CHECK(fs_is_dir(root, "/usr/local/cuda/lib64"));
	}
	/* dangling */
	CHECK(symlink("/nowhere", fs_path(root, "/usr/local/dangling", &p)) == 0);
	CHECK(fs_resolve(root, "/usr/local/dangling", &out, &e) == -1);
	CHECK(strstr(e.msg, "/nowhere") != NULL);
	/* loop */
	CHECK(symlink("loop2", fs_path(root, "/usr/loop1", &p)) == 0);
	CHECK(symlink("loop1", fs_path(root, "/usr/loop2", &p)) == 0);
	CHECK(fs_resolve(root, "/usr/loop1", &out, &e) == -1);
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
	buf_release(&p);
	buf_release(&out);
	free(root);
}

static void test_fs_read_and_list(void)
{
	char *root = make_root();
	struct buf p = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	char **names;
	size_t n;
	FILE *f;

	if (!root)
		return;
	mkdir(fs_path(root, "/proc", &p), 0755);
	f = fopen(fs_path(root, "/proc/version", &p), "w");
	CHECK(f != NULL);
	if (f) {
		fputs("first line  \nsecond\n", f);
		fclose(f);
	}
	CHECK(fs_read_line(root, "/proc/version", &out, &e) == 0);
	CHECK_STR(out.s, "first line");
	CHECK(fs_read_file(root, "/proc/version", 4, &out, &e) == -1);
	CHECK(strstr(e.msg, "larger") != NULL);
	CHECK(fs_read_file(root, "/proc/missing", 100, &out, &e) == -1);
	CHECK(strstr(e.msg, "/proc/missing") != NULL);
	CHECK(fs_list_dir(root, "/proc", &names, &n, &e) == 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(names[0], "version");
	fs_names_free(names, n);
	{
		char *j = fs_join("/usr/lib/", "/libcuda.so.1");

		CHECK_STR(j, "/usr/lib/libcuda.so.1");
		free(j);
		j = fs_join("/", "etc");
		CHECK_STR(j, "/etc");
		free(j);
	}
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
	buf_release(&p);
	buf_release(&out);
	free(root);
}

/* n links: /chain -> /c/l1 -> ... -> /c/l(n-1) -> /target (relative hops) */
static void make_chain(const char *root, int n, struct buf *p)
{
	char name[64], target[64];

	CHECK(symlink(n == 1 ? "target" : "c/l1", fs_path(root, "/chain", p)) == 0);
	for (int i = 1; i < n; i++) {
		snprintf(name, sizeof(name), "/c/l%d", i);
		if (i == n - 1)
			snprintf(target, sizeof(target), "../target");
		else
			snprintf(target, sizeof(target), "l%d", i + 1);
		CHECK(symlink(target, fs_path(root, name, p)) == 0);
	}
}

/* The kernel's MAXSYMLINKS: 40 links resolve, the 41st is ELOOP, and a
 * failed lookup never hands the host kernel a path with a link in it. */
static void test_fs_link_limit_and_escape(void)
{
	struct buf p = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;

	for (int n = 39; n <= 42; n++) {
		char *root = make_root(), cmd[600];
		FILE *f;

		if (!root)
			return;
		mkdir(fs_path(root, "/c", &p), 0755);
		f = fopen(fs_path(root, "/target", &p), "w");
		CHECK(f != NULL);
		if (f) {
			fputs("inside\n", f);
			fclose(f);
		}
		make_chain(root, n, &p);
		e.code = 0;
		if (n <= FS_MAXSYMLINKS) {
			CHECK(fs_read_line(root, "/chain", &out, &e) == 0);
			CHECK_STR(out.s, "inside");
		} else {
			CHECK(fs_read_line(root, "/chain", &out, &e) == -1);
			CHECK_INT(e.code, ELOOP);
			CHECK(fs_path(root, "/chain", &p) == NULL);
			CHECK_INT(errno, ELOOP);
			CHECK_STR(p.s, "");
			CHECK(fs_stat(root, "/chain", &st) == -1);
			CHECK(!fs_is_dir(root, "/chain/x"));
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
		free(root);
	}
	{
		/* ".." as the last component stays in the root (lstat and readlink
		 * do not follow the last component: it must still be resolved) */
		char *root = make_root(), cmd[600];
		struct stat in_root, host_parent;

		if (!root)
			return;
		CHECK(fs_lstat(root, "/..", &st) == 0);
		CHECK(stat(root, &in_root) == 0);
		CHECK(st.st_ino == in_root.st_ino);
		snprintf(cmd, sizeof(cmd), "%s/..", root);
		CHECK(stat(cmd, &host_parent) == 0);
		CHECK(st.st_ino != host_parent.st_ino);
		/* a missing directory on the way is an error, a missing last
		 * component a path the kernel will refuse itself */
		CHECK(fs_path(root, "/no/such", &p) == NULL);
		CHECK(fs_path(root, "/nosuch", &p) != NULL);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
		free(root);
	}
	buf_release(&p);
	buf_release(&out);
}

static void test_shquote(void)
{
	struct buf b = BUF_INIT;

	CHECK_STR(shq("/usr/local/cuda-13.0"), "/usr/local/cuda-13.0");
	CHECK_STR(shq("torch==2.5.1+cu124"), "torch==2.5.1+cu124");
	CHECK_STR(shq(""), "''");
	CHECK_STR(shq(NULL), "''");
	CHECK_STR(shq("~root"), "'~root'");
	CHECK_STR(shq("a b"), "'a b'");
	CHECK_STR(shq("cuda-13.0$(touch${IFS}x)"), "'cuda-13.0$(touch${IFS}x)'");
	CHECK_STR(shq("it's"), "'it'\\''s'");
	CHECK_STR(shq("a\nb"), "'a\nb'");
	/* results stay valid for SHQ_RING - 1 further calls */
	{
		const char *first = shq("x y");

		for (int i = 0; i < SHQ_RING - 1; i++)
			shq("z");
		CHECK_STR(first, "'x y'");
	}
	shquote_buf(&b, "a'b");
	buf_puts(&b, " ");
	shquote_buf(&b, "ok");
	CHECK_STR(b.s, "'a'\\''b' ok");
	buf_release(&b);
}

int main(void)
{
	RUN(test_buf_printf_grows);
	RUN(test_buf_rtrim_detach);
	RUN(test_buf_detach_unwritten);
	RUN(test_json_escapes_and_nulls);
	RUN(test_kv_parse);
	RUN(test_version_compare);
	RUN(test_fs_resolve_in_root);
	RUN(test_fs_read_and_list);
	RUN(test_fs_link_limit_and_escape);
	RUN(test_shquote);
	return tap_done();
}
