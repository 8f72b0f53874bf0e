/*
 * kb_cells.c - one cell of a knowledge-base table, checked and converted
 * (kb_conv.h): a column found by name, integers, decimals, CUDA versions
 * ("12.4" as 12040), versions, compute capabilities, yes/no/unknown, and
 * source ids that must be in sources.tsv.  Every error names the file,
 * the line and the column.  Used by kb_rows.c.
 */
#include "knowledge/kb_internal.h"
#include "knowledge/kb_conv.h"
#include "core/buf.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *kb_cell(const struct kb_table *t, size_t row, int col)
{
	const char *s = t->rows[row].cell[col];

	return strcmp(s, "-") ? s : NULL;
}

int kb_parse_cc(const char *s, int *major, int *minor)
{
	char *end;
	long a, b;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	a = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end || a > 99 || b > 9)
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

int kb_parse_cuda(const char *s)
{
	struct version v;
	size_t n;

	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	if (!strncasecmp(s, "cu", 2) && isdigit((unsigned char)s[2])) {
		n = strspn(s + 2, "0123456789");
		if (s[2 + n] || (n != 2 && n != 3))
			return -1;
		return atoi(s + 2) / 10 * 1000 + atoi(s + 2) % 10 * 10;
	}
	if (version_parse(s, &v) < 0 || v.part[0] > 99999)
		return -1;
	if (v.n == 1 && v.part[0] >= 1000)
		return (int)v.part[0];
	if (v.part[0] > 99 || v.part[1] > 99)
		return -1;
	return (int)(v.part[0] * 1000 + v.part[1] * 10);
}

int kbc_need_col(struct conv *c, const char *name, int *col)
{
	*col = kb_table_col(c->t, name);
	if (*col < 0)
		return err_set(c->e, "%s: the header has no column '%s'", c->t->name, name);
	return 0;
}

int kbc_bad(struct conv *c, int col, const char *what)
{
	return err_set(c->e, "%s:%d: column '%s': '%s' is not %s", c->t->name,
		       c->t->rows[c->row].line, c->t->cols[col], c->t->rows[c->row].cell[col], what);
}

const char *kbc_str(struct conv *c, int col)
{
	return kb_cell(c->t, c->row, col);
}

int kbc_get_int(struct conv *c, int col, int unknown_ok, int *out)
{
	const char *s = kbc_str(c, col);
	char *end;
	long v;

	if (!s) {
		if (!unknown_ok)
			return kbc_bad(c, col, "a number (it may not be unknown)");
		*out = -1;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < 0 || v > 1000000)
		return kbc_bad(c, col, "a number");
	*out = (int)v;
	return 0;
}

int kbc_get_double(struct conv *c, int col, double *out)
{
	const char *s = kbc_str(c, col);
	char *end;

	*out = -1.0;
	if (!s) {
		*out = __builtin_nan("");
		return 0;
	}
	*out = strtod(s, &end);
	if (*end || !(*out >= 0 && *out < 1e7))
		return kbc_bad(c, col, "a number");
	return 0;
}

int kbc_get_cuda(struct conv *c, int col, int unknown_ok, int *out)
{
	const char *s = kbc_str(c, col);

	*out = -1;
	if (!s)
		return unknown_ok ? 0 : kbc_bad(c, col, "a CUDA version (it may not be unknown)");
	if ((*out = kb_parse_cuda(s)) < 0)
		return kbc_bad(c, col, "a CUDA version like 12.4");
	return 0;
}

int kbc_get_version(struct conv *c, int col, int unknown_ok, const char **out)
{
	struct version v;

	*out = kbc_str(c, col);
	if (!*out)
		return unknown_ok ? 0 : kbc_bad(c, col, "a version (it may not be unknown)");
	if (version_parse(*out, &v) < 0)
		return kbc_bad(c, col, "a dotted version number");
	return 0;
}

int kbc_get_cc(struct conv *c, int col, int *major, int *minor)
{
	const char *s = kbc_str(c, col);

	*major = *minor = -1;
	if (!s)
		return 0;
	if (kb_parse_cc(s, major, minor) < 0)
		return kbc_bad(c, col, "a compute capability like 8.9");
	return 0;
}

int kbc_get_tri(struct conv *c, int col, int *out)
{
	const char *s = kbc_str(c, col);

	if (!s)
		*out = -1;
	else if (!strcmp(s, "1"))
		*out = 1;
	else if (!strcmp(s, "0"))
		*out = 0;
	else
		return kbc_bad(c, col, "1, 0 or -");
	return 0;
}

/* Every id of "a;b;c" must be in sources.tsv. */
int kbc_get_source(struct conv *c, int col, const char **out)
{
	const char *s = c->t->rows[c->row].cell[col], *p = s;
	const struct kb_table *src = &c->kb->tab[KB_SOURCES];

	*out = s;
	while (*p) {
		size_t n = strcspn(p, ";"), i;

		for (i = 0; i < src->nrows; i++)
			if (strlen(src->rows[i].cell[0]) == n && !strncmp(src->rows[i].cell[0], p, n))
				break;
		if (i == src->nrows || n == 0)
			return err_set(c->e, "%s:%d: source id '%.*s' is not in sources.tsv",
				       c->t->name, c->t->rows[c->row].line, (int)n, p);
		p += n;
		if (*p == ';')
			p++;
	}
	return 0;
}
