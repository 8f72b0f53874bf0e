/*
 * fuzz_kb.c - libFuzzer target for the knowledge-base data-file parser
 * (knowledge/kb_table.c) and the typed loading of every table (kb.c): the
 * input is written as one --kb file and loaded; errors are fine, crashes,
 * leaks and undefined behaviour are not.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "knowledge/kb.h"
#include "knowledge/kb_table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"sources.tsv", "facts.tsv", "tf.tsv", "torch.tsv", "jax.tsv", "cuda.tsv",
	"cuda_compat.tsv", "branches.tsv", "archs.tsv", "cudnn.tsv", "sonames.tsv", "gpus.tsv",
	"gpu_drivers.tsv", "failures.tsv", "cupy.tsv", "xid.tsv",
};

static char dir[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_table t;
	struct err e = ERR_INIT;
	struct kb *kb;
	char path[128];
	const char *name;
	FILE *f;

	if (kb_table_parse("fuzz.tsv", "fuzz", (const char *)data, size, &t, &e) == 0)
		kb_table_release(&t);
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gd-fuzz-kb.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (size < 1)
		return 0;
	/* The first byte picks the table the rest replaces. */
	name = names[data[0] % (sizeof(names) / sizeof(names[0]))];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (kb_open(dir, &kb, &e) == 0) {
		struct kb_verdict v;
		const struct kb_gpu *g = kb_gpu_by_name(kb, "NVIDIA H100 80GB HBM3");
		struct kb_target t = { "535.1", g, 8, 9, 0 };
		struct kb_fit fit;

		kb_gpu_by_name(kb, "RTX 4090");
		kb_gpu_by_name(kb, "T4");
		if (kb_tf_at(kb, 0))
			kb_tf_fits(kb, kb_tf_at(kb, 0), "535.1", 8, 9, 0, &v);
		kb_driver_runs_cuda(kb, "470.1", 12050, 1, &v);
		kb_driver_knows_gpu(kb, "525.60.13", g, 9, 0, &v);
		kb_driver_knows_gpu(kb, "550.100", kb_gpu_by_pci(kb, 0x10de, 0x232c), -1, -1, &v);
		kb_pip_resolve(kb, "nvidia-cudnn-cu12", ">=9.3.0.75,<10");
		kb_cudnn_runs_on(kb, "9.28.0.42", 6, 1, &v);
		kb_jax_released(kb, "0.4.30");
		for (size_t i = 0; i < kb_torch_count(kb) && i < 8; i++)
			kb_torch_fit(kb, kb_torch_at(kb, i), &t, &fit);
		for (size_t i = 0; i < kb_jax_count(kb); i++)
			kb_jax_fit(kb, kb_jax_at(kb, i), "0.6.0", &t, &fit);
		for (size_t i = 0; i < kb_cupy_count(kb); i++)
			kb_cupy_fit(kb, kb_cupy_at(kb, i), &t, &fit);
		kb_close(kb);
	}
	unlink(path);
	return 0;
}
