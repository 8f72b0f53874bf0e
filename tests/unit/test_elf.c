/* test_elf.c - the ELF reader on libraries compiled here, and on broken copies of them. */
#include "loader/elf.h"
#include "core/xalloc.h"
#include "tap.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/gd-test-elf-XXXXXX";

static const char *cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

/* Compile a shared library at tmpdir/name with extra linker arguments. */
static char *build(const char *name, const char *src, const char *extra)
{
	char *c = xasprintf("%s/%s.c", tmpdir, name), *out = xasprintf("%s/%s", tmpdir, name), *cmd;
	FILE *f = fopen(c, "w");

	if (!f)
		return out;
	fputs(src, f);
	fclose(f);
	cmd = xasprintf("%s -shared -fPIC -o %s %s %s 2>&1", cc(), out, c, extra);
	if (system(cmd) != 0)
		printf("# build failed: %s\n", cmd);
	free(cmd);
	free(c);
	return out;
}

/* Write the first n bytes of src (patched at off with val when off >= 0) to dst. */
static char *mutate(const char *src, const char *dst, long n, long off, unsigned char val)
{
	char *out = xasprintf("%s/%s", tmpdir, dst);
	FILE *in = fopen(src, "rb"), *o = fopen(out, "wb");
	long i = 0;
	int ch;

	while (in && o && (ch = fgetc(in)) != EOF && (n < 0 || i < n)) {
		fputc(i == off ? val : ch, o);
		i++;
	}
	if (in)
		fclose(in);
	if (o)
		fclose(o);
	return out;
}

static char *libA;

static void test_dynamic_entries(void)
{
	struct elf_file ef;
	struct err e = ERR_INIT;
	char *dep = build("libdep.so.3", "int dep(void){return 1;}\n", "-Wl,-soname,libdep.so.3");
	char *extra = xasprintf("-Wl,-soname,libA.so.1 -Wl,--no-as-needed %s -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib:/opt/x'", dep);

	libA = build("libA.so.1", "int gd_a_fn(void){return 2;}\nint gd_a_data = 3;\n", extra);
	CHECK_INT(elf_open(libA, &ef, &e), 0);
	CHECK_INT(ef.problem, ELF_OK);
	CHECK_STR(ef.soname, "libA.so.1");
	CHECK_INT(ef.machine, EM_X86_64);
	CHECK_INT(ef.type, ET_DYN);
	CHECK(ef.nneeded >= 2);
	CHECK_STR(ef.needed[0], "libdep.so.3");
	CHECK_STR(ef.runpath, "$ORIGIN/../lib:/opt/x");
	CHECK(ef.rpath == NULL);
	CHECK(ef.bytes_touched > 64 && ef.bytes_touched < ef.size);
	elf_close(&ef);
	free(extra);
	free(dep);
}

static void test_rpath_and_flags(void)
{
	struct elf_file ef;
	char *p = build("libR.so", "int r(void){return 1;}\n",
			"-Wl,--disable-new-dtags -Wl,-rpath,/r1:/r2 -Wl,-z,nodefaultlib -Wl,-z,now");

	CHECK_INT(elf_open(p, &ef, NULL), 0);
	CHECK_STR(ef.rpath, "/r1:/r2");
	CHECK(ef.runpath == NULL);
	CHECK(ef.soname == NULL);
	CHECK(ef.flags_1 & DF_1_NODEFLIB);
	CHECK(ef.flags_1 & DF_1_NOW);
	elf_close(&ef);
	free(p);
}

static void test_symbols(void)
{
	struct elf_file ef;

	CHECK_INT(elf_open(libA, &ef, NULL), 0);
	CHECK_INT(elf_has_symbol(&ef, "gd_a_fn"), 1);
	CHECK_INT(elf_has_symbol(&ef, "gd_a_data"), 1);
	CHECK_INT(elf_has_symbol(&ef, "gd_a_missing"), 0);
	CHECK_INT(elf_has_symbol(&ef, "dep"), 0);	/* undefined here: not a definition */
	CHECK_INT(elf_has_symbol(&ef, ""), 0);
	elf_close(&ef);
}

static void test_sysv_hash(void)
{
	struct elf_file ef;
	char *p = build("libH.so", "int h1(void){return 1;}\nint h2(void){return 2;}\n",
			"-Wl,--hash-style=sysv");

	CHECK_INT(elf_open(p, &ef, NULL), 0);
	CHECK(ef.gnu_hash_off == 0 && ef.hash_off != 0);
	CHECK_INT(elf_has_symbol(&ef, "h1"), 1);
	CHECK_INT(elf_has_symbol(&ef, "h2"), 1);
	CHECK_INT(elf_has_symbol(&ef, "h3"), 0);
	elf_close(&ef);
	free(p);
}

