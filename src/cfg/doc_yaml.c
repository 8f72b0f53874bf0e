/*
 * doc_yaml.c - the block-YAML subset of configuration files into a doc tree;
 * see doc.h.
 *
 * The input is cut into content lines (indent, start, end), skipping blank
 * and comment lines.  A block is a sequence ("- " at its indent), a mapping
 * ("key: " at its indent) or a scalar.  "- key: v" is handled the way YAML
 * defines it: the item's content starts a virtual line indented to the
 * column after "- ", so the entries below it at that column join its map.
 */
#include "cfg/doc.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct yline {
	int indent;		/* column of start */
	size_t start, end;	/* content, end excludes the newline */
	int no;			/* 1-based line number */
};

struct yp {
	struct doc_parser p;
	struct yline *lines;
	size_t n, cap, i;
};

static int is_blank_or_comment(const struct yp *y, size_t from, size_t end)
{
	for (size_t k = from; k < end; k++) {
		char c = y->p.s[k];

		if (c == '#')
			return 1;
		if (c != ' ' && c != '\t' && c != '\r')
			return 0;
	}
	return 1;
}

static int split_lines(struct yp *y)
{
	const char *s = y->p.s;
	size_t pos = 0, len = y->p.len;
	int no = 0, seen_content = 0;

	while (pos < len) {
		size_t eol = pos, k = pos;
		struct yline *l;
		int indent = 0;

		while (eol < len && s[eol] != '\n')
			eol++;
		no++;
		while (k < eol && s[k] == ' ') {
			k++;
			indent++;
		}
		if (k < eol && s[k] == '\t' && !is_blank_or_comment(y, k, eol))
			return err_set(y->p.e, "line %d: a tab in the indentation", no);
		if (is_blank_or_comment(y, k, eol) ||
		    (!seen_content && indent == 0 && s[k] == '%')) {
			pos = eol + 1;
			continue;
		}
		if (indent == 0 && eol - k >= 3 && (!memcmp(s + k, "---", 3) || !memcmp(s + k, "...", 3)) &&
		    (eol - k == 3 || s[k + 3] == ' ' || s[k + 3] == '\r')) {
			if (seen_content || s[k] == '.')
				break;	/* a second document, or the end marker */
			pos = eol + 1;
			continue;
		}
		XGROW(y->lines, y->n, y->cap);
		l = &y->lines[y->n++];
		l->indent = indent;
		l->start = k;
		l->end = eol;
		while (l->end > l->start && (s[l->end - 1] == '\r' || s[l->end - 1] == ' ' ||
					     s[l->end - 1] == '\t'))
			l->end--;
		l->no = no;
		seen_content = 1;
		pos = eol + 1;
	}
	return 0;
}

static int is_dash(const struct yp *y, const struct yline *l)
{
	const char *s = y->p.s;

	return s[l->start] == '-' && (l->start + 1 == l->end || s[l->start + 1] == ' ');
}

/* Offset of the colon that ends a mapping key on this line, or -1. */
static long key_colon(const struct yp *y, const struct yline *l)
{
	const char *s = y->p.s;
	size_t k = l->start;

	if (s[k] == '[' || s[k] == '{')
		return -1;
	if (s[k] == '"' || s[k] == '\'') {
		char q = s[k++];

		while (k < l->end) {
			if (s[k] == '\\' && q == '"') {
				k += 2;
				continue;
			}
			if (s[k] == q) {
				if (q == '\'' && k + 1 < l->end && s[k + 1] == '\'') {
					k += 2;
					continue;
				}
				break;
			}
			k++;
		}
		if (k >= l->end)
			return -1;
		k++;
		while (k < l->end && s[k] == ' ')
			k++;
		return k < l->end && s[k] == ':' && (k + 1 == l->end || s[k + 1] == ' ') ? (long)k : -1;
	}
	for (; k < l->end; k++) {
		if (s[k] == '#' && k > l->start && s[k - 1] == ' ')
			return -1;
		if (s[k] == ':' && (k + 1 == l->end || s[k + 1] == ' ' || s[k + 1] == '\t'))
			return (long)k;
	}
	return -1;
}

static int parse_block(struct yp *y, struct doc *out, int depth);

/* After a value ended at p.pos on line i: only a comment may follow. */
static int expect_line_end(struct yp *y, const struct yline *l)
{
	if (y->p.pos < l->end && !is_blank_or_comment(y, y->p.pos, l->end))
		return err_set(y->p.e, "line %d: unexpected text after a value", l->no);
	return 0;
}

