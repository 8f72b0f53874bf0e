/* causes.c - the cause catalogue as a table; the rows are in causes.def. */
#include "knowledge/causes.h"

#include <string.h>

static const struct cause causes[] = {
#define CAUSE(name, id_, layer_, sev, title_, why_, verify_, fix_, sources_) \
	{ .cause = CAUSE_##name, .id = id_, .layer = layer_, .severity = sev, .title = title_, \
	  .why = why_, .verify = verify_, .fix = fix_, .sources = sources_ },
#include "knowledge/causes.def"
#undef CAUSE
};

_Static_assert(sizeof(causes) / sizeof(causes[0]) == CAUSE_COUNT - 1,
	       "one table row per enum value");

struct cause_policy {
	enum cause_action action;
	unsigned flags;
};

/* Indexed by enum cause_id; rows absent from cause_policy.def stay zero.  A
 * NAME that is not a cause does not compile, and one given twice is an error
 * under -Wextra (-Woverride-init, clang's -Winitializer-overrides). */
static const struct cause_policy policies[CAUSE_COUNT] = {
#define POLICY(name, action_, flags_) \
	[CAUSE_##name] = { .action = action_, .flags = (flags_) },
#include "knowledge/cause_policy.def"
#undef POLICY
};

enum cause_action cause_action(enum cause_id c)
{
	return c > CAUSE_NONE && c < CAUSE_COUNT ? policies[c].action : CAUSE_ACT_NONE;
}

unsigned cause_flags(enum cause_id c)
{
	return c > CAUSE_NONE && c < CAUSE_COUNT ? policies[c].flags : 0;
}

const char *cause_action_name(enum cause_action a)
{
	return a == CAUSE_ACT_REBOOT ? "reboot" : a == CAUSE_ACT_DRAIN ? "drain" : "none";
}

const struct cause *cause_get(enum cause_id c)
{
	if (c <= CAUSE_NONE || c >= CAUSE_COUNT)
		return NULL;
	return &causes[c - 1];
}

const char *cause_id_str(enum cause_id c)
{
	const struct cause *e = cause_get(c);

	return e ? e->id : NULL;
}

enum cause_id cause_from_id(const char *id)
{
	if (!id)
		return CAUSE_NONE;
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!strcmp(causes[i].id, id))
			return causes[i].cause;
	return CAUSE_NONE;
}

const char *cause_fix(enum cause_id c)
{
	const struct cause *e = cause_get(c);

	return e ? e->fix : "";
}

const struct cause *cause_all(size_t *n)
{
	*n = sizeof(causes) / sizeof(causes[0]);
	return causes;
}
