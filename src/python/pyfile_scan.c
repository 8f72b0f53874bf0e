/*
 * pyfile_scan.c - key/value pairs from generated Python modules, without
 * a Python parser: a scanner that knows string literals, comments and the
 * three shapes in pyfile.h.  Untrusted text: every index is checked against
 * len, and the text need not be NUL-terminated.
 */
#include "python/pyfile.h"

#include "core/buf.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct pyscan {
	const char *s;
	size_t n, i;
};

static void pyscan_ws(struct pyscan *c, int newlines)
{
	while (c->i < c->n) {
		char ch = c->s[c->i];

		if (ch == ' ' || ch == '\t' || ch == '\r' || (newlines && ch == '\n') || ch == '\\') {
			c->i++;
		} else if (ch == '#') {
			while (c->i < c->n && c->s[c->i] != '\n')
				c->i++;
		} else {
			break;
		}
	}
}

/* A string literal at c->i (optional r/b/u prefix); returns it or NULL. */
static char *pyscan_string(struct pyscan *c)
{
	size_t i = c->i;
	char q;
	int triple, raw = 0;
	struct buf b = BUF_INIT;

	while (i < c->n && strchr("rRbBuU", c->s[i]) && i - c->i < 2) {
		if (c->s[i] == 'r' || c->s[i] == 'R')
			raw = 1;
		i++;
	}
	if (i >= c->n || (c->s[i] != '\'' && c->s[i] != '"'))
		return NULL;
	q = c->s[i];
	triple = i + 2 < c->n && c->s[i + 1] == q && c->s[i + 2] == q;
	i += triple ? 3 : 1;
	buf_init(&b);
	while (i < c->n) {
		char ch = c->s[i];

		if (ch == '\\' && !raw && i + 1 < c->n) {
			char nx = c->s[i + 1];

			buf_addc(&b, nx == 'n' ? '\n' : nx == 't' ? '\t' : nx);
			i += 2;
			continue;
		}
		if (ch == q && (!triple || (i + 2 < c->n && c->s[i + 1] == q && c->s[i + 2] == q))) {
			i += triple ? 3 : 1;
			c->i = i;
			return buf_detach(&b);
		}
		if (ch == '\n' && !triple)
			break;
		buf_addc(&b, ch);
		i++;
	}
	/* unterminated: consume to where we stopped */
	c->i = i;
	buf_release(&b);
	return NULL;
}

static int pyscan_ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static size_t pyscan_ident(const struct pyscan *c, size_t i)
{
	size_t k = i;

	if (k < c->n && (isalpha((unsigned char)c->s[k]) || c->s[k] == '_'))
		while (k < c->n && pyscan_ident_char(c->s[k]))
			k++;
	return k - i;
}

