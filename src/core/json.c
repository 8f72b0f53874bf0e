/* json.c - escaping JSON writer; see json.h. */
#include "core/json.h"

#include "core/termesc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void json_init(struct json *j, int pretty)
{
	buf_init(&j->out);
	j->pretty = pretty;
	j->depth = 0;
	j->count[0] = 0;
	j->utf8_replaced = 0;
}

void json_release(struct json *j)
{
	buf_release(&j->out);
}

/* Append s as a string literal; returns how many bytes that were not UTF-8
 * were replaced by U+FFFD (each bad byte is one replacement). */
static size_t json_escape_count(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), replaced = 0;

	buf_addc(b, '"');
	while (n) {
		size_t len = utf8_seq_len(p, n);

		if (len == 0) {
			buf_puts(b, "\xef\xbf\xbd");	/* U+FFFD */
			replaced++;
			p++;
			n--;
			continue;
		}
		if (len > 1) {
			buf_add(b, p, len);
			p += len;
			n -= len;
			continue;
		}
		switch (*p) {
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				buf_printf(b, "\\u%04x", *p);
			else
				buf_addc(b, (char)*p);
		}
		p++;
		n--;
	}
	buf_addc(b, '"');
	return replaced;
}

void json_escape(struct buf *b, const char *s)
{
	(void)json_escape_count(b, s);
}

static void json_indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	buf_addc(&j->out, '\n');
	for (i = 0; i < j->depth; i++)
		buf_puts(&j->out, "  ");
}

/* Separator, indentation and key before any value. */
static void json_prefix(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->count[j->depth] > 0)
			buf_addc(&j->out, ',');
		json_indent(j);
	}
	j->count[j->depth]++;
	if (key) {
		j->utf8_replaced += json_escape_count(&j->out, key);
		buf_puts(&j->out, j->pretty ? ": " : ":");
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_prefix(j, key);
	buf_addc(&j->out, c);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void json_close(struct json *j, char c)
{
	int had = j->count[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		json_indent(j);
	buf_addc(&j->out, c);
	if (j->depth == 0 && j->pretty)
		buf_addc(&j->out, '\n');
}

void json_obj_begin(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_obj_end(struct json *j)
{
	/* The document says when it had to replace bytes: the consumer knows
	 * that a name in it is not the machine's exact bytes. */
	if (j->depth == 1 && j->utf8_replaced)
		json_int(j, "utf8_replaced", (long long)j->utf8_replaced);
	json_close(j, '}');
}
void json_arr_begin(struct json *j, const char *key) { json_open(j, key, '['); }
void json_arr_end(struct json *j) { json_close(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	json_prefix(j, key);
	if (val)
		j->utf8_replaced += json_escape_count(&j->out, val);
	else
		buf_puts(&j->out, "null");
}

void json_int(struct json *j, const char *key, long long val)
{
	json_prefix(j, key);
	buf_printf(&j->out, "%lld", val);
}

void json_int_known(struct json *j, const char *key, long long val, int known)
{
	if (known)
		json_int(j, key, val);
	else
		json_null(j, key);
}

void json_int_nonneg(struct json *j, const char *key, long long val)
{
	json_int_known(j, key, val, val >= 0);
}

void json_num(struct json *j, const char *key, double val)
{
	json_prefix(j, key);
	if (isnan(val) || isinf(val))
		buf_puts(&j->out, "null");
	else
		buf_printf(&j->out, "%.6g", val);
}

void json_bool(struct json *j, const char *key, int val)
{
	json_prefix(j, key);
	buf_puts(&j->out, val ? "true" : "false");
}

void json_tribool(struct json *j, const char *key, int val)
{
	if (val < 0)
		json_null(j, key);
	else
		json_bool(j, key, val);
}

void json_str_array(struct json *j, const char *key, char *const *v, size_t n)
{
	json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++)
		json_str(j, NULL, v[i]);
	json_arr_end(j);
}

void json_null(struct json *j, const char *key)
{
	json_prefix(j, key);
	buf_puts(&j->out, "null");
}
