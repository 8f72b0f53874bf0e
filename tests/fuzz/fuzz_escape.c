/*
 * fuzz_escape.c - libFuzzer target for the output escapers of machine
 * values: termesc (no control byte, no invalid UTF-8 reaches a terminal),
 * the JSON writer (the document is valid UTF-8 with no raw control byte)
 * and shquote (one word: no unquoted shell metacharacter).
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "core/buf.h"
#include "core/json.h"
#include "core/shquote.h"
#include "core/termesc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void valid_utf8_no_controls(const struct buf *b, int allow_newline)
{
	const unsigned char *p = (const unsigned char *)b->s;
	size_t n = b->len;

	while (n) {
		size_t len = utf8_seq_len(p, n);

		if (!len || (len == 1 && (*p < 0x20 || *p == 0x7f) && !(allow_newline && *p == '\n')))
			abort();
		p += len;
		n -= len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct buf b = BUF_INIT;
	struct json j;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	termesc_buf(&b, s);
	valid_utf8_no_controls(&b, 0);
	buf_reset(&b);
	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, s, s);
	json_obj_end(&j);
	valid_utf8_no_controls(&j.out, 1);
	json_release(&j);
	buf_reset(&b);
	shquote_buf(&b, s);
	if (!shquote_is_safe(s)) {
		/* quoted: starts and ends with ', and every ' inside is '\'' */
		if (b.len < 2 || b.s[0] != '\'' || b.s[b.len - 1] != '\'')
			abort();
	}
	buf_release(&b);
	free(s);
	return 0;
}
