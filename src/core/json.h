/*
 * json.h - a streaming JSON writer that always escapes.
 *
 * Values are written in document order; every value inside an object takes a
 * key, every value inside an array takes key == NULL.  Unknown facts are
 * written as null, never 0 or "": pass NULL strings, use json_int_known() and
 * NAN doubles.  The output is always valid UTF-8: a byte of a string or key
 * that is not part of a valid UTF-8 sequence becomes U+FFFD, and the
 * top-level object then ends with "utf8_replaced": N (the count).
 *
 *	struct json j;
 *	json_init(&j, 1);
 *	json_obj_begin(&j, NULL);
 *	json_str(&j, "status", "ok");
 *	json_arr_begin(&j, "layers"); ... json_arr_end(&j);
 *	json_obj_end(&j);
 *	fputs(j.out.s, stdout); json_release(&j);
 */
#ifndef GD_JSON_H
#define GD_JSON_H

#include "core/buf.h"

#define JSON_MAX_DEPTH 64

struct json {
	struct buf out;
	int pretty;
	int depth;
	int count[JSON_MAX_DEPTH];	/* values written at each depth */
	size_t utf8_replaced;		/* bytes replaced by U+FFFD so far */
};

void json_init(struct json *j, int pretty);
void json_release(struct json *j);

void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);

void json_str(struct json *j, const char *key, const char *val);	/* NULL -> null */
void json_int(struct json *j, const char *key, long long val);
/* Writes null unless known. */
void json_int_known(struct json *j, const char *key, long long val, int known);
/* Negative means unknown (for counts, sizes, temperatures...). */
void json_int_nonneg(struct json *j, const char *key, long long val);
void json_num(struct json *j, const char *key, double val);	/* NaN -> null */
void json_bool(struct json *j, const char *key, int val);
/* Tri-state: negative -> null, 0 -> false, positive -> true. */
void json_tribool(struct json *j, const char *key, int val);
void json_null(struct json *j, const char *key);
/* An array of n strings (NULL entries are null). */
void json_str_array(struct json *j, const char *key, char *const *v, size_t n);

/* Append s as a JSON string literal (with quotes) to b; bytes that are not
 * UTF-8 become U+FFFD (not counted: use json_str for that). */
void json_escape(struct buf *b, const char *s);

#endif
