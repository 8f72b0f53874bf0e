/* kv.c - key=value line protocol for isolated children; see kv.h. */
#include "core/kv.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvlist_add(struct kvlist *l, const char *key, const char *val)
{
	XGROW(l->items, l->n, l->cap);
	l->items[l->n].key = xstrdup(key);
	l->items[l->n].val = xstrdup(val);
	l->n++;
}

void kvlist_parse(struct kvlist *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(eol - p));

		if (eol - p == 3 && !memcmp(p, "end", 3)) {
			l->complete = 1;
		} else if (eq && eq > p) {
			char *key = xstrndup(p, (size_t)(eq - p));
			char *val = xstrndup(eq + 1, (size_t)(eol - eq - 1));

			XGROW(l->items, l->n, l->cap);
			l->items[l->n].key = key;
			l->items[l->n].val = val;
			l->n++;
		}
		p = nl ? nl + 1 : end;
	}
}

void kvlist_release(struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].val);
	}
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
	l->complete = 0;
}

const char *kv_get(const struct kvlist *l, const char *key)
{
	size_t i;

	for (i = l->n; i > 0; i--)
		if (!strcmp(l->items[i - 1].key, key))
			return l->items[i - 1].val;
	return NULL;
}

const char *kv_getf(const struct kvlist *l, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	return kv_get(l, key);
}

long long kv_get_ll(const struct kvlist *l, const char *key, long long def)
{
	const char *v = kv_get(l, key);
	char *endp;
	long long r;

	if (!v || !*v)
		return def;
	errno = 0;
	r = strtoll(v, &endp, 0);
	if (errno || *endp)
		return def;
	return r;
}

double kv_get_double(const struct kvlist *l, const char *key, double def)
{
	const char *v = kv_get(l, key);
	char *endp;
	double r;

	if (!v || !*v)
		return def;
	r = strtod(v, &endp);
	if (*endp || isnan(r))
		return def;
	return r;
}

void kv_emit(const char *key, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	for (char *q = p; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	buf_printf(&b, "%s=%s\n", key, p);
	fwrite(b.s, 1, b.len, stdout);
	fflush(stdout);
	buf_release(&b);
	free(p);
}

void kv_end(void)
{
	fputs("end\n", stdout);
	fflush(stdout);
}
