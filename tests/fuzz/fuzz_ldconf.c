/*
 * fuzz_ldconf.c - libFuzzer target for ld.so.conf's parser (loader/ldconf.c):
 * comments, "include" patterns (globbed inside an empty root made once, so
 * nothing of the host is read), hwcap lines, "dir=TYPE" entries.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "loader/ldconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[] = "/tmp/gd-fuzz-ldconf-XXXXXX";
	static int made;
	struct ldconf c;

	if (!made) {
		if (!mkdtemp(root))
			return 0;
		made = 1;
	}
	ldconf_parse_text(root, "/etc/ld.so.conf", (const char *)data, size, &c);
	for (size_t i = 0; i < c.ndirs; i++)
		if (!c.dirs[i][0])
			abort();	/* empty entries are dropped */
	ldconf_release(&c);
	return 0;
}
