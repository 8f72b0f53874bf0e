/* fuzz-sources: src/watch/http.c */
/*
 * fuzz_http.c - libFuzzer target for the HTTP request parser of `watch`:
 * every prefix of the input, as a request arriving in pieces would be seen.
 */
#include "watch/http.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct http_req r;

	if (size > HTTP_REQ_MAX)
		size = HTTP_REQ_MAX;
	for (size_t n = size > 64 ? size - 64 : 0; n <= size; n++) {
		int st = http_parse((const char *)data, n, &r);

		if (st == HTTP_OK && (r.path[0] != '/' || strlen(r.path) >= HTTP_PATH_MAX))
			__builtin_trap();
		if (st != HTTP_OK && st != HTTP_INCOMPLETE && (st < 400 || st > 599))
			__builtin_trap();
		(void)http_reason(st);
	}
	return 0;
}
