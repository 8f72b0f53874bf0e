/*
 * test_kb_rules.c - the compatibility rules (driver vs runtime, archs vs CC,
 * cuDNN runtime vs build), the framework fit checks, the claims that
 * shared/facts.md section 7 marks false, and --kb DIR loading and errors.
 */
#include "knowledge/kb.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct kb *kb;

static void test_driver_runs_cuda(void)
{
	struct kb_verdict v;

	CHECK_INT(kb_driver_runs_cuda(kb, "520.61.05", 11080, 0, &v), 1);	/* toolkit floor */
	CHECK_INT(kb_driver_runs_cuda(kb, "450.80.02", 11080, 0, &v), 1);	/* minor-version compat */
	CHECK(strstr(v.why, "minor-version compatibility") != NULL);
	CHECK_INT(kb_driver_runs_cuda(kb, "450.51.05", 11080, 0, &v), 0);
	CHECK_INT(kb_driver_runs_cuda(kb, "525.60.13", 12020, 0, &v), 1);
	CHECK_INT(kb_driver_runs_cuda(kb, "535.54.03", 12020, 0, &v), 1);
	CHECK_INT(kb_driver_runs_cuda(kb, "470.256.02", 12050, 0, &v), 0);
	CHECK(strstr(v.why, "525.60.13") != NULL && strstr(v.why, "555.42.02") != NULL);
	CHECK(strstr(v.why, "not available on GeForce") != NULL);
	CHECK_INT(kb_driver_runs_cuda(kb, "470.256.02", 12050, 1, &v), 0);
	CHECK(strstr(v.why, "cuda-compat-12") != NULL);
	CHECK_INT(kb_driver_runs_cuda(kb, "580.65.06", 13000, 0, &v), 1);
	CHECK_INT(kb_driver_runs_cuda(kb, "580.65.06", 13020, 0, &v), 1);	/* 13.x minor compat */
	CHECK_INT(kb_driver_runs_cuda(kb, "575.57.08", 13000, 0, &v), 0);
	CHECK_INT(kb_driver_runs_cuda(kb, "620.10", 13050, 0, &v), 1);	/* 13.5 floor unknown, >= 580 */
	CHECK_INT(kb_driver_runs_cuda(kb, "580.95.05", 11080, 0, &v), 1);	/* no upper cap */
	CHECK_INT(kb_driver_runs_cuda(kb, "bogus", 12000, 0, &v), -1);
	CHECK_INT(kb_driver_runs_cuda(kb, "535.104.05", -1, 0, &v), -1);
	CHECK_INT(kb_driver_runs_cuda(kb, "535.104.05", 12020, 0, NULL), 1);
}

static int runs(const char *list, int ma, int mi)
{
	const char *a[1] = { list };
	struct kb_verdict v;

	return kb_arch_runs(a, 1, ma, mi, &v);
}

static void test_arch_runs(void)
{
	struct kb_verdict v;
	const char *tf220[] = { "sm_60", "sm_70", "sm_80", "sm_89", "compute_90" };

	CHECK_INT(runs("sm_86", 8, 9), 1);
	CHECK_INT(runs("sm_86", 8, 6), 1);
	CHECK_INT(runs("sm_86", 8, 0), 0);	/* SASS does not run on an older minor */
	CHECK_INT(runs("sm_80", 9, 0), 0);	/* nor on another major */
	CHECK_INT(runs("sm_90a", 9, 0), 1);
	CHECK_INT(runs("sm_100a", 10, 3), 0);	/* arch-specific: exactly 10.0 */
	CHECK_INT(runs("sm_100", 10, 3), 1);
	CHECK_INT(runs("sm_100f", 10, 3), 1);	/* family: same major, newer minor */
	CHECK_INT(runs("compute_80", 8, 9), 1);	/* PTX JIT */
	CHECK_INT(runs("compute_80", 12, 0), 1);
	CHECK_INT(runs("compute_80", 7, 5), 0);
	CHECK_INT(runs("compute_90a", 10, 0), 0);
	CHECK_INT(runs("8.6+PTX", 12, 0), 1);
	CHECK_INT(runs("8.6", 12, 0), 0);
	CHECK_INT(runs("7.5;8.0;8.6;9.0;10.0;12.0+PTX", 7, 0), 0);	/* torch cu130 on V100 */
	CHECK_INT(runs("5.0;6.0;7.0;7.5;8.0;8.6;9.0", 7, 0), 1);	/* torch cu126 on V100 */
	CHECK_INT(runs("5.0;6.0;7.0;7.5;8.0;8.6;9.0", 12, 0), 0);	/* no PTX: not on Blackwell */
	CHECK_INT(kb_arch_runs(tf220, 5, 12, 0, &v), 1);
	CHECK(strstr(v.why, "compute_90") != NULL);
	CHECK_INT(kb_arch_runs(tf220, 5, 5, 2, &v), 0);
	CHECK_INT(kb_arch_runs(tf220, 5, 8, 6, &v), 1);
	CHECK_INT(runs("garbage", 8, 0), -1);
	CHECK_INT(runs("sm_86", -1, -1), -1);
	CHECK_INT(kb_arch_runs(NULL, 0, 8, 0, &v), -1);
	/* the runtime loads the newest SASS that fits: 8.6 on an 8.9 GPU, not 8.0 */
	{
		const char *t215[] = { "7.5;8.0;8.6;9.0;10.0;12.0" };

		CHECK_INT(kb_arch_runs(t215, 1, 8, 9, &v), 1);
		CHECK(strstr(v.why, "8.6 SASS") != NULL);
		CHECK_INT(kb_arch_runs(t215, 1, 12, 1, &v), 1);
		CHECK(strstr(v.why, "12.0 SASS") != NULL);
		CHECK_INT(kb_arch_runs(t215, 1, 7, 0, &v), 0);
	}
}

