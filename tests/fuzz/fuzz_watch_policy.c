/* fuzz-sources: src/watch/policy.c src/knowledge/kb_xid.c src/core/err.c */
/*
 * fuzz_watch_policy.c - libFuzzer target for `watch --policy FILE` files.
 */
#include "watch/policy.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct wpolicy p;
	struct err e = ERR_INIT;

	if (policy_parse("fuzz", (const char *)data, size, &p, &e) == 0) {
		if (p.nover > sizeof(p.over) / sizeof(p.over[0]) || (unsigned)p.unknown >= KB_XID_NACTIONS)
			__builtin_trap();
		for (size_t i = 0; i < p.nover; i++)
			if ((unsigned)p.over[i].a >= KB_XID_NACTIONS || p.over[i].xid < 1)
				__builtin_trap();
	}
	return 0;
}
