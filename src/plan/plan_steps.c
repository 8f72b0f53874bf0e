/*
 * plan_steps.c - the plan object (plan.h: plan_new, plan_free) and how a
 * step, its reasons, its commands and its verification and the plan's
 * notes are added (plan_parts.h).  A command is kept whole: no buffer cuts
 * a quoted word short.  Calls nothing else of plan/.
 */
#include "plan/plan.h"
#include "plan/plan_parts.h"
#include "core/shquote.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plan *plan_new(void)
{
	return xcalloc(1, sizeof(struct plan));
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
	{
		for (size_t k = 0; k < p->steps[i].ncmds; k++)
			free(p->steps[i].cmds[k]);
		free(p->steps[i].cmds);
		free(p->steps[i].verify);
	}
	free(p->venv);
	free(p->gpudoctor);
	free(p);
}

struct plan_step *pb_step(struct plan *p, const char *id, enum plan_state st, const char *layer,
			      const char *fmt, ...)
{
	static struct plan_step spare;
	struct plan_step *s;
	va_list ap;

	if (p->n >= PLAN_MAX) {
		p->overflow = 1;
		free(spare.verify);
		for (size_t k = 0; k < spare.ncmds; k++)
			free(spare.cmds[k]);
		free(spare.cmds);
		memset(&spare, 0, sizeof(spare));
		return &spare;
	}
	s = &p->steps[p->n++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->state = st;
	s->layer = layer;
	va_start(ap, fmt);
	vsnprintf(s->title, sizeof(s->title), fmt, ap);
	va_end(ap);
	if (st == PLAN_STOP)
		p->stopped = 1;
	return s;
}

void pb_why(struct plan_step *s, const char *fmt, ...)
{
	size_t n = strlen(s->why);
	va_list ap;

	if (n && n + 2 < sizeof(s->why)) {
		s->why[n++] = ' ';
		s->why[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(s->why + n, sizeof(s->why) - n, fmt, ap);
	va_end(ap);
}

/* Not cut to a fixed size: a quoted word cut short would leave its quote open. */
void pb_cmd(struct plan_step *s, const char *fmt, ...)
{
	va_list ap;

	XGROW(s->cmds, s->ncmds, s->cmds_cap);
	va_start(ap, fmt);
	s->cmds[s->ncmds++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* The step's verification, not cut either. */
void pb_verify(struct plan_step *s, const char *fmt, ...)
{
	va_list ap;

	free(s->verify);
	va_start(ap, fmt);
	s->verify = xvasprintf(fmt, ap);
	va_end(ap);
	if (!*s->verify) {
		free(s->verify);
		s->verify = NULL;
	}
}

void pb_note(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes >= sizeof(p->notes) / sizeof(p->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}
