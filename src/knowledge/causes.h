/*
 * causes.h - the catalogue of cause ids, a public contract.
 *
 * Scripts, `explain` and monitoring key on these ids, so an id never changes
 * meaning and is never removed.  Each entry says what is wrong in one line,
 * why it breaks GPU work, and the generic fix; a finding carries a fix made
 * for the machine at hand, this one is the fallback and the text `explain`
 * prints.
 */
#ifndef GD_CAUSES_H
#define GD_CAUSES_H

#include <stddef.h>

#include "report/report.h"

struct cause {
	const char *id;
	enum layer_id layer;
	const char *title;
	const char *why;
	const char *fix;
};

const struct cause *cause_lookup(const char *id);
const struct cause *cause_all(size_t *n);

#endif