static void test_cudnn_satisfies(void)
{
	struct kb_verdict v;

	CHECK_INT(kb_cudnn_satisfies("9.3.0", "9.1", &v), 1);
	CHECK_INT(kb_cudnn_satisfies("8.9.7", "8.9", &v), 1);
	CHECK_INT(kb_cudnn_satisfies("9.1.0", "9.3", &v), 0);
	CHECK_INT(kb_cudnn_satisfies("9.14.0", "9.19.0", &v), 0);	/* the H200 failure in facts.md 10 */
	CHECK_INT(kb_cudnn_satisfies("8.9.7", "9", &v), 0);
	CHECK_INT(kb_cudnn_satisfies("9.19.0", "9", &v), 1);	/* TF build_info: major only */
	CHECK_INT(kb_cudnn_satisfies("x", "9", &v), -1);
	CHECK_INT(kb_cudnn_satisfies(NULL, "9", NULL), -1);
}

/* facts.md section 7: claims the widely copied guide gets wrong */
static void test_claim_a_d_tf215_is_cuda12(void)
{
	const struct kb_tf *t = kb_tf_release(kb, "2.15.0");

	CHECK(t && !strcmp(t->cuda, "12.2") && !strcmp(t->cudnn, "8.9"));
	CHECK(t && t->cuda_version / 1000 == 12);
}

static void test_claim_b_tf212_214(void)
{
	CHECK_STR(kb_tf_release(kb, "2.14")->cudnn, "8.7");
	CHECK_STR(kb_tf_release(kb, "2.14")->cuda, "11.8");
	CHECK_STR(kb_tf_release(kb, "2.13")->cuda, "11.8");
	CHECK_STR(kb_tf_release(kb, "2.13")->cudnn, "8.6");
	CHECK_STR(kb_tf_release(kb, "2.12")->cuda, "11.8");
	CHECK_STR(kb_tf_release(kb, "2.12")->cudnn, "8.6");
	CHECK_STR(kb_tf_release(kb, "2.11")->cuda, "11.2");	/* b4: true */
	CHECK_STR(kb_tf_release(kb, "2.11")->cudnn, "8.1");
}

static void test_claim_c_cuda118_on_rtx4090(void)
{
	const struct kb_gpu *g = kb_gpu_by_pci(kb, 0x10de, 0x2684);
	struct kb_verdict v;

	CHECK(g && g->cc_major == 8 && g->cc_minor == 9);
	CHECK_INT(kb_arch_info(kb, 8, 9)->first_cuda, 11080);	/* 11.8 is the first toolkit for sm_89 */
	CHECK_STR(kb_cuda_min_driver(kb, 11080), "520.61.05");
	CHECK_INT(kb_driver_runs_cuda(kb, "520.61.05", 11080, 0, &v), 1);
	CHECK_INT(kb_driver_runs_cuda(kb, "580.95.05", 11080, 0, &v), 1);	/* no R470 cap */
	CHECK_INT(kb_driver_cuda_version(kb, "470.256.02"), 11040);	/* R470 is the 11.4 branch */
	/* torch cu118 builds (2.1-2.5) carry sm_90 SASS + nothing for 8.9 except 8.6 SASS: runs */
	CHECK_INT(kb_torch_fits(kb, kb_torch_release(kb, "2.5", "cu118"), "520.61.05", 8, 9, 0, &v), 1);
}

