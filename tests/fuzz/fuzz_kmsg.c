/* fuzz-sources: src/watch/kmsg.c */
/*
 * fuzz_kmsg.c - libFuzzer target for the kernel-log reader of `watch`: the
 * input is cut into records at newlines that are not followed by a space
 * (as --kmsg-file does), each parsed as a /dev/kmsg record and scanned for
 * NVRM lines with the state carried from record to record.
 */
#include "watch/kmsg.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct kmsg_rec r;
	struct kmsg_nvrm st = KMSG_NVRM_INIT;
	struct kmsg_event ev[8];
	const char *p = (const char *)data, *end = p + size;
	char bus[32];

	while (p < end) {
		const char *q = p;

		while (q < end && !(*q == '\n' && (q + 1 == end || q[1] != ' ')))
			q++;
		if (kmsg_parse_record(p, (size_t)(q - p) + (q < end), &r) == 0) {
			size_t n = kmsg_nvrm_scan(&st, &r, ev, 8);

			for (size_t i = 0; i < n; i++)
				if (ev[i].xid <= 0 || strlen(ev[i].bus_id) >= sizeof(ev[i].bus_id) ||
				    strlen(ev[i].text) >= sizeof(ev[i].text))
					__builtin_trap();
			/* An XID line always names its GPU (only the fallen-off-the-bus
			   report, XID 79, may not); and only from a driver record. */
			for (size_t i = 0; i < n; i++)
				if ((ev[i].xid != 79 && !ev[i].bus_id[0]) || !kmsg_from_driver(&r))
					__builtin_trap();
			if (strlen(r.text) != r.len)
				__builtin_trap();
		}
		p = q + 1;
	}
	kmsg_norm_bus_id((const char *)data, size > 40 ? 40 : size, bus, sizeof(bus));
	return 0;
}
