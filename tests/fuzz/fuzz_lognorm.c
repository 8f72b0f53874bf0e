/*
 * fuzz_lognorm.c - libFuzzer target for explain's log normaliser
 * (explain/lognorm.c): the input is fed as a log in two pieces split at an
 * input-chosen point (so partial lines are exercised); every emitted line
 * must be NUL-terminated at its length, with sane line numbers.
 *
 * fuzz-sources: src/explain/lognorm.c src/core/buf.c src/core/xalloc.c src/core/err.c
 */
#include "explain/lognorm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_line(const struct lognorm_line *l, void *arg)
{
	long *last = arg;

	if (l->text[l->len] != '\0' || l->count < 1 || l->first < 1 || l->last < l->first ||
	    l->first < *last)
		abort();
	if ((l->flags & LN_EXCEPTION) && !l->frames)
		abort();
	*last = l->first;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lognorm n;
	long last = 0;
	size_t cut = size ? data[0] % (size + 1) : 0;

	lognorm_init(&n, on_line, &last);
	lognorm_feed(&n, (const char *)data, cut);
	lognorm_feed(&n, (const char *)data + cut, size - cut);
	lognorm_finish(&n);
	lognorm_release(&n);
	return 0;
}
