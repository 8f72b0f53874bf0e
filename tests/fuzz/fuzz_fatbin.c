/* fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers) */
/*
 * fuzz_fatbin.c - libFuzzer target for the fat binary header walk: the input
 * is a .nv_fatbin section's bytes, in an exact-size heap buffer.
 */
#include "loader/fatbin.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	char name[32];

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fatbin_parse(copy, size, &s, NULL);
	for (size_t i = 0; i < s.n; i++)
		(void)fatbin_arch_name(&s.archs[i], name, sizeof(name));
	fatbin_summary_release(&s);
	free(copy);
	return 0;
}