static void test_claim_e_nccl_soname(void)
{
	CHECK_STR(kb_soname(kb, 12, "nccl"), "libnccl.so.2");
}

static void test_claim_f_min_cc(void)
{
	struct kb_verdict v;

	CHECK_STR(kb_fact(kb, "tf.documented_min_cc"), "3.5");
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.14"), NULL, 3, 5, -1, &v), 1);
	/* stale for 2.18+: its wheels start at sm_60 */
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.18"), NULL, 3, 5, -1, &v), 0);
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.18"), NULL, 5, 2, -1, &v), 0);
}

static void test_claim_i_tf215_driver_floor(void)
{
	struct kb_verdict v;

	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.15"), "450.80.02", -1, -1, 0, &v), 0);
	CHECK(strstr(v.why, "525.60.13") != NULL);
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.15"), "525.60.13", -1, -1, 0, &v), 1);
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.15"), "535.54.03", -1, -1, 0, &v), 1);
	for (int m = 11; m <= 14; m++) {
		char ver[16];

		snprintf(ver, sizeof(ver), "2.%d", m);
		CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, ver), "450.80.02", -1, -1, 0, &v), 1);
	}
}

/* The example: --tf 2.21 --driver 470.256.02 */
static void test_tf221_on_r470(void)
{
	struct kb_verdict v;

	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.21"), "470.256.02", -1, -1, -1, &v), 0);
	CHECK(strstr(v.why, "CUDA 12.5") != NULL);
	CHECK(strstr(v.why, "525.60.13") != NULL);
}

static void test_torch_jax_fits(void)
{
	struct kb_verdict v;

	/* GTX 1080 Ti (6.1) needs the cu126 wheel from 2.8 on */
	CHECK_INT(kb_torch_fits(kb, kb_torch_release(kb, "2.8", "cu128"), "570.26", 6, 1, 0, &v), 0);
	CHECK_INT(kb_torch_fits(kb, kb_torch_release(kb, "2.8", "cu126"), "570.26", 6, 1, 0, &v), 1);
	/* V100 on 2.11 cu128: Volta dropped */
	CHECK_INT(kb_torch_fits(kb, kb_torch_release(kb, "2.11", "cu128"), "570.26", 7, 0, 1, &v), 0);
	/* cu130 on a 575 driver: no (13.x needs >= 580) */
	CHECK_INT(kb_torch_fits(kb, kb_torch_release(kb, "2.14", "cu130"), "575.57.08", 9, 0, 0, &v), 0);
	CHECK_INT(kb_jax_fits(kb, kb_jax_release(kb, NULL, "cuda13"), "580.95.05", 7, 0, 1, &v), 0);
	CHECK_INT(kb_jax_fits(kb, kb_jax_release(kb, NULL, "cuda13"), "580.95.05", 9, 0, 1, &v), 1);
	CHECK_INT(kb_jax_fits(kb, kb_jax_release(kb, NULL, "cuda12"), "535.104.05", 5, 0, 0, &v), 0);
	/* 2.15's wheel: sm_50..sm_75 SASS and compute_80 PTX */
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.15"), NULL, 3, 7, -1, &v), 0);
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.15"), NULL, 8, 6, -1, &v), 1);
	/* 2.12's wheel (build_info.py): compute_80 PTX runs on 8.6 */
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.12"), NULL, 8, 6, -1, &v), 1);
	/* unknown arch list (2.2's wheel does not record it): unknown at best, never yes */
	CHECK_INT(kb_tf_fits(kb, kb_tf_release(kb, "2.2"), NULL, 7, 5, -1, &v), -1);
}

