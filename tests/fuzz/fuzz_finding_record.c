/*
 * fuzz_finding_record.c - libFuzzer target for the one wire format of
 * findings (report/finding_record.c): what a child, watch's state file or a
 * hostile user who can write one says.  finding_record_parse on the raw
 * bytes; a record that parses is written back and must parse again to the
 * same cause, status, scope and XID action (the writer's output is always
 * valid), with a title of printable bytes only.  watch/ident.c's GPU
 * identity parser gets the same bytes.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length given.
 */
#include "report/finding_record.h"
#include "watch/ident.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1), *z = malloc(size + 1);
	struct finding f, g;
	struct gpu_ident id;

	if (!text || !z)
		abort();
	memcpy(text, data, size);
	if (finding_record_parse(text, size, &f, NULL) == 0) {
		struct buf b = BUF_INIT;

		for (const char *p = f.title; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
		finding_record_write(&b, &f);
		if (finding_record_parse(b.s, b.len, &g, NULL) != 0 || g.cause != f.cause ||
		    g.status != f.status || g.gpu != f.gpu || g.xid != f.xid ||
		    (f.xid && g.xid_action != f.xid_action) || (!f.pci != !g.pci) ||
		    (!f.uuid != !g.uuid))
			abort();
		finding_release(&g);
		finding_release(&f);
		buf_release(&b);
	}
	memcpy(z, data, size);
	z[size] = '\0';
	if (gpu_ident_parse(z, &id) == 0 && strlen(id.text) >= sizeof(id.text))
		abort();
	free(text);
	free(z);
	return 0;
}
