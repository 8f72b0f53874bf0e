/*
 * kb_table.h - the one data-file format of the knowledge base, parsed.
 *
 * A table file is UTF-8 text, one record per line, fields separated by TAB:
 *	# comment lines start with '#'; blank lines are ignored
 *	# as-of: 2026-10-01          (the date the data was last checked)
 *	col1<TAB>col2<TAB>...        (the header: the first other line)
 *	value<TAB>value<TAB>...      (rows: exactly as many fields as the header)
 * A field is never empty: "-" means unknown / not applicable.
 * Errors name the file and line ("gpus.tsv:12: ...").  The parser copies the
 * text; cells point into that copy.  Fuzzed by tests/fuzz/fuzz_kb.c.
 *
 *	struct kb_table t;
 *	if (kb_table_parse("gpus.tsv", "embedded", text, len, &t, &e) < 0) ...
 *	int c = kb_table_col(&t, "cc");  ... t.rows[i].cell[c] ...
 *	kb_table_release(&t);
 */
#ifndef GD_KB_TABLE_H
#define GD_KB_TABLE_H

#include <stddef.h>

#include "core/err.h"

#define KB_TABLE_MAX_COLS 32

struct kb_row {
	int line;		/* 1-based line in the file */
	char **cell;		/* ncols cells */
};

struct kb_table {
	char *name;		/* "gpus.tsv" */
	char *origin;		/* "embedded" or the path it was read from */
	char *as_of;		/* the "# as-of:" date, or NULL */
	char *text;		/* owned copy of the file; cells point into it */
	size_t ncols;
	char *cols[KB_TABLE_MAX_COLS];
	size_t nrows, cap;
	struct kb_row *rows;
	char **cells;		/* all cells, nrows * ncols */
};

int kb_table_parse(const char *name, const char *origin, const char *data, size_t len,
		   struct kb_table *t, struct err *e);
void kb_table_release(struct kb_table *t);
/* Index of a column by name, or -1. */
int kb_table_col(const struct kb_table *t, const char *name);

#endif