static void test_version_defs(void)
{
	struct elf_file ef;
	char **names;
	size_t n;
	char *map = xasprintf("%s/v.map", tmpdir), *extra, *p;
	FILE *f = fopen(map, "w");

	if (f) {
		fputs("libV_1.0 { global: v1; local: *; };\nlibV_2.0 { global: v2; } libV_1.0;\n", f);
		fclose(f);
	}
	extra = xasprintf("-Wl,-soname,libV.so.2 -Wl,--version-script,%s", map);
	p = build("libV.so.2", "int v1(void){return 1;}\nint v2(void){return 2;}\n", extra);
	CHECK_INT(elf_open(p, &ef, NULL), 0);
	CHECK_INT(elf_version_defs(&ef, &names, &n, NULL), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(names[0], "libV.so.2");	/* the base definition */
		CHECK_STR(names[1], "libV_1.0");
		CHECK_STR(names[2], "libV_2.0");
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	CHECK_INT(elf_has_symbol(&ef, "v2"), 1);
	elf_close(&ef);
	free(map);
	free(extra);
	free(p);
}

static void test_section(void)
{
	struct elf_file ef;
	const unsigned char *d;
	size_t sz;

	CHECK_INT(elf_open(libA, &ef, NULL), 0);
	CHECK_INT(elf_section(&ef, ".dynstr", &d, &sz), 0);
	CHECK(sz > 0 && d && d[0] == '\0');
	CHECK_INT(elf_section(&ef, ".nv_fatbin", &d, &sz), -1);
	CHECK(d == NULL);
	elf_close(&ef);
}

static void expect_problem(const char *path, enum elf_problem p)
{
	struct elf_file ef;
	struct err e = ERR_INIT;

	CHECK_INT(elf_open(path, &ef, &e), -1);
	CHECK_INT(ef.problem, p);
	CHECK(e.msg[0] != '\0');
	CHECK(ef.map == NULL);
	elf_close(&ef);	/* harmless after a failure */
}

static void test_broken_files(void)
{
	struct stat st;
	char *p;

	CHECK_INT(stat(libA, &st), 0);
	p = mutate(libA, "trunc10", 10, -1, 0); expect_problem(p, ELF_TRUNCATED); free(p);
	p = mutate(libA, "trunc100", 100, -1, 0); expect_problem(p, ELF_TRUNCATED); free(p);
	/* Half the file: the dynamic section and strings are past the end. */
	p = mutate(libA, "trunchalf", (long)st.st_size / 2, -1, 0); expect_problem(p, ELF_TRUNCATED); free(p);
	p = mutate(libA, "empty", 0, -1, 0); expect_problem(p, ELF_TRUNCATED); free(p);
	p = mutate(libA, "class32", -1, EI_CLASS, ELFCLASS32); expect_problem(p, ELF_WRONG_CLASS); free(p);
	p = mutate(libA, "machine", -1, 18, 3 /* EM_386 */); expect_problem(p, ELF_WRONG_MACHINE); free(p);
	p = mutate(libA, "bigendian", -1, EI_DATA, ELFDATA2MSB); expect_problem(p, ELF_WRONG_MACHINE); free(p);
	p = mutate(libA, "rel", -1, 16, ET_REL); expect_problem(p, ELF_NOT_SHARED); free(p);
	p = mutate(libA, "notelf", -1, 1, 'X'); expect_problem(p, ELF_NOT_ELF); free(p);
	p = mutate(libA, "phentsize", -1, 54, 32); expect_problem(p, ELF_MALFORMED); free(p);
	/* e_phoff far past the end */
	p = mutate(libA, "phoff", -1, 32 + 6, 0x7f); expect_problem(p, ELF_TRUNCATED); free(p);
	expect_problem("/nonexistent/libX.so", ELF_UNREADABLE);
	expect_problem(tmpdir, ELF_NOT_ELF);
}

static void test_aarch64_accepted(void)
{
	struct elf_file ef;
	char *p = mutate(libA, "aarch64", -1, 18, EM_AARCH64);

	CHECK_INT(elf_open(p, &ef, NULL), 0);
	CHECK_INT(ef.machine, EM_AARCH64);
	elf_close(&ef);
	free(p);
}

/* A real CUDA library: the symbol is found and the file is not read whole. */
static void test_real_cuda_library(void)
{
	const char *p = "/usr/local/cuda/lib64/libcublasLt.so.13";
	struct elf_file ef;

	if (access(p, R_OK) != 0)
		SKIP("%s absent (the CUDA 13 toolkit is not installed)", p);
	CHECK_INT(elf_open(p, &ef, NULL), 0);
	CHECK_STR(ef.soname, "libcublasLt.so.13");
	CHECK_INT(elf_has_symbol(&ef, "cublasLtCreate"), 1);
	CHECK_INT(elf_has_symbol(&ef, "cublasLtNoSuchThing"), 0);
	CHECK(ef.bytes_touched < 1024 * 1024);
	printf("# %s: %zu of %zu bytes touched\n", p, ef.bytes_touched, ef.size);
	elf_close(&ef);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(tmpdir))
		return 1;
	RUN(test_dynamic_entries);
	RUN(test_rpath_and_flags);
	RUN(test_symbols);
	RUN(test_sysv_hash);
	RUN(test_version_defs);
	RUN(test_section);
	RUN(test_broken_files);
	RUN(test_aarch64_accepted);
	RUN(test_real_cuda_library);
	free(libA);
	cmd = xasprintf("rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	free(cmd);
	return tap_done();
}
