/*
 * test_kb_facts.c - the verified facts of the knowledge base, asserted through
 * the public query functions of knowledge/kb.h (never by reading the tables).
 * Where a source's own text is recorded in tests/unit/extracts/ (pci.ids'
 * NVIDIA lines, TensorFlow's tested GPU builds), the facts are checked
 * against that extract, not against a copy of the table typed into this file.
 */
#include "knowledge/kb.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct kb *kb;

/* The path of a recorded source extract, next to this file. */
static FILE *open_extract(const char *name)
{
	char path[512];
	const char *slash = strrchr(__FILE__, '/');
	FILE *f;

	snprintf(path, sizeof(path), "%.*sextracts/%s", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__,
		 name);
	f = fopen(path, "r");
	if (!f)
		printf("#   cannot open %s\n", path);
	return f;
}

/* 1.1 TensorFlow tested build configurations: every row of tf.tsv against
 * the Linux GPU table of tensorflow.org/install/source, as recorded in
 * extracts/tf-tested-gpu-builds.txt ("<tr><td>tensorflow-2.16.1</td><td>3.9-3.12
 * </td><td>Clang 17.0.6</td><td>Bazel 6.5.0</td><td>8.9</td><td>12.3</td></tr>"). */
static void test_tf_tested_builds(void)
{
	char line[512];
	size_t rows = 0, matched = 0;
	FILE *f = open_extract("tf-tested-gpu-builds.txt");

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *cell[6], *p = line;
		const struct kb_tf *t;
		const char *ver;
		int n = 0;

		if (strncmp(line, "<tr><td>", 8))
			continue;
		while (n < 6 && (p = strstr(p, "<td>")) != NULL) {
			char *end = strstr(p + 4, "</td>");

			if (!end)
				break;
			*end = '\0';
			cell[n++] = p + 4;
			p = end + 5;
		}
		CHECK_INT(n, 6);
		if (n < 6 || !(ver = strrchr(cell[0], '-')))
			continue;
		rows++;
		ver++;
		t = kb_tf_release(kb, ver);
		if (!t || strcmp(t->version, ver))
			continue;	/* older than the table */
		matched++;
		CHECK_STR(t->python, cell[1]);
		CHECK_STR(t->compiler, cell[2]);
		CHECK_STR(t->cudnn, cell[4]);
		CHECK_STR(t->cuda, cell[5]);
		CHECK(t->source != NULL);
	}
	if (f)
		fclose(f);
	CHECK(rows > 30);
	/* every row of the table is one of the page's */
	CHECK_INT(matched, kb_tf_count(kb));
	CHECK_INT(kb_tf_count(kb), 25);
	CHECK_STR(kb_tf_release(kb, "2.16")->version, "2.16.1");	/* note 2: 2.16.1, not 2.16.0 */
	CHECK_STR(kb_tf_release(kb, "2.15.1")->version, "2.15.0");
	CHECK(kb_tf_release(kb, "2.99") == NULL);
}

/* 1.2 packaging milestones */
static void test_tf_packaging(void)
{
	CHECK_STR(kb_fact(kb, "tf.and_cuda_first"), "2.14");
	CHECK_STR(kb_fact(kb, "tf.windows_gpu_last"), "2.10");
	CHECK_STR(kb_fact(kb, "tf.gpu_package_stub"), "2.12.0");
	CHECK_STR(kb_fact(kb, "tf.documented_driver_floor"), "525.60.13");
	CHECK(strstr(kb_tf_release(kb, "2.14")->install, "tensorflow[and-cuda]") != NULL);
	CHECK(strstr(kb_tf_release(kb, "2.13")->install, "and-cuda") == NULL);
	CHECK(strstr(kb_tf_release(kb, "1.15")->install, "tensorflow-gpu") != NULL);
}