static void pyval_clear(struct pyval *v)
{
	free(v->str);
	for (size_t i = 0; i < v->nitems; i++)
		free(v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

/* Skip a balanced bracket group starting at c->i (used for values we don't model). */
static void pyscan_skip_group(struct pyscan *c)
{
	int depth = 0;

	while (c->i < c->n) {
		char ch = c->s[c->i];
		char *s;

		if (ch == '\'' || ch == '"') {
			size_t before = c->i;

			s = pyscan_string(c);
			free(s);
			if (c->i == before)
				c->i++;
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		c->i++;
		if (depth <= 0)
			return;
	}
}

/* One value at c->i.  Returns 0 with v filled, -1 when there is none. */
static int pyscan_value(struct pyscan *c, struct pyval *v)
{
	size_t k;
	char *s;

	memset(v, 0, sizeof(*v));
	pyscan_ws(c, 0);
	if (c->i >= c->n)
		return -1;
	if ((s = pyscan_string(c)) != NULL) {
		v->type = PYVAL_STR;
		v->str = s;
		/* implicit concatenation 'a' 'b' */
		for (;;) {
			size_t save = c->i;
			char *more;

			pyscan_ws(c, 0);
			more = pyscan_string(c);
			if (!more) {
				c->i = save;
				break;
			}
			v->str = xasprintf("%s%s", s, more);
			free(s);
			free(more);
			s = v->str;
		}
		return 0;
	}
	/* An unterminated string was consumed to the end. */
	if (c->i >= c->n)
		return -1;
	if (c->s[c->i] == '[' || c->s[c->i] == '(') {
		char close = c->s[c->i] == '[' ? ']' : ')';

		v->type = PYVAL_LIST;
		c->i++;
		while (c->i < c->n) {
			struct pyval item;

			pyscan_ws(c, 1);
			if (c->i >= c->n)
				break;
			if (c->s[c->i] == close) {
				c->i++;
				return 0;
			}
			if (c->s[c->i] == ',') {
				c->i++;
				continue;
			}
			{
				size_t before = c->i;

				if (pyscan_value(c, &item) < 0 || c->i == before) {
					/* something we don't model ('{' is not consumed): step over it */
					pyval_clear(&item);
					c->i = before + 1;
					continue;
				}
			}
			if (item.type == PYVAL_STR) {
				XGROW(v->items, v->nitems + 1, v->items_cap);
				v->items[v->nitems++] = item.str;
				item.str = NULL;
			}
			pyval_clear(&item);
		}
		return 0;
	}
	if (c->s[c->i] == '{') {
		/* not consumed: the scanner walks into a dict to find its pairs */
		v->type = PYVAL_OTHER;
		return 0;
	}
	k = pyscan_ident(c, c->i);
	if (k) {
		const char *w = c->s + c->i;

		if (k == 4 && memcmp(w, "True", 4) == 0) {
			v->type = PYVAL_BOOL;
			v->b = 1;
		} else if (k == 5 && memcmp(w, "False", 5) == 0) {
			v->type = PYVAL_BOOL;
			v->b = 0;
		} else if (k == 4 && memcmp(w, "None", 4) == 0) {
			v->type = PYVAL_NONE;
		} else {
			v->type = PYVAL_OTHER;
			v->str = xstrndup(w, k);
			c->i += k;
			/* a call or subscript: skip its arguments */
			if (c->i < c->n && (c->s[c->i] == '(' || c->s[c->i] == '['))
				pyscan_skip_group(c);
			return 0;
		}
		c->i += k;
		return 0;
	}
	if (isdigit((unsigned char)c->s[c->i]) || c->s[c->i] == '-') {
		size_t st = c->i;

		c->i++;
		while (c->i < c->n && (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '.'))
			c->i++;
		v->type = PYVAL_NUM;
		v->str = xstrndup(c->s + st, c->i - st);
		return 0;
	}
	return -1;
}

static void pyfile_add(struct pyfile_pairs *p, char *key, struct pyval *v)
{
	XGROW(p->keys, p->n + 1, p->cap);
	{
		size_t cap = p->cap;

		/* vals grows with keys */
		p->vals = xrealloc(p->vals, cap * sizeof(*p->vals));
	}
	p->keys[p->n] = key;
	p->vals[p->n] = *v;
	p->n++;
	memset(v, 0, sizeof(*v));
}

void pyfile_scan(const char *text, size_t len, struct pyfile_pairs *p)
{
	struct pyscan c = { text, len, 0 };
	int line_start = 1;

	while (c.i < c.n) {
		char ch = c.s[c.i];
		size_t k;

		if (ch == '\n') {
			line_start = 1;
			c.i++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r') {
			c.i++;
			continue;
		}
		if (ch == '#') {
			while (c.i < c.n && c.s[c.i] != '\n')
				c.i++;
			continue;
		}
		if (ch == '\'' || ch == '"') {
			/* 'key' followed by ',' (a tuple) or ':' (a dict entry) */
			size_t before = c.i;
			char *key = pyscan_string(&c);

			line_start = 0;
			if (!key) {
				if (c.i == before)
					c.i++;
				continue;
			}
			pyscan_ws(&c, 1);
			if (c.i < c.n && (c.s[c.i] == ',' || c.s[c.i] == ':')) {
				size_t save = ++c.i;
				struct pyval v;

				pyscan_ws(&c, 1);
				if (pyscan_value(&c, &v) == 0) {
					pyscan_ws(&c, 1);
					/* a tuple pair ends at ')', a dict entry at ',' or '}' */
					if (c.i >= c.n || c.s[c.i] == ')' || c.s[c.i] == ',' ||
					    c.s[c.i] == '}') {
						pyfile_add(p, key, &v);
						key = NULL;
					} else {
						pyval_clear(&v);
						c.i = save;
					}
				} else {
					c.i = save;
				}
			}
			free(key);
			continue;
		}
		k = pyscan_ident(&c, c.i);
		if (k && line_start) {
			/* name [: annotation] = value */
			char *name = xstrndup(c.s + c.i, k);
			size_t save;

			c.i += k;
			line_start = 0;
			pyscan_ws(&c, 0);
			if (c.i < c.n && c.s[c.i] == ':') {
				/* annotation up to '=' on this line */
				while (c.i < c.n && c.s[c.i] != '=' && c.s[c.i] != '\n')
					c.i++;
			}
			save = c.i;
			if (c.i + 1 < c.n && c.s[c.i] == '=' && c.s[c.i + 1] != '=') {
				struct pyval v;

				c.i++;
				if (pyscan_value(&c, &v) == 0) {
					pyfile_add(p, name, &v);
					name = NULL;
				} else {
					c.i = save + 1;
				}
			}
			free(name);
			continue;
		}
		line_start = 0;
		c.i += k ? k : 1;
	}
}

void pyfile_pairs_release(struct pyfile_pairs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->keys[i]);
		pyval_clear(&p->vals[i]);
	}
	free(p->keys);
	free(p->vals);
	memset(p, 0, sizeof(*p));
}

const struct pyval *pyfile_get(const struct pyfile_pairs *p, const char *key)
{
	for (size_t i = p->n; i-- > 0;)
		if (strcmp(p->keys[i], key) == 0)
			return &p->vals[i];
	return NULL;
}
