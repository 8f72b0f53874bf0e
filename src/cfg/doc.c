/* doc.c - the document tree, and the flow (JSON) parser; see doc.h. */
#include "cfg/doc.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

void doc_release(struct doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		doc_release(&d->kids[i]);
	free(d->kids);
	free(d->key);
	free(d->str);
	memset(d, 0, sizeof(*d));
}

struct doc *doc_add_kid(struct doc *parent)
{
	struct doc *k;

	XGROW(parent->kids, parent->n, parent->cap);
	k = &parent->kids[parent->n++];
	memset(k, 0, sizeof(*k));
	return k;
}

int doc_count_node(struct doc_parser *p)
{
	if (++p->nodes > DOC_MAX_NODES)
		return err_set(p->e, "more than %d nodes", DOC_MAX_NODES);
	return 0;
}

int doc_line_of(const struct doc_parser *p, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off && i < p->len; i++)
		line += p->s[i] == '\n';
	return line;
}

const struct doc *doc_get(const struct doc *map, const char *key)
{
	const struct doc *found = NULL;

	if (!map || map->type != DOC_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (map->kids[i].key && !strcmp(map->kids[i].key, key))
			found = &map->kids[i];
	return found;
}

const char *doc_str(const struct doc *d)
{
	return d && d->type == DOC_SCALAR ? d->str : NULL;
}

size_t doc_len(const struct doc *d)
{
	return d && d->type == DOC_LIST ? d->n : 0;
}

const struct doc *doc_at(const struct doc *d, size_t i)
{
	if (!d || (d->type != DOC_LIST && d->type != DOC_MAP) || i >= d->n)
		return NULL;
	return &d->kids[i];
}

int doc_bool(const struct doc *d)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", "On" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off", "Off" };
	const char *s = doc_str(d);

	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(s, yes[i]))
			return 1;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcmp(s, no[i]))
			return 0;
	return -1;
}

static int at_end(const struct doc_parser *p)
{
	return p->pos >= p->len;
}

static char cur(const struct doc_parser *p)
{
	return at_end(p) ? '\0' : p->s[p->pos];
}

/* Spaces, newlines and (YAML) comments between flow tokens. */
static void skip_ws(struct doc_parser *p)
{
	while (!at_end(p)) {
		char c = p->s[p->pos];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			p->pos++;
		} else if (c == '#' && (p->pos == 0 || p->s[p->pos - 1] == ' ' ||
					p->s[p->pos - 1] == '\t' || p->s[p->pos - 1] == '\n')) {
			while (!at_end(p) && p->s[p->pos] != '\n')
				p->pos++;
		} else {
			break;
		}
	}
}