/* Lines more indented than ind right below line i: a folded plain scalar. */
static void fold_plain(struct yp *y, struct doc *out, int ind)
{
	struct buf b = BUF_INIT;

	if (y->i + 1 >= y->n || y->lines[y->i + 1].indent <= ind)
		return;
	buf_puts(&b, out->str);
	while (y->i + 1 < y->n && y->lines[y->i + 1].indent > ind) {
		const struct yline *l = &y->lines[++y->i];

		buf_addc(&b, ' ');
		buf_add(&b, y->p.s + l->start, l->end - l->start);
	}
	free(out->str);
	out->str = buf_detach(&b);
}

/* "|" or ">": the lines indented more than ind below. */
static void block_scalar(struct yp *y, struct doc *out, int ind, int folded)
{
	struct buf b = BUF_INIT;
	int base = -1;

	buf_puts(&b, "");
	while (y->i + 1 < y->n && y->lines[y->i + 1].indent > ind) {
		const struct yline *l = &y->lines[++y->i];

		if (base < 0)
			base = l->indent;
		if (b.len)
			buf_addc(&b, folded ? ' ' : '\n');
		for (int k = base; k < l->indent; k++)
			buf_addc(&b, ' ');
		buf_add(&b, y->p.s + l->start, l->end - l->start);
	}
	out->type = DOC_SCALAR;
	out->quoted = 1;
	out->str = buf_detach(&b);
}