static char tmpdir[64];

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_kb_dir(void)
{
	struct kb *k = NULL;
	struct err e = ERR_INIT;
	struct kb_table_info ti;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gd-kb-test.XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	/* a file present overrides the embedded one; others stay embedded */
	put("tf.tsv", "# as-of: 2030-01-01\nversion\tpython\tcompiler\tbuild_tool\tcudnn\tcuda\tarchs\t"
	    "archs_conf\tinstall\tsource\n9.1.0\t3.14\tx\ty\t9.9\t13.1\t-\t-\tpip install tf\ttf-source-md\n");
	CHECK_INT(kb_open(tmpdir, &k, &e), 0);
	if (k) {
		CHECK_INT(kb_tf_count(k), 1);
		CHECK_STR(kb_tf_release(k, "9.1")->cuda, "13.1");
		kb_table_info(k, 2, &ti);
		CHECK_STR(ti.as_of, "2030-01-01");
		CHECK(strstr(ti.origin, "tf.tsv") != NULL);
		CHECK(kb_gpu_by_pci(k, 0x10de, 0x2335) != NULL);
		kb_close(k);
	}
	/* a malformed row names the file and line */
	put("tf.tsv", "# c\nversion\tpython\tcompiler\tbuild_tool\tcudnn\tcuda\tarchs\tarchs_conf\t"
	    "install\tsource\n9.1.0\t3.14\tx\n");
	CHECK_INT(kb_open(tmpdir, &k, &e), -1);
	CHECK(strstr(e.msg, "tf.tsv:3:") != NULL);
	put("tf.tsv", "version\tpython\tcompiler\tbuild_tool\tcudnn\tcuda\tarchs\tarchs_conf\t"
	    "install\tsource\n9.1.0\t3.14\tx\ty\t9.9\ttwelve\t-\t-\tpip\ttf-source-md\n");
	CHECK_INT(kb_open(tmpdir, &k, &e), -1);
	CHECK(strstr(e.msg, "tf.tsv:2:") != NULL && strstr(e.msg, "cuda") != NULL);
	put("tf.tsv", "version\tpython\tcompiler\tbuild_tool\tcudnn\tcuda\tarchs\tarchs_conf\t"
	    "install\tsource\n9.1.0\t3.14\tx\ty\t9.9\t12.1\t-\t-\tpip\tno-such-source\n");
	CHECK_INT(kb_open(tmpdir, &k, &e), -1);
	CHECK(strstr(e.msg, "no-such-source") != NULL);
	put("tf.tsv", "version\tpython\n");
	CHECK_INT(kb_open(tmpdir, &k, &e), -1);
	CHECK(strstr(e.msg, "no column") != NULL);
	CHECK_INT(kb_open("/nonexistent/kb", &k, &e), -1);
	CHECK(strstr(e.msg, "not a directory") != NULL);
	{
		char path[128], link[128];

		/* kb_open_trusted checks what it reads, by descriptor: a table
		   others may write, or a link, is refused; kb_open reads both. */
		put("tf.tsv", "# as-of: 2030-01-01\nversion\tpython\tcompiler\tbuild_tool\tcudnn\tcuda\t"
		    "archs\tarchs_conf\tinstall\tsource\n9.1.0\t3.14\tx\ty\t9.9\t13.1\t-\t-\tpip\t"
		    "tf-source-md\n");
		snprintf(path, sizeof(path), "%s/tf.tsv", tmpdir);
		chmod(tmpdir, 0755);
		chmod(path, 0644);
		CHECK_INT(kb_open_trusted(tmpdir, &k, &e), 0);
		kb_close(k);
		chmod(path, 0664);
		CHECK_INT(kb_open_trusted(tmpdir, &k, &e), -1);
		CHECK(strstr(e.msg, "writable by its group") != NULL);
		CHECK_INT(kb_open(tmpdir, &k, &e), 0);
		kb_close(k);
		chmod(path, 0644);
		snprintf(link, sizeof(link), "%s/cupy.tsv", tmpdir);
		CHECK_INT(symlink(path, link), 0);
		CHECK_INT(kb_open_trusted(tmpdir, &k, &e), -1);
		CHECK(strstr(e.msg, "symbolic link") != NULL);
		unlink(link);
		chmod(tmpdir, 0777);
		CHECK_INT(kb_open_trusted(tmpdir, &k, &e), -1);
		CHECK(strstr(e.msg, "writable by every user") != NULL);
		chmod(tmpdir, 0700);
		unlink(path);
		rmdir(tmpdir);
	}
}

int main(void)
{
	struct err e = ERR_INIT;

	if (kb_open(NULL, &kb, &e) < 0) {
		printf("not ok 1 - kb_open: %s\n1..1\n", e.msg);
		return 1;
	}
	RUN(test_driver_runs_cuda);
	RUN(test_arch_runs);
	RUN(test_cudnn_satisfies);
	RUN(test_claim_a_d_tf215_is_cuda12);
	RUN(test_claim_b_tf212_214);
	RUN(test_claim_c_cuda118_on_rtx4090);
	RUN(test_claim_e_nccl_soname);
	RUN(test_claim_f_min_cc);
	RUN(test_claim_i_tf215_driver_floor);
	RUN(test_tf221_on_r470);
	RUN(test_torch_jax_fits);
	RUN(test_kb_dir);
	kb_close(kb);
	return tap_done();
}