static void put_utf8(struct buf *b, unsigned long cp)
{
	if (cp < 0x80) {
		buf_addc(b, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(b, (char)(0xc0 | (cp >> 6)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xe0 | (cp >> 12)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | (cp >> 18)));
		buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

static int hex4(const char *s, size_t avail, unsigned long *out)
{
	unsigned long v = 0;

	if (avail < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned long)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

int doc_parse_quoted(struct doc_parser *p, char **out)
{
	char q = cur(p);
	size_t start = p->pos;
	struct buf b = BUF_INIT;

	p->pos++;
	buf_puts(&b, "");
	for (;;) {
		char c;

		if (at_end(p)) {
			buf_release(&b);
			return err_set(p->e, "line %d: unterminated quoted string",
				       doc_line_of(p, start));
		}
		c = p->s[p->pos++];
		if (c == q) {
			/* YAML single quotes: '' is one quote */
			if (q == '\'' && cur(p) == '\'') {
				buf_addc(&b, '\'');
				p->pos++;
				continue;
			}
			break;
		}
		if (c == '\0') {
			buf_release(&b);
			return err_set(p->e, "line %d: NUL byte in a string", doc_line_of(p, start));
		}
		if (c != '\\' || q == '\'') {
			buf_addc(&b, c);
			continue;
		}
		if (at_end(p))
			continue;	/* reported as unterminated on the next turn */
		c = p->s[p->pos++];
		switch (c) {
		case 'n': buf_addc(&b, '\n'); break;
		case 't': buf_addc(&b, '\t'); break;
		case 'r': buf_addc(&b, '\r'); break;
		case 'b': buf_addc(&b, '\b'); break;
		case 'f': buf_addc(&b, '\f'); break;
		case '0': buf_addc(&b, ' '); break;	/* never a NUL inside a C string */
		case 'u': {
			unsigned long cp, lo;

			if (hex4(p->s + p->pos, p->len - p->pos, &cp) < 0) {
				buf_release(&b);
				return err_set(p->e, "line %d: bad \\u escape", doc_line_of(p, p->pos));
			}
			p->pos += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->len - p->pos >= 6 &&
			    p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u' &&
			    hex4(p->s + p->pos + 2, p->len - p->pos - 2, &lo) == 0 &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p->pos += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;	/* a lone surrogate is not UTF-8 */
			}
			put_utf8(&b, cp ? cp : ' ');
			break;
		}
		default:
			buf_addc(&b, c);	/* \" \\ \/ and YAML's other escapes as themselves */
			break;
		}
	}
	*out = buf_detach(&b);
	return 0;
}

/* A plain (unquoted) scalar: ends at a flow indicator in flow context. */
static int parse_plain(struct doc_parser *p, char **out, int in_flow, int is_key)
{
	size_t start = p->pos, end;

	while (!at_end(p)) {
		char c = p->s[p->pos];

		if (c == '\n' || c == '\r')
			break;
		if (c == '#' && p->pos > start && (p->s[p->pos - 1] == ' ' || p->s[p->pos - 1] == '\t'))
			break;
		if (in_flow && (c == ',' || c == ']' || c == '}'))
			break;
		if (is_key && c == ':')
			break;
		if (c == '\0')
			return err_set(p->e, "line %d: NUL byte", doc_line_of(p, p->pos));
		p->pos++;
	}
	end = p->pos;
	while (end > start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t'))
		end--;
	*out = xstrndup(p->s + start, end - start);
	return 0;
}

static int parse_scalar_into(struct doc_parser *p, struct doc *out, int in_flow, int is_key)
{
	out->type = DOC_SCALAR;
	if (cur(p) == '"' || cur(p) == '\'') {
		out->quoted = 1;
		return doc_parse_quoted(p, &out->str);
	}
	return parse_plain(p, &out->str, in_flow, is_key);
}

int doc_parse_flow(struct doc_parser *p, struct doc *out, int depth, int in_flow)
{
	char open, close;
	size_t start;

	if (depth > DOC_MAX_DEPTH)
		return err_set(p->e, "line %d: nested deeper than %d levels", doc_line_of(p, p->pos),
			       DOC_MAX_DEPTH);
	if (doc_count_node(p) < 0)
		return -1;
	skip_ws(p);
	if (at_end(p))
		return err_set(p->e, "unexpected end of input");
	open = cur(p);
	if (open != '[' && open != '{')
		return parse_scalar_into(p, out, in_flow, 0);
	close = open == '[' ? ']' : '}';
	out->type = open == '[' ? DOC_LIST : DOC_MAP;
	start = p->pos++;
	for (;;) {
		struct doc *kid;

		skip_ws(p);
		if (at_end(p))
			return err_set(p->e, "line %d: '%c' is never closed",
				       doc_line_of(p, start), open);
		if (cur(p) == close) {
			p->pos++;
			return 0;
		}
		kid = doc_add_kid(out);
		if (out->type == DOC_MAP) {
			struct doc k = { 0 };

			if (parse_scalar_into(p, &k, 1, 1) < 0) {
				doc_release(&k);
				return -1;
			}
			kid->key = k.str;
			k.str = NULL;
			doc_release(&k);
			skip_ws(p);
			if (cur(p) != ':')
				return err_set(p->e, "line %d: expected ':' after a key",
					       doc_line_of(p, p->pos));
			p->pos++;
			skip_ws(p);
			if (cur(p) == ',' || cur(p) == '}') {
				kid->type = DOC_NULL;
			} else if (doc_parse_flow(p, kid, depth + 1, 1) < 0) {
				return -1;
			}
		} else if (doc_parse_flow(p, kid, depth + 1, 1) < 0) {
			return -1;
		}
		skip_ws(p);
		if (cur(p) == ',') {
			p->pos++;
		} else if (cur(p) != close) {
			return err_set(p->e, "line %d: expected ',' or '%c'", doc_line_of(p, p->pos),
				       close);
		}
	}
}

int doc_parse_json(const char *text, size_t len, struct doc *out, struct err *e)
{
	struct doc_parser p = { text, len, 0, 0, e };

	memset(out, 0, sizeof(*out));
	if (doc_parse_flow(&p, out, 0, 1) < 0)
		goto fail;
	skip_ws(&p);
	if (!at_end(&p)) {
		err_set(e, "line %d: text after the value", doc_line_of(&p, p.pos));
		goto fail;
	}
	return 0;
fail:
	doc_release(out);
	return -1;
}
