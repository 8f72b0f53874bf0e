/*
 * http.h - the smallest HTTP/1.x request parser `watch` needs.
 *
 * A request is read into a bounded buffer (HTTP_REQ_MAX bytes) until the
 * blank line that ends its head; http_parse() then accepts only
 * "GET|HEAD SP /path[?query] SP HTTP/1.x" and ignores every header.  Bodies
 * are refused, one request is served per connection.  Pure function of its
 * input, fuzzed by tests/fuzz/fuzz_http.c.
 *
 *	struct http_req r;
 *	switch (http_parse(buf, len, &r)) {
 *	case HTTP_INCOMPLETE: read more (unless len == HTTP_REQ_MAX: 431)
 *	case HTTP_OK: serve r.path (r.head: no body)
 *	default: answer the status it returned (400, 405, 414, 505)
 *	}
 */
#ifndef GD_WATCH_HTTP_H
#define GD_WATCH_HTTP_H

#include <stddef.h>

#define HTTP_REQ_MAX 8192
#define HTTP_PATH_MAX 256

enum {
	HTTP_OK = 0,
	HTTP_INCOMPLETE = 1,
};

struct http_req {
	int head;			/* HEAD: send the headers only */
	char path[HTTP_PATH_MAX];	/* without the query */
};

/* HTTP_OK, HTTP_INCOMPLETE, or an HTTP status code to answer with. */
int http_parse(const char *buf, size_t len, struct http_req *out);

/* "Not Found" for 404 ... */
const char *http_reason(int status);

#endif