/* 1.4 sonames per CUDA major */
static void test_sonames(void)
{
	CHECK_STR(kb_soname(kb, 12, "cudart"), "libcudart.so.12");
	CHECK_STR(kb_soname(kb, 12, "cublas"), "libcublas.so.12");
	CHECK_STR(kb_soname(kb, 12, "cublasLt"), "libcublasLt.so.12");
	CHECK_STR(kb_soname(kb, 12, "cufft"), "libcufft.so.11");
	CHECK_STR(kb_soname(kb, 12, "cusolver"), "libcusolver.so.11");
	CHECK_STR(kb_soname(kb, 12, "cusparse"), "libcusparse.so.12");
	CHECK_STR(kb_soname(kb, 12, "curand"), "libcurand.so.10");
	CHECK_STR(kb_soname(kb, 13, "cudart"), "libcudart.so.13");
	CHECK_STR(kb_soname(kb, 13, "cublas"), "libcublas.so.13");
	CHECK_STR(kb_soname(kb, 13, "cufft"), "libcufft.so.12");
	CHECK_STR(kb_soname(kb, 13, "cusolver"), "libcusolver.so.12");
	CHECK_STR(kb_soname(kb, 13, "cusparse"), "libcusparse.so.12");
	CHECK_STR(kb_soname(kb, 13, "curand"), "libcurand.so.10");
	CHECK_STR(kb_soname(kb, 11, "cudart"), "libcudart.so.11.0");	/* from the cu11 wheel */
	CHECK_STR(kb_soname(kb, 8, "cudnn"), "libcudnn.so.8");
	CHECK_STR(kb_soname(kb, 9, "cudnn"), "libcudnn.so.9");
	CHECK_STR(kb_soname(kb, 12, "nccl"), "libnccl.so.2");
	CHECK_STR(kb_soname(kb, 13, "nccl"), "libnccl.so.2");
	CHECK(kb_soname(kb, 12, "nosuchlib") == NULL);
	CHECK(kb_soname(kb, 99, "cudart") == NULL);
}

