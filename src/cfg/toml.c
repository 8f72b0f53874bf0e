/* toml.c - the TOML subset of configuration files; see toml.h. */
#include "cfg/toml.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct tp {
	const char *s;
	size_t len, pos;
	int line;
	struct err *e;
};

static int tp_end(const struct tp *p)
{
	return p->pos >= p->len;
}

static char tp_cur(const struct tp *p)
{
	return tp_end(p) ? '\0' : p->s[p->pos];
}

static void skip_sp(struct tp *p)
{
	while (!tp_end(p) && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

/* Spaces, newlines and comments (inside arrays). */
static void skip_all(struct tp *p)
{
	while (!tp_end(p)) {
		char c = p->s[p->pos];

		if (c == '\n') {
			p->line++;
			p->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			p->pos++;
		} else if (c == '#') {
			while (!tp_end(p) && p->s[p->pos] != '\n')
				p->pos++;
		} else {
			break;
		}
	}
}

static int line_rest_empty(struct tp *p)
{
	skip_sp(p);
	if (tp_cur(p) == '#')
		while (!tp_end(p) && p->s[p->pos] != '\n')
			p->pos++;
	if (tp_cur(p) == '\r')
		p->pos++;
	if (!tp_end(p) && p->s[p->pos] != '\n')
		return err_set(p->e, "line %d: unexpected text", p->line);
	return 0;
}

/* "..." (with escapes), '...', and the triple-quoted forms. */
static int parse_string(struct tp *p, char **out)
{
	char q = tp_cur(p);
	int triple = p->len - p->pos >= 3 && p->s[p->pos + 1] == q && p->s[p->pos + 2] == q;
	struct buf b = BUF_INIT;

	p->pos += triple ? 3 : 1;
	if (triple && tp_cur(p) == '\n') {
		p->pos++;
		p->line++;
	}
	buf_puts(&b, "");
	for (;;) {
		char c;

		if (tp_end(p) || (!triple && p->s[p->pos] == '\n')) {
			buf_release(&b);
			return err_set(p->e, "line %d: unterminated string", p->line);
		}
		c = p->s[p->pos];
		if (c == q && (!triple || (p->len - p->pos >= 3 && p->s[p->pos + 1] == q &&
					   p->s[p->pos + 2] == q))) {
			p->pos += triple ? 3 : 1;
			break;
		}
		if (c == '\0') {
			buf_release(&b);
			return err_set(p->e, "line %d: NUL byte", p->line);
		}
		p->pos++;
		if (c == '\n')
			p->line++;
		if (c == '\\' && q == '"' && !tp_end(p)) {
			c = p->s[p->pos++];
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': case 'U': c = '?'; break;	/* not needed for the keys we read */
			case '\n': p->line++; continue;
			default: break;
			}
		}
		buf_addc(&b, c);
	}
	*out = buf_detach(&b);
	return 0;
}

static int is_bare(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* a.b."c.d" into parts (appended after *n existing ones). */
static int parse_key(struct tp *p, char **parts, size_t *n)
{
	for (;;) {
		char *part;

		skip_sp(p);
		if (*n >= TOML_MAX_PARTS)
			return err_set(p->e, "line %d: a key of more than %d parts", p->line,
				       TOML_MAX_PARTS);
		if (tp_cur(p) == '"' || tp_cur(p) == '\'') {
			if (parse_string(p, &part) < 0)
				return -1;
		} else {
			size_t start = p->pos;

			while (!tp_end(p) && is_bare(p->s[p->pos]))
				p->pos++;
			if (p->pos == start)
				return err_set(p->e, "line %d: expected a key", p->line);
			part = xstrndup(p->s + start, p->pos - start);
		}
		parts[(*n)++] = part;
		skip_sp(p);
		if (tp_cur(p) != '.')
			return 0;
		p->pos++;
	}
}

static void free_parts(char **parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i]);
}

static struct toml_entry *add_entry(struct toml *t, char **table, size_t ntable, char **key,
				    size_t nkey, struct tp *p)
{
	struct toml_entry *en;

	if (t->n >= TOML_MAX_ENTRIES) {
		err_set(p->e, "more than %d entries", TOML_MAX_ENTRIES);
		return NULL;
	}
	if (ntable + nkey > TOML_MAX_PARTS) {
		err_set(p->e, "line %d: a key of more than %d parts", p->line, TOML_MAX_PARTS);
		return NULL;
	}
	XGROW(t->entries, t->n, t->cap);
	en = &t->entries[t->n++];
	memset(en, 0, sizeof(*en));
	for (size_t i = 0; i < ntable; i++)
		en->parts[en->nparts++] = xstrdup(table[i]);
	for (size_t i = 0; i < nkey; i++)
		en->parts[en->nparts++] = xstrdup(key[i]);
	en->line = p->line;
	return en;
}

