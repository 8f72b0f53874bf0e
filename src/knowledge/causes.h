/*
 * causes.h - the catalogue of cause ids, a public contract.
 *
 * Every finding that is not ok names one cause.  The ids, their layers,
 * default severities and texts are defined once, in knowledge/causes.def;
 * this header turns that file into an enum, and causes.c into a table.
 * Scripts, `explain`, watch's metrics and fleet drain reasons key on the id
 * strings, so an id never changes meaning and is never removed.  A finding
 * carries a fix made for the machine at hand; the catalogue's fix is the
 * fallback and the text `explain CAUSE-ID` prints.
 *
 *	const struct cause *c = cause_get(CAUSE_NOUVEAU_LOADED);
 *	printf("%s: %s\n", c->id, c->title);
 *	enum cause_id id = cause_from_id("gpu-lost");	// CAUSE_NONE if unknown
 */
#ifndef GD_CAUSES_H
#define GD_CAUSES_H

#include <stddef.h>

#include "knowledge/layers.h"
#include "knowledge/severity.h"

enum cause_id {
	CAUSE_NONE = 0,		/* an ok or skipped finding */
#define CAUSE(name, id, layer, sev, title, why, verify, fix, sources) CAUSE_##name,
#include "knowledge/causes.def"
#undef CAUSE
	CAUSE_COUNT
};

struct cause {
	enum cause_id cause;
	const char *id;		/* "nouveau-loaded" */
	enum layer_id layer;
	enum severity severity;
	const char *title;
	const char *why;
	const char *verify;	/* a command that shows it; "" if none yet */
	const char *fix;
	const char *sources;	/* "" if none yet */
};

/* The entry of a cause; NULL for CAUSE_NONE or an out-of-range value. */
const struct cause *cause_get(enum cause_id c);
/* The id string, or NULL for CAUSE_NONE. */
const char *cause_id_str(enum cause_id c);
/* The cause with this id string; CAUSE_NONE when there is none. */
enum cause_id cause_from_id(const char *id);
/* The catalogue's generic fix; "" for CAUSE_NONE. */
const char *cause_fix(enum cause_id c);
/* All entries, in catalogue order (CAUSE_NONE excluded). */
const struct cause *cause_all(size_t *n);

#endif
