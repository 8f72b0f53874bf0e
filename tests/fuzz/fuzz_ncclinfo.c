/*
 * fuzz_ncclinfo.c - libFuzzer target for the parser of NCCL's INFO log
 * (bench/bench_ncclinfo.c), which bench and check --deep read from the
 * stderr of the NCCL child, and for the summary built from it.
 *
 * fuzz-sources: src/bench/bench_ncclinfo.c
 *
 *	clang -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=c11 -Isrc \
 *	  tests/fuzz/fuzz_ncclinfo.c src/bench/bench_ncclinfo.c -o build-fuzz/fuzz_ncclinfo
 *	build-fuzz/fuzz_ncclinfo -max_total_time=60
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length the parser is given.  Every string
 * that comes out must be NUL-terminated, printable and within its field.
 */
#include "bench/bench_ncclinfo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n >= cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_nccl_topo t;
	char *buf = malloc(size ? size : 1), line[512], tiny[3];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	bench_ncclinfo_parse(buf, size, &t);
	check_str(t.version, sizeof(t.version));
	check_str(t.first_warning, sizeof(t.first_warning));
	if (t.nvia < 0 || t.nvia > BENCH_NCCLINFO_MAX || t.npath < 0 || t.npath > BENCH_NCCLINFO_MAX ||
	    t.nenv < 0 || t.nenv > BENCH_NCCLINFO_MAX)
		abort();
	for (int i = 0; i < t.nvia; i++)
		check_str(t.via[i], sizeof(t.via[i]));
	for (int i = 0; i < t.npath; i++)
		check_str(t.path[i], sizeof(t.path[i]));
	for (int i = 0; i < t.nenv; i++)
		check_str(t.env[i], sizeof(t.env[i]));
	bench_ncclinfo_summary(&t, line, sizeof(line));
	check_str(line, sizeof(line));
	bench_ncclinfo_summary(&t, tiny, sizeof(tiny));
	check_str(tiny, sizeof(tiny));
	(void)bench_ncclinfo_link(&t);
	free(buf);
	return 0;
}