/* A bare value: true, false, numbers, dates: up to , ] } # or the line end. */
static char *parse_bare(struct tp *p)
{
	size_t start = p->pos, end;

	while (!tp_end(p) && p->s[p->pos] != ',' && p->s[p->pos] != ']' && p->s[p->pos] != '}' &&
	       p->s[p->pos] != '#' && p->s[p->pos] != '\n')
		p->pos++;
	end = p->pos;
	while (end > start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t' || p->s[end - 1] == '\r'))
		end--;
	return xstrndup(p->s + start, end - start);
}

static int parse_value(struct toml *t, struct tp *p, char **table, size_t ntable, char **key,
		       size_t nkey, int depth);

static int parse_inline_table(struct toml *t, struct tp *p, char **table, size_t ntable,
			      char **key, size_t nkey, int depth)
{
	char *path[TOML_MAX_PARTS];
	size_t npath = 0;

	if (ntable + nkey > TOML_MAX_PARTS)
		return err_set(p->e, "line %d: nested too deeply", p->line);
	for (size_t i = 0; i < ntable; i++)
		path[npath++] = table[i];
	for (size_t i = 0; i < nkey; i++)
		path[npath++] = key[i];
	p->pos++;	/* '{' */
	for (;;) {
		char *k[TOML_MAX_PARTS];
		size_t nk = 0;
		int rc;

		skip_all(p);
		if (tp_cur(p) == '}') {
			p->pos++;
			return 0;
		}
		if (tp_end(p))
			return err_set(p->e, "line %d: '{' is never closed", p->line);
		if (parse_key(p, k, &nk) < 0) {
			free_parts(k, nk);
			return -1;
		}
		skip_sp(p);
		if (tp_cur(p) != '=') {
			free_parts(k, nk);
			return err_set(p->e, "line %d: expected '='", p->line);
		}
		p->pos++;
		skip_sp(p);
		rc = parse_value(t, p, path, npath, k, nk, depth + 1);
		free_parts(k, nk);
		if (rc < 0)
			return -1;
		skip_all(p);
		if (tp_cur(p) == ',')
			p->pos++;
		else if (tp_cur(p) != '}')
			return err_set(p->e, "line %d: expected ',' or '}'", p->line);
	}
}

static int parse_array(struct tp *p, struct toml_entry *en, int depth)
{
	p->pos++;	/* '[' */
	for (;;) {
		char *item = NULL;

		skip_all(p);
		if (tp_cur(p) == ']') {
			p->pos++;
			return 0;
		}
		if (tp_end(p))
			return err_set(p->e, "line %d: '[' is never closed", p->line);
		if (en->nitems >= TOML_MAX_ENTRIES)
			return err_set(p->e, "line %d: an array of more than %d items", p->line,
				       TOML_MAX_ENTRIES);
		if (tp_cur(p) == '"' || tp_cur(p) == '\'') {
			if (parse_string(p, &item) < 0)
				return -1;
		} else if (tp_cur(p) == '[') {
			struct toml_entry sub;

			if (depth > 16)
				return err_set(p->e, "line %d: arrays nested too deeply", p->line);
			memset(&sub, 0, sizeof(sub));
			if (parse_array(p, &sub, depth + 1) < 0) {
				for (size_t i = 0; i < sub.nitems; i++)
					free(sub.items[i]);
				free(sub.items);
				return -1;
			}
			for (size_t i = 0; i < sub.nitems; i++)
				free(sub.items[i]);
			free(sub.items);
			item = xstrdup("[...]");
		} else if (tp_cur(p) == '{') {
			int level = 0;

			/* an inline table inside an array: skipped, kept as its marker */
			while (!tp_end(p)) {
				char c = p->s[p->pos++];

				if (c == '{')
					level++;
				else if (c == '}' && --level == 0)
					break;
				else if (c == '\n')
					p->line++;
			}
			item = xstrdup("{...}");
		} else {
			item = parse_bare(p);
		}
		en->items = xrealloc(en->items, (en->nitems + 1) * sizeof(*en->items));
		en->items[en->nitems++] = item;
		skip_all(p);
		if (tp_cur(p) == ',')
			p->pos++;
		else if (tp_cur(p) != ']')
			return err_set(p->e, "line %d: expected ',' or ']'", p->line);
	}
}

static int parse_value(struct toml *t, struct tp *p, char **table, size_t ntable, char **key,
		       size_t nkey, int depth)
{
	struct toml_entry *en;
	char c = tp_cur(p);

	if (depth > 16)
		return err_set(p->e, "line %d: nested too deeply", p->line);
	if (c == '{')
		return parse_inline_table(t, p, table, ntable, key, nkey, depth);
	en = add_entry(t, table, ntable, key, nkey, p);
	if (!en)
		return -1;
	if (c == '"' || c == '\'') {
		en->type = TOML_STRING;
		return parse_string(p, &en->value);
	}
	if (c == '[') {
		en->type = TOML_ARRAY;
		return parse_array(p, en, depth);
	}
	en->value = parse_bare(p);
	if (!en->value[0])
		return err_set(p->e, "line %d: a key without a value", p->line);
	if (!strcmp(en->value, "true") || !strcmp(en->value, "false"))
		en->type = TOML_BOOL;
	else if ((en->value[0] >= '0' && en->value[0] <= '9') || en->value[0] == '-' ||
		 en->value[0] == '+')
		en->type = TOML_NUMBER;
	else
		en->type = TOML_OTHER;
	return 0;
}

int toml_parse(const char *text, size_t len, struct toml *out, struct err *e)
{
	struct tp p = { text, len, 0, 1, e };
	char *table[TOML_MAX_PARTS];
	size_t ntable = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (memchr(text, '\0', len))
		return err_set(e, "a NUL byte in the text");
	for (;;) {
		skip_all(&p);
		if (tp_end(&p))
			break;
		if (tp_cur(&p) == '[') {
			int arr = p.len - p.pos >= 2 && p.s[p.pos + 1] == '[';

			p.pos += arr ? 2 : 1;
			free_parts(table, ntable);
			ntable = 0;
			if (parse_key(&p, table, &ntable) < 0)
				goto out;
			if (tp_cur(&p) != ']' || (arr && (p.len - p.pos < 2 || p.s[p.pos + 1] != ']'))) {
				err_set(e, "line %d: a table header without its ']'", p.line);
				goto out;
			}
			p.pos += arr ? 2 : 1;
			if (line_rest_empty(&p) < 0)
				goto out;
		} else {
			char *key[TOML_MAX_PARTS];
			size_t nkey = 0;
			int r;

			if (parse_key(&p, key, &nkey) < 0) {
				free_parts(key, nkey);
				goto out;
			}
			skip_sp(&p);
			if (tp_cur(&p) != '=') {
				free_parts(key, nkey);
				err_set(e, "line %d: expected '=' after a key", p.line);
				goto out;
			}
			p.pos++;
			skip_sp(&p);
			r = parse_value(out, &p, table, ntable, key, nkey, 0);
			free_parts(key, nkey);
			if (r < 0 || line_rest_empty(&p) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free_parts(table, ntable);
	if (rc < 0)
		toml_release(out);
	return rc;
}

void toml_release(struct toml *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct toml_entry *en = &t->entries[i];

		free_parts(en->parts, en->nparts);
		free(en->value);
		for (size_t k = 0; k < en->nitems; k++)
			free(en->items[k]);
		free(en->items);
	}
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

const struct toml_entry *toml_find(const struct toml *t, ...)
{
	const char *want[TOML_MAX_PARTS];
	size_t n = 0;
	const struct toml_entry *found = NULL;
	const char *a;
	va_list ap;

	va_start(ap, t);
	while ((a = va_arg(ap, const char *)) != NULL && n < TOML_MAX_PARTS)
		want[n++] = a;
	va_end(ap);
	for (size_t i = 0; i < t->n; i++) {
		const struct toml_entry *en = &t->entries[i];

		if (en->nparts == n && toml_has_prefix(en, want, n))
			found = en;
	}
	return found;
}

int toml_has_prefix(const struct toml_entry *en, const char *const *prefix, size_t n)
{
	if (en->nparts < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(en->parts[i], prefix[i]))
			return 0;
	return 1;
}

char *toml_path_str(const struct toml_entry *en)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "");
	for (size_t i = 0; i < en->nparts; i++) {
		const char *s = en->parts[i];
		int bare = *s != '\0';

		for (const char *c = s; *c; c++)
			bare &= is_bare(*c);
		if (i)
			buf_addc(&b, '.');
		if (bare)
			buf_puts(&b, s);
		else
			buf_printf(&b, "\"%s\"", s);
	}
	return buf_detach(&b);
}
