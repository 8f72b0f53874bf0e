/*
 * fuzz_kvlist.c - libFuzzer target for what an isolated child says to the
 * parent: kvlist_parse (core/kv.c) on the raw bytes a child that loaded a
 * foreign library wrote, then the readers of those lines: kv_get_ll,
 * kv_get_double, and the bench parent's bench_parse_gpu / bench_parse_cpu.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length kvlist_parse is given.
 */
#include "bench/bench.h"
#include "bench/bench_parse.h"
#include "core/kv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct kvlist kv = KVLIST_INIT;
	struct bench_gpu g;
	struct bench_cpu c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	kvlist_parse(&kv, text, size);
	(void)kv_get_ll(&kv, "sms", -1);
	(void)kv_get_double(&kv, "bw", -1);
	(void)kv_getf(&kv, "gpu.%d.name", 0);
	bench_gpu_init(&g, 0);
	bench_parse_gpu(&kv, &g);
	bench_gpu_release(&g);
	bench_cpu_init(&c);
	bench_parse_cpu(&kv, &c);
	bench_cpu_release(&c);
	kvlist_release(&kv);
	free(text);
	return 0;
}
