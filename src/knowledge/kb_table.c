/* kb_table.c - parse one knowledge-base data file; see kb_table.h. */
#include "knowledge/kb_table.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define KB_TABLE_MAX_ROWS 200000

static void table_zero(struct kb_table *t)
{
	memset(t, 0, sizeof(*t));
}

void kb_table_release(struct kb_table *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->origin);
	free(t->as_of);
	free(t->text);
	free(t->rows);
	free(t->cells);
	table_zero(t);
}

int kb_table_col(const struct kb_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

/* Split line in place at TABs into out[]; returns the number of fields (may exceed max). */
static size_t split_tabs(char *line, char **out, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *tab = strchr(p, '\t');

		if (n < max)
			out[n] = p;
		n++;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

/* "# as-of: YYYY-MM-DD": the date must look like one. */
static int parse_as_of(const char *line, struct kb_table *t, int lineno, struct err *e)
{
	const char *p = line + 1;
	size_t n;

	while (*p == ' ')
		p++;
	if (strncmp(p, "as-of:", 6))
		return 0;
	p += 6;
	while (*p == ' ')
		p++;
	n = strlen(p);
	while (n && (p[n - 1] == ' '))
		n--;
	if (n != 10 || !isdigit((unsigned char)p[0]) || p[4] != '-' || p[7] != '-')
		return err_set(e, "%s:%d: the as-of date must be YYYY-MM-DD", t->name, lineno);
	for (size_t i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)p[i]))
			return err_set(e, "%s:%d: the as-of date must be YYYY-MM-DD", t->name, lineno);
	if (t->as_of)
		return err_set(e, "%s:%d: a second as-of line", t->name, lineno);
	t->as_of = xstrndup(p, n);
	return 0;
}

static int parse_header(struct kb_table *t, char *line, int lineno, struct err *e)
{
	size_t n = split_tabs(line, t->cols, KB_TABLE_MAX_COLS);

	if (n > KB_TABLE_MAX_COLS)
		return err_set(e, "%s:%d: more than %d columns in the header", t->name, lineno,
			       KB_TABLE_MAX_COLS);
	for (size_t i = 0; i < n; i++) {
		if (!*t->cols[i])
			return err_set(e, "%s:%d: header column %zu is empty", t->name, lineno, i + 1);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->cols[k], t->cols[i]))
				return err_set(e, "%s:%d: header column '%s' appears twice", t->name,
					       lineno, t->cols[i]);
	}
	t->ncols = n;
	return 0;
}

static int parse_row(struct kb_table *t, char *line, int lineno, size_t *cells_cap,
		     struct err *e)
{
	char *tmp[KB_TABLE_MAX_COLS];
	size_t n = split_tabs(line, tmp, KB_TABLE_MAX_COLS);

	if (n != t->ncols)
		return err_set(e, "%s:%d: %zu fields, but the header has %zu (fields are separated by one TAB)",
			       t->name, lineno, n, t->ncols);
	for (size_t i = 0; i < n; i++)
		if (!*tmp[i])
			return err_set(e, "%s:%d: field '%s' is empty (write '-' for unknown)",
				       t->name, lineno, t->cols[i]);
	if (t->nrows >= KB_TABLE_MAX_ROWS)
		return err_set(e, "%s:%d: more than %d rows", t->name, lineno, KB_TABLE_MAX_ROWS);
	XGROW(t->rows, t->nrows, t->cap);
	XGROW(t->cells, (t->nrows + 1) * t->ncols, *cells_cap);
	memcpy(t->cells + t->nrows * t->ncols, tmp, n * sizeof(*tmp));
	t->rows[t->nrows].line = lineno;
	t->nrows++;
	return 0;
}

int kb_table_parse(const char *name, const char *origin, const char *data, size_t len,
		   struct kb_table *t, struct err *e)
{
	size_t cells_cap = 0;
	int lineno = 0;
	char *p;

	table_zero(t);
	t->name = xstrdup(name);
	t->origin = xstrdup(origin);
	if (memchr(data, '\0', len)) {
		err_set(e, "%s: contains a NUL byte: not a text table", name);
		goto fail;
	}
	t->text = xstrndup(data, len);
	p = t->text;
	while (*p) {
		char *nl = strchr(p, '\n'), *line = p;
		size_t n;

		lineno++;
		if (nl) {
			*nl = '\0';
			p = nl + 1;
		} else {
			p += strlen(p);
		}
		n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (line[0] == '#') {
			if (parse_as_of(line, t, lineno, e) < 0)
				goto fail;
			continue;
		}
		if (strspn(line, " \t") == n)
			continue;
		if (!t->ncols) {
			if (parse_header(t, line, lineno, e) < 0)
				goto fail;
		} else if (parse_row(t, line, lineno, &cells_cap, e) < 0) {
			goto fail;
		}
	}
	if (!t->ncols) {
		err_set(e, "%s: no header line (the first line that is not a comment)", name);
		goto fail;
	}
	for (size_t i = 0; i < t->nrows; i++)
		t->rows[i].cell = t->cells + i * t->ncols;
	return 0;
fail:
	kb_table_release(t);
	return -1;
}
