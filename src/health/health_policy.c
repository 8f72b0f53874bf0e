/*
 * health_policy.c - which problems a scheduler should answer with a reboot.
 *
 * Draining is always safe; a reboot is only worth asking for when nothing
 * short of it (or a GPU reset, which cannot happen under running jobs)
 * clears the cause, and it is only done when the operator opts in
 * (`health --slurm --reboot`).  Everything else drains and waits for a
 * person.  Which causes those are is data: the ACTION column of
 * knowledge/cause_policy.def, and for an XID the action NVIDIA's catalogue
 * gives it (report/report.h, finding_action()).
 */
#include "health/health.h"

#include <string.h>

int health_item_needs_reboot(const struct health_item *it)
{
	struct finding f;

	if (!it)
		return 0;
	memset(&f, 0, sizeof(f));
	f.cause = it->cause;
	f.xid = it->xid;
	f.xid_action = it->xid_action;
	return finding_action(&f) == CAUSE_ACT_REBOOT;
}
