/*
 * noise.h - known harmless messages of the frameworks (data/noise.tsv).
 *
 * The table is embedded at build time (noise_data.S) in the knowledge base's
 * data-file format (knowledge/kb_table.h) and parsed on first use.
 *
 *	const struct noise_row *n = noise_match("tensorflow", "2.15.0", line);
 *	if (n) label(line, n->meaning);
 */
#ifndef GD_NOISE_H
#define GD_NOISE_H

struct noise_row {
	const char *framework;	/* "tensorflow", or "*" for any */
	const char *pattern;	/* substring */
	const char *versions;	/* "2.14-2.17", "2.12-", "-" */
	const char *meaning;
	const char *conf;
	const char *source;	/* URL or NULL */
};

/* The row whose pattern occurs in line, for this framework and version (NULL version: any). */
const struct noise_row *noise_match(const char *framework, const char *version, const char *line);

#endif
