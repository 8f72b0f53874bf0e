/* test_kernel.c - the /proc parsers of the kernel probe. */
#include "tap.h"
#include "probes/kernel/kernel.h"

#include <math.h>
#include <string.h>

static void test_modules_line_full(void)
{
	static const char l[] = "nvidia 104071168 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)";
	struct kmod_state st;
	char name[32];

	CHECK_INT(kernel_parse_modules_line(l, strlen(l), name, sizeof(name), &st), 0);
	CHECK_STR(name, "nvidia");
	CHECK_INT(st.loaded, 1);
	CHECK_INT(st.refcount, 2);
	CHECK_STR(st.state, "Live");
	CHECK_STR(st.taint, "POE");
}

static void test_modules_line_no_taint_dash_refcount(void)
{
	static const char l[] = "zstd_compress 299008 - - Loading 0xffffffffc0a00000";
	struct kmod_state st;
	char name[32];

	CHECK_INT(kernel_parse_modules_line(l, strlen(l), name, sizeof(name), &st), 0);
	CHECK_STR(name, "zstd_compress");
	CHECK_INT(st.refcount, -1);
	CHECK_STR(st.state, "Loading");
	CHECK_STR(st.taint, "");
}

static void test_modules_line_bad(void)
{
	struct kmod_state st;
	char name[8];

	CHECK_INT(kernel_parse_modules_line("", 0, name, sizeof(name), &st), -1);
	CHECK_INT(kernel_parse_modules_line("   ", 3, name, sizeof(name), &st), -1);
	CHECK_INT(kernel_parse_modules_line("lonely", 6, name, sizeof(name), &st), -1);
	/* A long name is truncated, never overflows. */
	CHECK_INT(kernel_parse_modules_line("averyveryverylongname 1 0 - Live 0x0", 36, name,
					    sizeof(name), &st), 0);
	CHECK_STR(name, "averyve");
}

static void test_modules_file(void)
{
	static const char t[] =
		"snd 1 0 - Live 0x0\n"
		"nvidia_uvm 1982464 0 - Live 0x0 (POE)\n"
		"nvidia_uvm_extra 1 0 - Live 0x0\n"
		"nouveau 2973696 1 - Live 0x0\n"
		"nvidia 104071168 2 nvidia_uvm, Live 0x0 (POE)";	/* no final newline */
	struct kmod_state m[KMOD_COUNT];

	kernel_parse_modules(t, strlen(t), m);
	CHECK_INT(m[KMOD_NVIDIA].loaded, 1);
	CHECK_INT(m[KMOD_NVIDIA].refcount, 2);
	CHECK_INT(m[KMOD_NVIDIA_UVM].loaded, 1);
	CHECK_INT(m[KMOD_NOUVEAU].loaded, 1);
	CHECK_INT(m[KMOD_NVIDIA_DRM].loaded, 0);
	CHECK_INT(m[KMOD_NOVA_CORE].loaded, 0);
	CHECK_STR(kernel_module_name(KMOD_NVIDIA_MODESET), "nvidia_modeset");
}

static void test_modules_empty(void)
{
	struct kmod_state m[KMOD_COUNT];

	kernel_parse_modules("", 0, m);
	for (int i = 0; i < KMOD_COUNT; i++)
		CHECK_INT(m[i].loaded, 0);
}

static void test_version_open(void)
{
	static const char t[] =
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
		"(dvs-builder@U22)  Wed Oct  1 00:00:00 UTC 2025\n"
		"GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
	char v[32];
	int open;

	CHECK_INT(kernel_parse_nvidia_version(t, strlen(t), v, sizeof(v), &open), 0);
	CHECK_STR(v, "580.95.05");
	CHECK_INT(open, 1);
}

static void test_version_proprietary(void)
{
	static const char t[] =
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
		"GCC version:  gcc version 12.3.0\n";
	char v[32];
	int open;

	CHECK_INT(kernel_parse_nvidia_version(t, strlen(t), v, sizeof(v), &open), 0);
	CHECK_STR(v, "535.104.05");
	CHECK_INT(open, 0);
}

static void test_version_other_shapes(void)
{
	/* Jetson (aarch64) and the reordered form some open builds print. */
	static const char j[] = "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build";
	static const char r[] = "NVRM version: NVIDIA UNIX Open Kernel x86_64 Kernel Module  590.48.01  Mon Dec  8";
	static const char two[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.58  Sat";
	char v[32];
	int open;

	CHECK_INT(kernel_parse_nvidia_version(j, strlen(j), v, sizeof(v), &open), 0);
	CHECK_STR(v, "35.3.1");
	CHECK_INT(open, 1);
	CHECK_INT(kernel_parse_nvidia_version(r, strlen(r), v, sizeof(v), &open), 0);
	CHECK_STR(v, "590.48.01");
	CHECK_INT(open, 1);
	CHECK_INT(kernel_parse_nvidia_version(two, strlen(two), v, sizeof(v), &open), 0);
	CHECK_STR(v, "555.58");
}

static void test_version_bad(void)
{
	static const char gcc_only[] = "GCC version:  gcc version 12.3.0\n";
	static const char nover[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  Sat Aug 1.\n";
	char v[8];
	int open;

	CHECK_INT(kernel_parse_nvidia_version("", 0, v, sizeof(v), &open), -1);
	CHECK_INT(open, -1);
	CHECK_INT(kernel_parse_nvidia_version(gcc_only, strlen(gcc_only), v, sizeof(v), &open), -1);
	CHECK_INT(kernel_parse_nvidia_version(nover, strlen(nover), v, sizeof(v), &open), -1);
	CHECK_STR(v, "");
	/* Not NUL-terminated within len: the parser must stop at len. */
	CHECK_INT(kernel_parse_nvidia_version("NVRM version: 1.2", 13, v, sizeof(v), &open), -1);
}

static void test_efivar(void)
{
	static const unsigned char on[] = { 6, 0, 0, 0, 1 }, off[] = { 6, 0, 0, 0, 0 };
	static const unsigned char bad[] = { 6, 0, 0, 0, 7 }, longer[] = { 6, 0, 0, 0, 1, 0 };

	CHECK_INT(kernel_parse_efivar_bool(on, sizeof(on)), 1);
	CHECK_INT(kernel_parse_efivar_bool(off, sizeof(off)), 0);
	CHECK_INT(kernel_parse_efivar_bool(bad, sizeof(bad)), -1);
	CHECK_INT(kernel_parse_efivar_bool(longer, sizeof(longer)), -1);
	CHECK_INT(kernel_parse_efivar_bool(on, 1), -1);
	CHECK_INT(kernel_parse_efivar_bool(on, 0), -1);
}

int main(void)
{
	RUN(test_modules_line_full);
	RUN(test_modules_line_no_taint_dash_refcount);
	RUN(test_modules_line_bad);
	RUN(test_modules_file);
	RUN(test_modules_empty);
	RUN(test_version_open);
	RUN(test_version_proprietary);
	RUN(test_version_other_shapes);
	RUN(test_version_bad);
	RUN(test_efivar);
	return tap_done();
}
