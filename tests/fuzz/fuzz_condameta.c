/*
 * fuzz_condameta.c - libFuzzer target for conda-meta records
 * (python/condameta.c): any text as one record, then the lookups.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "python/condameta.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conda_env ce, cp;

	memset(&ce, 0, sizeof(ce));
	condameta_parse_record((const char *)data, size, &ce);
	condameta_parse_record((const char *)data, size, &ce);
	(void)condameta_owner(&ce, "libcudnn.so.8");
	condameta_copy(&cp, &ce);
	condameta_release(&cp);
	condameta_release(&ce);
	return 0;
}
