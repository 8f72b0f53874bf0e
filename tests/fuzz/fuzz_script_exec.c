/*
 * fuzz_script_exec.c - libFuzzer target for script_exec_target, which reads
 * the first 4 KiB of whatever file is called nvcc on PATH.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length the parser is given.
 */
#include "probes/libraries/script_exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct buf out = BUF_INIT;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (script_exec_target(copy, size, "nvcc", &out) == 0) {
		/* a result is an absolute path to something called nvcc */
		if (out.len < 6 || out.s[0] != '/' || strcmp(out.s + out.len - 5, "/nvcc") != 0)
			abort();
	}
	buf_release(&out);
	free(copy);
	return 0;
}