/* 2.1 Table 3: toolkit -> minimum driver, Linux and Windows */
static void test_cuda_min_driver(void)
{
	static const struct { const char *tk, *rel, *lin, *win; } rows[] = {
		{ "13.2", "Update 2", "595.71.05", NULL }, { "13.2", "Update 1", "595.58.03", NULL },
		{ "13.2", "GA", "595.45.04", NULL }, { "13.1", "Update 1", "590.48.01", NULL },
		{ "13.1", "GA", "590.44.01", NULL }, { "13.0", "Update 2", "580.95.05", NULL },
		{ "13.0", "Update 1", "580.82.07", NULL }, { "13.0", "GA", "580.65.06", NULL },
		{ "12.9", "Update 1", "575.57.08", "576.57" }, { "12.9", "GA", "575.51.03", "576.02" },
		{ "12.8", "Update 1", "570.124.06", "572.61" }, { "12.8", "GA", "570.26", "570.65" },
		{ "12.6", "Update 3", "560.35.05", "561.17" }, { "12.6", "Update 2", "560.35.03", "560.94" },
		{ "12.6", "Update 1", "560.35.03", "560.94" }, { "12.6", "GA", "560.28.03", "560.76" },
		{ "12.5", "Update 1", "555.42.06", "555.85" }, { "12.5", "GA", "555.42.02", "555.85" },
		{ "12.4", "Update 1", "550.54.15", "551.78" }, { "12.4", "GA", "550.54.14", "551.61" },
		{ "12.3", "Update 1", "545.23.08", "546.12" }, { "12.3", "GA", "545.23.06", "545.84" },
		{ "12.2", "Update 2", "535.104.05", "537.13" }, { "12.2", "Update 1", "535.86.09", "536.67" },
		{ "12.2", "GA", "535.54.03", "536.25" }, { "12.1", "Update 1", "530.30.02", "531.14" },
		{ "12.1", "GA", "530.30.02", "531.14" }, { "12.0", "Update 1", "525.85.12", "528.33" },
		{ "12.0", "GA", "525.60.13", "527.41" }, { "11.8", "GA", "520.61.05", "520.06" },
		{ "11.7", "Update 1", "515.48.07", "516.31" }, { "11.7", "GA", "515.43.04", "516.01" },
		{ "11.6", "Update 2", "510.47.03", "511.65" }, { "11.6", "Update 1", "510.47.03", "511.65" },
		{ "11.6", "GA", "510.39.01", "511.23" }, { "11.5", "Update 2", "495.29.05", "496.13" },
		{ "11.5", "Update 1", "495.29.05", "496.13" }, { "11.5", "GA", "495.29.05", "496.04" },
		{ "11.4", "Update 4", "470.82.01", "472.50" }, { "11.4", "Update 3", "470.82.01", "472.50" },
		{ "11.4", "Update 2", "470.57.02", "471.41" }, { "11.4", "Update 1", "470.57.02", "471.41" },
		{ "11.4", "GA", "470.42.01", "471.11" }, { "11.3", "Update 1", "465.19.01", "465.89" },
		{ "11.3", "GA", "465.19.01", "465.89" }, { "11.2", "Update 2", "460.32.03", "461.33" },
		{ "11.2", "Update 1", "460.32.03", "461.09" }, { "11.2", "GA", "460.27.03", "460.82" },
		{ "11.1", "Update 1", "455.32", "456.81" }, { "11.1", "GA", "455.23", "456.38" },
		{ "11.0", "Update 1", "450.51.06", "451.82" }, { "11.0", "GA", "450.51.05", "451.48" },
		{ "11.0", "RC", "450.36.06", "451.22" }, { "10.2", "GA", "440.33", "441.22" },
		{ "10.1", "GA", "418.39", "418.96" }, { "10.0", "GA", "410.48", "411.31" },
		{ "9.2", "Update 1", "396.37", "398.26" }, { "9.2", "GA", "396.26", "397.44" },
		{ "9.1", "GA", "390.46", "391.29" }, { "9.0", "GA", "384.81", "385.54" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct kb_cuda_release *found = NULL;

		for (size_t k = 0; k < kb_cuda_count(kb); k++) {
			const struct kb_cuda_release *r = kb_cuda_at(kb, k);

			if (!strcmp(r->toolkit, rows[i].tk) && !strcmp(r->release, rows[i].rel))
				found = r;
		}
		CHECK(found != NULL);
		if (!found) {
			printf("#   missing %s %s\n", rows[i].tk, rows[i].rel);
			continue;
		}
		CHECK_STR(found->linux_min, rows[i].lin);
		if (rows[i].win)
			CHECK_STR(found->windows_min, rows[i].win);
		else
			CHECK(found->windows_min == NULL);
		if (!strcmp(rows[i].rel, "GA"))
			CHECK_STR(kb_cuda_min_driver(kb, kb_parse_cuda(rows[i].tk)), rows[i].lin);
	}
	CHECK_STR(kb_cuda_min_driver(kb, 12040), "550.54.14");
	CHECK(kb_cuda_min_driver(kb, 13050) == NULL);	/* 13.5: not known */
	CHECK_INT(kb_cuda_newest_for_driver(kb, "535.104.05"), 12020);
	CHECK_INT(kb_cuda_newest_for_driver(kb, "470.256.02"), 11040);
}

/* 2.2 minor-version compatibility floors */
static void test_compat_floors(void)
{
	CHECK_STR(kb_cuda_compat_floor(kb, 11), "450.80.02");
	CHECK_STR(kb_cuda_compat_floor(kb, 12), "525.60.13");
	CHECK_STR(kb_cuda_compat_floor(kb, 13), "580.65.06");
	CHECK(kb_cuda_compat_floor(kb, 10) == NULL);
}

/* 2.3 driver branch -> reported CUDA version (1000*major + 10*minor) */
static void test_branches(void)
{
	static const struct { const char *drv; int cuda; } rows[] = {
		{ "410.48", 10000 }, { "418.39", 10010 }, { "440.33", 10020 }, { "450.80.02", 11000 },
		{ "455.23", 11010 }, { "460.27.03", 11020 }, { "465.19.01", 11030 },
		{ "470.256.02", 11040 }, { "495.29.05", 11050 }, { "510.47.03", 11060 },
		{ "515.43.04", 11070 }, { "520.61.05", 11080 }, { "525.60.13", 12000 },
		{ "530.30.02", 12010 }, { "535.104.05", 12020 }, { "545.23.06", 12030 },
		{ "550.54.14", 12040 }, { "555.42.02", 12050 }, { "560.35.03", 12060 },
		{ "570.26", 12080 }, { "575.51.03", 12090 }, { "580.95.05", 13000 },
		{ "590.44.01", 13010 }, { "595.71.05", 13020 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_INT(kb_driver_cuda_version(kb, rows[i].drv), rows[i].cuda);
	CHECK_INT(kb_driver_cuda_version(kb, "999.1"), -1);
	CHECK_INT(kb_driver_cuda_version(kb, "garbage"), -1);
}

/* 2.4 forward compatibility: data-center GPUs and Jetson only */
static void test_forward_compat_class(void)
{
	CHECK_INT(kb_gpu_by_pci(kb, 0x10de, 0x2335)->datacenter, 1);	/* H200 */
	CHECK_INT(kb_gpu_by_pci(kb, 0x10de, 0x1eb8)->datacenter, 1);	/* T4 */
	CHECK_INT(kb_gpu_by_pci(kb, 0x10de, 0x2684)->datacenter, 0);	/* RTX 4090 */
	CHECK_INT(kb_gpu_by_pci(kb, 0x10de, 0x2230)->datacenter, 0);	/* RTX A6000 */
	CHECK_INT(kb_gpu_by_name(kb, "Jetson AGX Orin")->datacenter, 1);
}

/* 3.1 GPU -> compute capability (by PCI id where the GPU has one) */
/* pci.ids's device lines, "\tDEVID  CHIP [NAME]", from the recorded extract. */
struct pci_line {
	unsigned dev;
	char chip[32], name[96];
};

static size_t read_pciids_extract(struct pci_line *out, size_t cap)
{
	char line[256];
	FILE *f = open_extract("pciids-10de.txt");
	size_t n = 0;

	if (!f)
		return 0;
	while (n < cap && fgets(line, sizeof(line), f)) {
		struct pci_line *p = &out[n];
		const char *lb = strchr(line, '['), *rb = strrchr(line, ']');

		if (line[0] != '\t' || !lb || !rb || rb < lb ||
		    sscanf(line, "\t%x %31s", &p->dev, p->chip) != 2)
			continue;
		snprintf(p->name, sizeof(p->name), "%.*s", (int)(rb - lb - 1), lb + 1);
		n++;
	}
	fclose(f);
	return n;
}

/* The name and chip of each GPU are pci.ids' (gpus.tsv is generated from it);
 * the compute capability and architecture are NVIDIA's (CUDA GPUs pages),
 * listed here per PCI id. */
static void test_gpu_cc(void)
{
	static const struct { unsigned dev; int ma, mi; const char *arch; } rows[] = {
		{ 0x102d, 3, 7, "Kepler" }, { 0x1023, 3, 5, "Kepler" },
		{ 0x17fd, 5, 2, "Maxwell" }, { 0x13f2, 5, 2, "Maxwell" },
		{ 0x15f8, 6, 0, "Pascal" }, { 0x1b38, 6, 1, "Pascal" },
		{ 0x1bb3, 6, 1, "Pascal" }, { 0x1db4, 7, 0, "Volta" },
		{ 0x1eb8, 7, 5, "Turing" }, { 0x20b0, 8, 0, "Ampere" },
		{ 0x20b5, 8, 0, "Ampere" }, { 0x20b7, 8, 0, "Ampere" },
		{ 0x2236, 8, 6, "Ampere" }, { 0x2235, 8, 6, "Ampere" },
		{ 0x25b6, 8, 6, "Ampere" }, { 0x27b8, 8, 9, "Ada Lovelace" },
		{ 0x26b5, 8, 9, "Ada Lovelace" }, { 0x26b9, 8, 9, "Ada Lovelace" },
		{ 0x2330, 9, 0, "Hopper" }, { 0x2331, 9, 0, "Hopper" },
		{ 0x2321, 9, 0, "Hopper" }, { 0x2335, 9, 0, "Hopper" },
		{ 0x233b, 9, 0, "Hopper" }, { 0x2342, 9, 0, "Hopper" },
		{ 0x2901, 10, 0, "Blackwell" }, { 0x3182, 10, 3, "Blackwell Ultra" },
		{ 0x2bb1, 12, 0, "Blackwell" },
		{ 0x2e12, 12, 1, "Blackwell" },
		{ 0x1380, 5, 0, "Maxwell" }, { 0x13c0, 5, 2, "Maxwell" },
		{ 0x17c8, 5, 2, "Maxwell" }, { 0x1b06, 6, 1, "Pascal" },
		{ 0x1d81, 7, 0, "Volta" }, { 0x1e04, 7, 5, "Turing" },
		{ 0x2204, 8, 6, "Ampere" }, { 0x2230, 8, 6, "Ampere" },
		{ 0x2684, 8, 9, "Ada Lovelace" },
		{ 0x26b1, 8, 9, "Ada Lovelace" },
		{ 0x2b85, 12, 0, "Blackwell" },
		{ 0x2b00, 11, 0, "Blackwell" },
	};
	struct pci_line pci[64];
	size_t npci = read_pciids_extract(pci, sizeof(pci) / sizeof(pci[0]));

	CHECK_INT(npci, sizeof(rows) / sizeof(rows[0]));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct kb_gpu *g = kb_gpu_by_pci(kb, 0x10de, rows[i].dev);
		const struct pci_line *p = NULL;

		for (size_t k = 0; k < npci; k++)
			if (pci[k].dev == rows[i].dev)
				p = &pci[k];
		CHECK(g != NULL);
		CHECK(p != NULL);
		if (!g || !p) {
			printf("#   10de:%04x: %s\n", rows[i].dev, g ? "not in the pci.ids extract" : "not in the kb");
			continue;
		}
		/* pci.ids' name, or it with an annotation: "GB10 (DGX Spark)" */
		if (strncmp(g->name, p->name, strlen(p->name)) || (g->name[strlen(p->name)] &&
								    strncmp(g->name + strlen(p->name), " (", 2)))
			CHECK_STR(g->name, p->name);
		CHECK_STR(g->chip, p->chip);
		CHECK_INT(g->cc_major, rows[i].ma);
		CHECK_INT(g->cc_minor, rows[i].mi);
		CHECK_STR(g->arch, rows[i].arch);
	}
	CHECK(kb_gpu_by_pci(kb, 0x10de, 0xffff) == NULL);
	CHECK(kb_gpu_by_pci(kb, 0x1002, 0x2335) == NULL);
}

static void test_gpu_by_name(void)
{
	static const struct { const char *q; int ma, mi; } rows[] = {
		{ "RTX 4090", 8, 9 }, { "NVIDIA GeForce RTX 4090", 8, 9 }, { "h200", 9, 0 },
		{ "Tesla T4", 7, 5 }, { "GTX 1080 Ti", 6, 1 }, { "Jetson Nano", 5, 3 },
		{ "Jetson TX2", 6, 2 }, { "Jetson AGX Xavier", 7, 2 }, { "Jetson Orin Nano", 8, 7 },
		{ "Jetson T5000", 11, 0 }, { "RTX 5090", 12, 0 }, { "A100 80GB", 8, 0 },
		{ "Quadro GV100", 7, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct kb_gpu *g = kb_gpu_by_name(kb, rows[i].q);

		CHECK(g != NULL);
		if (!g) {
			printf("#   no match for %s\n", rows[i].q);
			continue;
		}
		CHECK_INT(g->cc_major, rows[i].ma);
		CHECK_INT(g->cc_minor, rows[i].mi);
	}
	CHECK(kb_gpu_by_name(kb, "Voodoo 5") == NULL);
	CHECK(kb_gpu_by_name(kb, "") == NULL);
}

/* Unknown specs are NAN, never 0.  Datasheet peaks are stored DENSE: NVIDIA
 * prints tensor figures "with sparsity", the table holds half of them. */
static void test_gpu_specs(void)
{
	const struct kb_gpu *g = kb_gpu_by_pci(kb, 0x10de, 0x2335), *l = kb_gpu_by_pci(kb, 0x10de, 0x2341);
	const struct kb_gpu *h = kb_gpu_by_pci(kb, 0x10de, 0x2330), *t = kb_gpu_by_pci(kb, 0x10de, 0x1eb8);

	/* H200 SXM 141GB (subsystem 10de:18bf on the H200 machine): 4.8 TB/s,
	 * FP32 67, FP16/BF16 1,979 with sparsity -> 989.5 dense. */
	CHECK(g && g->mem_gb == 141 && g->bw_gbs == 4800);
	CHECK(g && g->fp32_tflops == 67 && g->fp16_tflops == 989.5 && g->bf16_tflops == 989.5);
	CHECK(g && g->specs_conf && !strcmp(g->specs_conf, "D"));
	CHECK(g && g->source && strstr(g->source, "nv-h200"));
	CHECK_STR(kb_source_url(kb, "nv-h200"), "https://www.nvidia.com/en-us/data-center/h200/");
	/* H100 SXM5 80GB: 3.35 TB/s, FP32 67, 1,979 sparse -> 989.5 dense. */
	CHECK(h && h->mem_gb == 80 && h->bw_gbs == 3350);
	CHECK(h && h->fp32_tflops == 67 && h->fp16_tflops == 989.5 && h->bf16_tflops == 989.5);
	CHECK(h && h->source && strstr(h->source, "nv-h100"));
	CHECK_STR(kb_source_url(kb, "nv-h100"), "https://www.nvidia.com/en-us/data-center/h100/");
	/* Turing has no BF16: unknown, not 0. */
	CHECK(t && t->fp16_tflops == 65 && isnan(t->bf16_tflops));
	CHECK(l == NULL || isnan(l->mem_gib));
	CHECK(l == NULL || isnan(l->fp32_tflops));
}

/* Every source id a GPU row names resolves to a URL (or the "-" of the
 * unverified-specs id), so every filled figure is traceable. */
static void test_gpu_sources(void)
{
	size_t bad = 0;

	for (size_t i = 0; i < kb_gpu_count(kb); i++) {
		const struct kb_gpu *g = kb_gpu_at(kb, i);
		char ids[256], *save = NULL;

		if (!g->source)
			continue;
		snprintf(ids, sizeof(ids), "%s", g->source);
		for (char *id = strtok_r(ids, ";", &save); id; id = strtok_r(NULL, ";", &save))
			if (!kb_source_url(kb, id) && strcmp(id, "specs-unverified"))
				bad++;
		if (!isnan(g->fp16_tflops) && (!g->specs_conf || !strchr(g->specs_conf, 'D')))
			bad++;
	}
	CHECK_INT((int)bad, 0);
}

/* 3.2 first/last toolkit and last driver branch per SM */
static void test_arch_support(void)
{
	const struct kb_arch *a;

	a = kb_arch_info(kb, 3, 5);
	CHECK(a && a->last_branch == 470 && a->last_cuda / 1000 == 11);
	a = kb_arch_info(kb, 3, 7);
	CHECK(a && a->last_branch == 470 && a->last_cuda / 1000 == 11);
	a = kb_arch_info(kb, 3, 0);
	CHECK(a && a->last_cuda == 10020);
	for (int i = 0; i < 7; i++) {
		static const int ccs[7][2] = { { 5, 0 }, { 5, 2 }, { 5, 3 }, { 6, 0 }, { 6, 1 }, { 7, 0 }, { 7, 2 } };

		a = kb_arch_info(kb, ccs[i][0], ccs[i][1]);
		CHECK(a && a->last_branch == 580 && a->last_cuda / 1000 == 12);
	}
	a = kb_arch_info(kb, 7, 5);
	CHECK(a && a->last_branch < 0 && a->last_cuda < 0 && a->first_cuda == 10000);
	CHECK_INT(kb_arch_info(kb, 8, 9)->first_cuda, 11080);
	CHECK_INT(kb_arch_info(kb, 9, 0)->first_cuda, 11080);
	CHECK_INT(kb_arch_info(kb, 10, 0)->first_cuda, 12080);
	CHECK_INT(kb_arch_info(kb, 12, 0)->first_cuda, 12080);
	CHECK_INT(kb_arch_info(kb, 10, 3)->first_cuda, 12090);
	CHECK_INT(kb_arch_info(kb, 12, 1)->first_cuda, 12090);
	CHECK_INT(kb_arch_info(kb, 11, 0)->first_cuda, 13000);
}

/* 4.1 cuDNN support matrix */
static void test_cudnn_matrix(void)
{
	int seen89_12 = 0, seen917_13 = 0, seen917_cc = 0, tir = 0;

	for (size_t i = 0; i < kb_cudnn_count(kb); i++) {
		const struct kb_cudnn *c = kb_cudnn_at(kb, i);

		if (!strcmp(c->version, "8.9") && c->cuda_from == 12000) {
			seen89_12 = c->cuda_to == 12020 && !strcmp(c->linux_min, "525.60.13") &&
				    c->cc_min == 50 && c->cc_max == 90;
		}
		if (!strcmp(c->version, "9.17") && c->cuda_from == 13000)
			seen917_13 = c->cuda_to == 13010 && !strcmp(c->linux_min, "580.65.06");
		if (!strcmp(c->version, "9.17"))
			seen917_cc += c->cc_min == 75 && c->cc_max == 120;
		if (!strcmp(c->version, "9.21"))
			tir = !strcmp(c->libs, "9+tir");
	}
	CHECK(seen89_12);
	CHECK(seen917_13);
	CHECK_INT(seen917_cc, 2);
	CHECK(tir);
}

/* 4.2 decoding cudnnGetVersion() */
static void test_cudnn_decode(void)
{
	int a, b, c;

	kb_cudnn_decode(8907, &a, &b, &c);
	CHECK(a == 8 && b == 9 && c == 7);
	kb_cudnn_decode(7605, &a, &b, &c);
	CHECK(a == 7 && b == 6 && c == 5);
	kb_cudnn_decode(91000, &a, &b, &c);
	CHECK(a == 9 && b == 10 && c == 0);
	kb_cudnn_decode(91900, &a, &b, &c);
	CHECK(a == 9 && b == 19 && c == 0);
	kb_cudnn_decode(90100, &a, &b, &c);
	CHECK(a == 9 && b == 1 && c == 0);
}

/* 5.1/5.2 PyTorch variants, cuDNN, arch lists, default */
static void test_torch(void)
{
	static const struct { const char *v, *var, *cudnn; int stable; } rows[] = {
		{ "2.14", "cu126", "9.10.2.21", 1 }, { "2.14", "cu130", "9.24.0.43", 1 },
		{ "2.14", "cu132", "9.24.0.43", 1 }, { "2.13", "cu130", "9.20.0.48", 1 },
		{ "2.13", "cu132", "9.20.0.48", 0 }, { "2.12", "cu130", "9.20.0.48", 1 },
		{ "2.11", "cu128", "9.17.1.4", 1 }, { "2.11", "cu130", "9.17.1.4", 1 },
		{ "2.10", "cu130", "9.15.1.9", 0 }, { "2.9", "cu130", "9.13.0.50", 0 },
		{ "2.8", "cu128", "9.10.2.21", 1 }, { "2.8", "cu129", "9.10.2.21", 0 },
		{ "2.7", "cu118", "9.1.0.70", 1 }, { "2.7", "cu126", "9.5.1.17", 1 },
		{ "2.7", "cu128", "9.7.1.26", 0 }, { "2.6", "cu124", "9.1.0.70", 1 },
		{ "2.5", "cu121", "9.1.0.70", 1 }, { "2.4", "cu124", "9.1.0.70", 0 },
		{ "2.3", "cu118", "8.7.0.84", 1 }, { "2.1", "cu121", "8.9.2.26", 0 },
		{ "2.0", "cu117", "8.5.0.96", 1 }, { "1.13", "cu116", "8.3.2.44", 1 },
		{ "1.12", "cu113", "8.3.2.44", 1 },
	};
	const struct kb_torch *t;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		t = kb_torch_release(kb, rows[i].v, rows[i].var);
		CHECK(t != NULL);
		if (!t)
			continue;
		CHECK_STR(t->cudnn, rows[i].cudnn);
		CHECK_INT(t->stable, rows[i].stable);
	}
	CHECK_INT(kb_torch_release(kb, "2.11", NULL)->is_default, 1);
	CHECK_STR(kb_torch_release(kb, "2.11", NULL)->variant, "cu130");
	CHECK_STR(kb_torch_release(kb, "2.14.0", NULL)->variant, "cu130");	/* wheel METADATA */
	CHECK_STR(kb_torch_release(kb, "2.15", NULL)->variant, "cu132");	/* wheel METADATA */
	CHECK_STR(kb_torch_release(kb, "2.8", "cu126")->archs, "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
	CHECK_STR(kb_torch_release(kb, "2.11", "cu128")->archs, "7.5;8.0;8.6;9.0;10.0;12.0");
	CHECK_STR(kb_torch_release(kb, "2.9", "cu130")->archs, "7.5;8.0;8.6;9.0;10.0;12.0+PTX");
	CHECK_STR(kb_torch_release(kb, "2.0", "cu118")->archs, "3.7;5.0;6.0;7.0;7.5;8.0;8.6;9.0");
	/* read from the PyPI wheel (libtorch_python.so's arch list), 2026-11-30 */
	CHECK_STR(kb_torch_release(kb, "2.6", "cu124")->archs, "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
	CHECK_STR(kb_torch_release(kb, "2.6", NULL)->variant, "cu124");
	CHECK_STR(kb_torch_release(kb, "2.7", NULL)->variant, "cu126");
	CHECK_STR(kb_torch_release(kb, "2.9", NULL)->variant, "cu128");	/* PyPI default */
	/* issue 9, class 5: every CUDA variant of every release has its arch list */
	for (size_t i = 0; i < kb_torch_count(kb); i++)
		CHECK(kb_torch_at(kb, i)->archs != NULL);
	CHECK(kb_torch_release(kb, "2.14", "cu999") == NULL);
}

/* 6 JAX plugins */
static void test_jax(void)
{
	const struct kb_jax *j13 = kb_jax_release(kb, NULL, "cuda13"), *j12 = kb_jax_release(kb, NULL, "cuda12");

	CHECK(j13 && j13->min_cc_major == 7 && j13->min_cc_minor == 5);
	CHECK(j13 && !strcmp(j13->min_driver, "580.65.06") && j13->cuda_min == 13000);
	CHECK(j12 && j12->min_cc_major == 5 && j12->min_cc_minor == 2);
	CHECK(j12 && !strcmp(j12->min_driver, "525.60.13") && j12->cuda_min == 12010);
	CHECK(j12 && !strcmp(j12->cudnn_min, "9.10.2"));	/* jax-cuda12-plugin 0.11.2 METADATA */
	CHECK_STR(kb_jax_release(kb, "0.6.0", "cuda12")->cudnn_min, "9.8");
	/* issue 9, class 6: 0.4.29/0.4.30 need cuDNN 9 (jax 0.4.29 METADATA), 0.4.26-0.4.28 cuDNN 8.9 */
	CHECK_STR(kb_jax_release(kb, "0.4.29", "cuda12")->cudnn_min, "9.0");
	CHECK_STR(kb_jax_release(kb, "0.4.30", "cuda12")->cudnn_max, "10");
	CHECK_STR(kb_jax_release(kb, "0.4.28", "cuda12")->cudnn_max, "9");
	CHECK_STR(kb_jax_release(kb, "0.4.31", "cuda12")->cudnn_min, "9.1");
	CHECK(kb_jax_release(kb, "0.7.1", "cuda13") == NULL);	/* first cuda13 plugin: 0.7.2 */
	CHECK(kb_jax_release(kb, "0.4.20", NULL) == NULL);
}

static void test_parse_cuda(void)
{
	CHECK_INT(kb_parse_cuda("12.4"), 12040);
	CHECK_INT(kb_parse_cuda("12.4.1"), 12040);
	CHECK_INT(kb_parse_cuda("cu124"), 12040);
	CHECK_INT(kb_parse_cuda("cu92"), 9020);
	CHECK_INT(kb_parse_cuda("12040"), 12040);
	CHECK_INT(kb_parse_cuda("13"), 13000);
	CHECK_INT(kb_parse_cuda("x"), -1);
	CHECK_INT(kb_parse_cuda(NULL), -1);
}

static void test_sources_resolve(void)
{
	const struct kb_tf *t = kb_tf_release(kb, "2.15");

	CHECK_STR(kb_source_url(kb, "tf-source-md"), "https://www.tensorflow.org/install/source#gpu");
	CHECK(kb_source_url(kb, "pciids") != NULL);
	CHECK(t && kb_source_url(kb, t->source) != NULL);
	CHECK(kb_source_url(kb, "nope") == NULL);
	/* a list of ids: the first that resolves */
	CHECK_STR(kb_source_url(kb, "nope;tf-source-md;pciids"), "https://www.tensorflow.org/install/source#gpu");
	CHECK(kb_source_url(kb, "nope;") == NULL);
	CHECK(kb_source_url(kb, "") == NULL);
	for (size_t i = 0; i < kb_table_count(kb); i++) {
		struct kb_table_info ti;

		kb_table_info(kb, i, &ti);
		CHECK(ti.as_of != NULL && ti.rows > 0);
		CHECK_STR(ti.origin, "embedded");
	}
}

int main(void)
{
	struct err e = ERR_INIT;

	if (kb_open(NULL, &kb, &e) < 0) {
		printf("not ok 1 - kb_open: %s\n1..1\n", e.msg);
		return 1;
	}
	RUN(test_tf_tested_builds);
	RUN(test_tf_packaging);
	RUN(test_sonames);
	RUN(test_cuda_min_driver);
	RUN(test_compat_floors);
	RUN(test_branches);
	RUN(test_forward_compat_class);
	RUN(test_gpu_cc);
	RUN(test_gpu_by_name);
	RUN(test_gpu_specs);
	RUN(test_gpu_sources);
	RUN(test_arch_support);
	RUN(test_cudnn_matrix);
	RUN(test_cudnn_decode);
	RUN(test_torch);
	RUN(test_jax);
	RUN(test_parse_cuda);
	RUN(test_sources_resolve);
	kb_close(kb);
	return tap_done();
}
