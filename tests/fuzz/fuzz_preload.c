/*
 * fuzz_preload.c - libFuzzer target for ldso_preload_split, which reads
 * LD_PRELOAD and /etc/ld.so.preload.  The first input byte picks the
 * format (file or environment variable); the rest is the text.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length the parser is given.
 */
#include "loader/ldso.h"
#include "core/fs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;
	char **v;
	size_t n;

	if (size < 1)
		return 0;
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	v = ldso_preload_split(copy, size - 1, data[0] & 1, &n);
	for (size_t i = 0; i < n; i++) {
		/* entries are non-empty and hold no separator */
		if (!v[i][0] || strpbrk(v[i], (data[0] & 1) ? " \t\n:#" : " :"))
			abort();
	}
	fs_names_free(v, n);
	free(copy);
	return 0;
}
