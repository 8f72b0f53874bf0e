/* noise.c - matching framework stderr lines against data/noise.tsv. */
#include "knowledge/noise.h"

#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb_table.h"

#include <stdlib.h>
#include <string.h>

extern const char gd_noise_tsv[];

static struct noise_row *noise_rows;
static size_t noise_n;
static int noise_loaded;
static struct kb_table noise_table;

static const char *noise_cell(const struct kb_row *r, int col)
{
	const char *s = col >= 0 ? r->cell[col] : NULL;

	return s && strcmp(s, "-") != 0 ? s : NULL;
}

static void noise_load(void)
{
	int c[6];
	static const char *const cols[6] = { "framework", "pattern", "versions", "meaning", "conf", "source" };

	noise_loaded = 1;
	if (kb_table_parse("noise.tsv", "embedded", gd_noise_tsv, strlen(gd_noise_tsv), &noise_table,
			   NULL) < 0)
		return;
	for (int i = 0; i < 6; i++)
		if ((c[i] = kb_table_col(&noise_table, cols[i])) < 0)
			return;
	noise_rows = xcalloc(noise_table.nrows + 1, sizeof(*noise_rows));
	for (size_t i = 0; i < noise_table.nrows; i++) {
		const struct kb_row *r = &noise_table.rows[i];
		struct noise_row *n = &noise_rows[noise_n];

		n->framework = r->cell[c[0]];
		n->pattern = r->cell[c[1]];
		n->versions = r->cell[c[2]];
		n->meaning = r->cell[c[3]];
		n->conf = r->cell[c[4]];
		n->source = noise_cell(r, c[5]);
		if (n->pattern && *n->pattern)
			noise_n++;
	}
}

/* "2.14-2.17" contains version? Major.minor comparison; "-" or open ends match. */
static int noise_version_in(const char *range, const char *version)
{
	const char *dash = strchr(range, '-');
	char lo[32] = "";

	if (!version || !strcmp(range, "-"))
		return 1;
	if (!dash)
		return version_cmp_str(version, range) == 0;
	if ((size_t)(dash - range) < sizeof(lo)) {
		memcpy(lo, range, (size_t)(dash - range));
		lo[dash - range] = 0;
	}
	if (lo[0] && version_cmp_str(version, lo) < 0)
		return 0;
	if (dash[1]) {
		/* "2.17" includes every 2.17.x */
		struct version v, hi;

		if (version_parse(version, &v) < 0 || version_parse(dash + 1, &hi) < 0)
			return 1;
		for (int i = 0; i < hi.n; i++) {
			long a = i < v.n ? v.part[i] : 0;

			if (a != hi.part[i])
				return a < hi.part[i];
		}
	}
	return 1;
}

const struct noise_row *noise_match(const char *framework, const char *version, const char *line)
{
	if (!noise_loaded)
		noise_load();
	for (size_t i = 0; line && i < noise_n; i++) {
		const struct noise_row *n = &noise_rows[i];

		if (strcmp(n->framework, "*") != 0 && framework && strcmp(n->framework, framework) != 0)
			continue;
		if (!strstr(line, n->pattern))
			continue;
		if (!noise_version_in(n->versions, version))
			continue;
		return n;
	}
	return NULL;
}
