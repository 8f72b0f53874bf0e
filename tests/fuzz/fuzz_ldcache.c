/* fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers) */
/* fuzz_ldcache.c - libFuzzer target for the ld.so.cache parser and its lookup. */
#include "loader/ldcache.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const subdirs[] = { "x86-64-v3", "x86-64-v2" };
	const struct ldcache_hw hw = { subdirs, 2, 2 };
	struct ldcache *c;

	if (ldcache_parse(data, size, "fuzz", &c, NULL) < 0)
		return 0;
	for (size_t i = 0; i < c->n && i < 8; i++)
		ldcache_lookup(c, c->entries[i].key, c->entries[i].flags, &hw);
	ldcache_lookup(c, "libc.so.6", LDCACHE_FLAGS_X86_64, &hw);
	ldcache_lookup(c, "libcudnn.so.9", LDCACHE_FLAGS_X86_64, NULL);
	ldcache_free(c);
	return 0;
}
