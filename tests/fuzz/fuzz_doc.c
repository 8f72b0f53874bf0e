/*
 * fuzz_doc.c - libFuzzer target for the JSON and block-YAML readers of
 * configuration files (cfg/doc.h): CDI specs, Docker's daemon.json.  The
 * first byte picks the reader; the rest is the text, copied into an
 * exactly-sized heap buffer without a NUL so ASan catches any over-read.
 * After a successful parse every lookup helper walks the tree.
 *
 * fuzz-sources: src/cfg/doc.c src/cfg/doc_yaml.c src/core/buf.c src/core/err.c src/core/xalloc.c
 */
#include "cfg/doc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const struct doc *d, int depth)
{
	size_t n = 1;

	if (depth > DOC_MAX_DEPTH + 4)
		abort();	/* the depth bound did not hold */
	(void)doc_str(d);
	(void)doc_bool(d);
	(void)doc_get(d, "devices");
	for (size_t i = 0; i < d->n; i++)
		n += walk(doc_at(d, i), depth + 1);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doc d;
	struct err e = ERR_INIT;
	char *text;
	int rc;

	if (size < 1)
		return 0;
	text = malloc(size - 1 ? size - 1 : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	if (data[0] & 1)
		rc = doc_parse_json(text, size - 1, &d, &e);
	else
		rc = doc_parse_yaml(text, size - 1, &d, &e);
	if (rc == 0) {
		walk(&d, 0);
		doc_release(&d);
	} else if (!e.msg[0]) {
		abort();	/* a failure must say why */
	}
	free(text);
	return 0;
}
