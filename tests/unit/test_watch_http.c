/* test_watch_http.c - the request parser of `watch`'s HTTP side. */
#include "watch/http.h"
#include "tap.h"

#include <string.h>

static int parse(const char *s, struct http_req *r)
{
	return http_parse(s, strlen(s), r);
}

static void test_good(void)
{
	struct http_req r;

	CHECK_INT(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r), HTTP_OK);
	CHECK_STR(r.path, "/metrics");
	CHECK_INT(r.head, 0);
	CHECK_INT(parse("HEAD /healthz?verbose=1 HTTP/1.0\n\n", &r), HTTP_OK);
	CHECK_STR(r.path, "/healthz");
	CHECK_INT(r.head, 1);
}

static void test_incomplete(void)
{
	struct http_req r;

	CHECK_INT(parse("GET /metr", &r), HTTP_INCOMPLETE);
	CHECK_INT(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), HTTP_INCOMPLETE);
	CHECK_INT(parse("", &r), HTTP_INCOMPLETE);
}

static void test_bad(void)
{
	struct http_req r;
	static char big[HTTP_REQ_MAX + 1];

	CHECK_INT(parse("POST /metrics HTTP/1.1\r\n\r\n", &r), 405);
	CHECK_INT(parse("get /metrics HTTP/1.1\r\n\r\n", &r), 400);
	CHECK_INT(parse("GET metrics HTTP/1.1\r\n\r\n", &r), 400);
	CHECK_INT(parse("GET /metrics HTTP/2.0\r\n\r\n", &r), 505);
	CHECK_INT(parse("GET /metrics\r\n\r\n", &r), 400);
	CHECK_INT(parse("GET /a\x01 HTTP/1.1\r\n\r\n", &r), 400);
	CHECK_INT(http_parse("\x16\x03\x01\x02\x00\x01\n", 7, &r), 400);	/* TLS to a plain port */
	memset(big, 'a', HTTP_REQ_MAX);
	memcpy(big, "GET /", 5);
	CHECK_INT(http_parse(big, HTTP_REQ_MAX, &r), 414);
	memcpy(big, "GET / HTTP/1.1\r\n", 16);
	CHECK_INT(http_parse(big, HTTP_REQ_MAX, &r), 431);
	memset(big, 'x', 300);
	memcpy(big, "GET /", 5);
	memcpy(big + 300, " HTTP/1.1\r\n\r\n", 13);
	CHECK_INT(http_parse(big, 313, &r), 414);	/* path longer than HTTP_PATH_MAX */
	CHECK_STR(http_reason(503), "Service Unavailable");
}

int main(void)
{
	RUN(test_good);
	RUN(test_incomplete);
	RUN(test_bad);
	return tap_done();
}
