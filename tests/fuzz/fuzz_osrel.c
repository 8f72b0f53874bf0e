/*
 * fuzz_osrel.c - libFuzzer target for the one os-release parser (cfg/osrel.c,
 * which the platform probe calls for every command): any text, every key read.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "cfg/osrel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "ID", "VERSION_ID", "ID_LIKE", "PRETTY_NAME", "" };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		free(osrel_value(text, keys[i]));
	free(text);
	return 0;
}
