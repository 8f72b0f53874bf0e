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

/*
 * What a scheduler does about a cause, and how daemons treat it: the columns
 * of knowledge/cause_policy.def (kept apart from causes.def).  A cause not
 * listed there has CAUSE_ACT_NONE and no flags.
 */
enum cause_action {
	CAUSE_ACT_NONE,		/* the status decides: a failure drains */
	CAUSE_ACT_DRAIN,	/* drain the node */
	CAUSE_ACT_REBOOT,	/* drain; only a reboot (or GPU reset) clears it */
};

enum cause_flag {
	CF_ACKABLE = 1 << 0,	/* kept until `watch --ack GPU` */
	CF_PER_GPU = 1 << 1,	/* about one GPU */
	CF_STOPS_BENCH = 1 << 2,	/* no benchmark can run under it */
	CF_XID_ACTION = 1 << 3,	/* the action is the finding's XID action */
	CF_IN_USE = 1 << 4,	/* the GPU is taken by other work: health never drains for it */
};

enum cause_action cause_action(enum cause_id c);
unsigned cause_flags(enum cause_id c);
/* "none", "drain", "reboot". */
const char *cause_action_name(enum cause_action a);

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
