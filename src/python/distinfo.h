/*
 * distinfo.h - installed Python distributions, read from their .dist-info
 * (or .egg-info) directories: name, version, Requires-Dist, RECORD.
 *
 * A site directory is listed once (distinfo_index_site); looking up a
 * distribution by its PEP 503 normalised name ("tensorflow-cpu",
 * "nvidia-cudnn-cu12") then costs nothing.  METADATA is read only for the
 * distributions asked about.  Names in directory names are escaped
 * ("nvidia_cudnn_cu12-9.1.0.70.dist-info"); normalisation makes them equal.
 *
 *	struct distinfo_site s;
 *	distinfo_index_site(root, "/venv/lib/python3.11/site-packages", &s, &e);
 *	const struct distinfo_dist *d = distinfo_find(&s, "tensorflow");
 *	struct distinfo_meta m = DISTINFO_META_INIT;
 *	distinfo_read_metadata(root, d, &m, &e);
 *	distinfo_meta_release(&m);
 *	distinfo_site_release(&s);
 */
#ifndef GD_DISTINFO_H
#define GD_DISTINFO_H

#include <stddef.h>

#include "core/err.h"

/* PEP 503: lower case, runs of '-', '_' and '.' become one '-'.  Caller frees. */
char *distinfo_normalize(const char *name);

struct distinfo_dist {
	char *norm;		/* normalised name */
	char *version;		/* from the directory name, or NULL */
	char *dir;		/* machine path of the .dist-info / .egg-info directory */
};

struct distinfo_site {
	char *dir;
	struct distinfo_dist *dists;
	size_t n, cap;
};

int distinfo_index_site(const char *root, const char *site_dir, struct distinfo_site *s,
			struct err *e);
void distinfo_site_release(struct distinfo_site *s);
/* By any spelling of the name; NULL when not installed. */
const struct distinfo_dist *distinfo_find(const struct distinfo_site *s, const char *name);

struct distinfo_meta {
	char *name;		/* Name: */
	char *version;		/* Version: */
	char *summary;		/* Summary: */
	char **requires;	/* Requires-Dist: values, as written */
	size_t nrequires, requires_cap;
};

#define DISTINFO_META_INIT { NULL, NULL, NULL, NULL, 0, 0 }

/* Parse METADATA / PKG-INFO text (RFC 822 style headers up to the first blank line). */
int distinfo_parse_metadata(const char *text, size_t len, struct distinfo_meta *m,
			    struct err *e);
int distinfo_read_metadata(const char *root, const struct distinfo_dist *d,
			   struct distinfo_meta *m, struct err *e);
void distinfo_meta_release(struct distinfo_meta *m);

/*
 * The Requires-Dist pin of dist under an extra ("and-cuda"), e.g.
 * "nvidia-cudnn-cu12==9.3.0.75; extra == \"and-cuda\"" -> "==9.3.0.75".
 * extra NULL: requirements without a marker.  Returns a pointer into m, the
 * specifier text up to ';' (length in *len), or NULL.
 */
const char *distinfo_requirement(const struct distinfo_meta *m, const char *dist,
				 const char *extra, size_t *len);

/* RECORD: the installed paths (first CSV column, quotes understood). */
struct distinfo_record {
	char **paths;
	size_t n, cap;
};

int distinfo_parse_record(const char *text, size_t len, struct distinfo_record *r,
			  struct err *e);
void distinfo_record_release(struct distinfo_record *r);

#endif