/* A value that starts at offset pos on line y->i (after "key: " or alone). */
static int parse_inline(struct yp *y, struct doc *out, size_t pos, int ind, int depth)
{
	const struct yline *l = &y->lines[y->i];
	const char *s = y->p.s;

	out->line = l->no;
	y->p.pos = pos;
	if (s[pos] == '[' || s[pos] == '{') {
		size_t end;

		if (doc_parse_flow(&y->p, out, depth + 1, 0) < 0)
			return -1;
		end = y->p.pos;
		/* a flow collection may span lines: continue after the line it ends on */
		while (y->i + 1 < y->n && y->lines[y->i + 1].start < end)
			y->i++;
		if (expect_line_end(y, &y->lines[y->i]) < 0)
			return -1;
		y->i++;
		return 0;
	}
	if ((s[pos] == '|' || s[pos] == '>') && is_blank_or_comment(y, pos + 1, l->end) == 0) {
		/* "|-", "|2" ...: the indicators, then nothing */
		size_t k = pos + 1;

		while (k < l->end && (s[k] == '-' || s[k] == '+' || (s[k] >= '1' && s[k] <= '9')))
			k++;
		if (!is_blank_or_comment(y, k, l->end))
			goto plain;
	}
	if (s[pos] == '|' || s[pos] == '>') {
		block_scalar(y, out, ind, s[pos] == '>');
		y->i++;
		return 0;
	}
	if (s[pos] == '"' || s[pos] == '\'') {
		size_t start = pos;

		out->type = DOC_SCALAR;
		out->quoted = 1;
		if (doc_parse_quoted(&y->p, &out->str) < 0)
			return -1;
		/* a quoted scalar may span lines too */
		while (y->i + 1 < y->n && y->lines[y->i + 1].start < y->p.pos)
			y->i++;
		(void)start;
		if (expect_line_end(y, &y->lines[y->i]) < 0)
			return -1;
		y->i++;
		return 0;
	}
plain:
	{
		size_t k = pos, e = l->end;

		for (; k < l->end; k++)
			if (s[k] == '#' && k > pos && (s[k - 1] == ' ' || s[k - 1] == '\t')) {
				e = k;
				break;
			}
		while (e > pos && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		out->type = DOC_SCALAR;
		out->str = xstrndup(s + pos, e - pos);
		if (!strcmp(out->str, "~") || !strcmp(out->str, "null")) {
			free(out->str);
			out->str = NULL;
			out->type = DOC_NULL;
			y->i++;
			return 0;
		}
		if (y->i + 1 < y->n && y->lines[y->i + 1].indent > ind &&
		    key_colon(y, &y->lines[y->i + 1]) >= 0)
			return err_set(y->p.e, "line %d: a mapping inside a plain scalar",
				       y->lines[y->i + 1].no);
		fold_plain(y, out, ind);
		y->i++;
		return 0;
	}
}

static int parse_seq(struct yp *y, struct doc *out, int ind, int depth)
{
	out->type = DOC_LIST;
	out->line = y->lines[y->i].no;
	while (y->i < y->n && y->lines[y->i].indent == ind && is_dash(y, &y->lines[y->i])) {
		struct yline *l = &y->lines[y->i];
		struct doc *kid = doc_add_kid(out);
		size_t r = l->start + 1;

		if (doc_count_node(&y->p) < 0)
			return -1;
		kid->line = l->no;
		while (r < l->end && y->p.s[r] == ' ')
			r++;
		if (r >= l->end || is_blank_or_comment(y, r, l->end)) {
			y->i++;
			if (y->i < y->n && y->lines[y->i].indent > ind && parse_block(y, kid, depth + 1) < 0)
				return -1;
			continue;
		}
		/* the item's content is a virtual line at its own column */
		l->indent += (int)(r - l->start);
		l->start = r;
		if (parse_block(y, kid, depth + 1) < 0)
			return -1;
	}
	return 0;
}

static int parse_map(struct yp *y, struct doc *out, int ind, int depth)
{
	out->type = DOC_MAP;
	out->line = y->lines[y->i].no;
	while (y->i < y->n && y->lines[y->i].indent == ind && !is_dash(y, &y->lines[y->i])) {
		const struct yline *l = &y->lines[y->i];
		long colon = key_colon(y, l);
		struct doc *kid;
		size_t r;

		if (colon < 0)
			return err_set(y->p.e, "line %d: expected 'key: value'", l->no);
		if (doc_count_node(&y->p) < 0)
			return -1;
		kid = doc_add_kid(out);
		kid->line = l->no;
		if (y->p.s[l->start] == '"' || y->p.s[l->start] == '\'') {
			y->p.pos = l->start;
			if (doc_parse_quoted(&y->p, &kid->key) < 0)
				return -1;
		} else {
			size_t e = (size_t)colon;

			while (e > l->start && (y->p.s[e - 1] == ' ' || y->p.s[e - 1] == '\t'))
				e--;
			kid->key = xstrndup(y->p.s + l->start, e - l->start);
		}
		r = (size_t)colon + 1;
		while (r < l->end && (y->p.s[r] == ' ' || y->p.s[r] == '\t'))
			r++;
		if (r < l->end && !is_blank_or_comment(y, r, l->end)) {
			if (parse_inline(y, kid, r, ind, depth) < 0)
				return -1;
			continue;
		}
		y->i++;
		if (y->i >= y->n)
			continue;
		if (y->lines[y->i].indent > ind) {
			if (parse_block(y, kid, depth + 1) < 0)
				return -1;
		} else if (y->lines[y->i].indent == ind && is_dash(y, &y->lines[y->i])) {
			/* "key:\n- a": a sequence may sit at its key's indent */
			if (parse_seq(y, kid, ind, depth + 1) < 0)
				return -1;
		}
	}
	return 0;
}

static int parse_block(struct yp *y, struct doc *out, int depth)
{
	const struct yline *l = &y->lines[y->i];

	if (depth > DOC_MAX_DEPTH)
		return err_set(y->p.e, "line %d: nested deeper than %d levels", l->no, DOC_MAX_DEPTH);
	if (doc_count_node(&y->p) < 0)
		return -1;
	if (is_dash(y, l))
		return parse_seq(y, out, l->indent, depth);
	if (key_colon(y, l) >= 0)
		return parse_map(y, out, l->indent, depth);
	return parse_inline(y, out, l->start, l->indent, depth);
}

int doc_parse_yaml(const char *text, size_t len, struct doc *out, struct err *e)
{
	struct yp y;
	int rc = -1;

	memset(&y, 0, sizeof(y));
	memset(out, 0, sizeof(*out));
	y.p.s = text;
	y.p.len = len;
	y.p.e = e;
	if (memchr(text, '\0', len)) {
		err_set(e, "a NUL byte in the text");
		goto out;
	}
	if (split_lines(&y) < 0)
		goto out;
	if (y.n == 0) {
		out->type = DOC_NULL;
		rc = 0;
		goto out;
	}
	if (parse_block(&y, out, 0) < 0)
		goto out;
	if (y.i < y.n) {
		err_set(e, "line %d: bad indentation", y.lines[y.i].no);
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		doc_release(out);
	free(y.lines);
	return rc;
}
