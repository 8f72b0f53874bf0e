/* http.c - parsing one HTTP request head; see http.h. */
#include "watch/http.h"

#include <string.h>

static const char *find_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n')
			return buf + i + 2;
		if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4))
			return buf + i + 4;
	}
	return NULL;
}

int http_parse(const char *buf, size_t len, struct http_req *out)
{
	const char *p = buf, *end, *sp, *line_end;
	size_t n;

	memset(out, 0, sizeof(*out));
	/* The request line alone can be judged before the head is complete. */
	line_end = memchr(buf, '\n', len);
	if (!line_end)
		return len >= HTTP_REQ_MAX ? 414 : HTTP_INCOMPLETE;
	end = line_end;
	if (end > buf && end[-1] == '\r')
		end--;
	if (end - p >= 4 && !memcmp(p, "GET ", 4)) {
		p += 4;
	} else if (end - p >= 5 && !memcmp(p, "HEAD ", 5)) {
		out->head = 1;
		p += 5;
	} else {
		for (const char *q = p; q < end && *q != ' '; q++)
			if (*q < 'A' || *q > 'Z')
				return 400;
		return memchr(p, ' ', (size_t)(end - p)) ? 405 : 400;
	}
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || *p != '/')
		return 400;
	if (end - sp != 9 || memcmp(sp + 1, "HTTP/1.", 7) || (sp[8] != '0' && sp[8] != '1'))
		return (end - sp >= 6 && !memcmp(sp + 1, "HTTP/", 5)) ? 505 : 400;
	for (n = 0; p + n < sp && p[n] != '?'; n++)
		;
	if (n >= HTTP_PATH_MAX)
		return 414;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f)
			return 400;
	memcpy(out->path, p, n);
	out->path[n] = '\0';
	if (!find_end(buf, len))
		return len >= HTTP_REQ_MAX ? 431 : HTTP_INCOMPLETE;
	return HTTP_OK;
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}
