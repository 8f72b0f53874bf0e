/*
 * health_slurm.h - what `health --slurm` asks of Slurm, and asking it.
 *
 * The rules (LBNL NHC's, which sites know):
 *   - unhealthy: drain the node with Reason="gpudoctor: <cause> <gpu> ...";
 *     a node already drained or down for a reason someone else wrote is left
 *     alone, reason and all; a node drained by gpudoctor for an older cause
 *     gets the new reason;
 *   - with --reboot, when the cause needs a reboot (health_policy.c):
 *     `scontrol reboot ASAP nextstate=RESUME reason=... NODE` instead, once:
 *     a node already waiting for its reboot is left alone, and a cause that
 *     a reboot did not clear (reboot_tried, health_reboot.h) drains;
 *   - healthy: resume the node only when its drain reason is gpudoctor's;
 *   - unknown: touch nothing;
 *   - slurmd not registered yet (slurmd runs the health check once before
 *     it registers; the controller then shows the node UNKNOWN or FUTURE)
 *     or the node not known: touch nothing.
 * scontrol runs as a child with a deadline (core/child.h), argv only, no
 * shell.  A bare node name follows "--": scontrol parses its options with
 * GNU getopt_long, which permutes, so a name like "-Mx" anywhere on the
 * line would be taken for an option (src/scontrol/scontrol.c, SchedMD/slurm);
 * the caller also refuses names that are not Slurm host names.
 *
 *	struct slurm_node n;
 *	slurm_node_parse(out, len, &n);			(scontrol -o show node NAME)
 *	slurm_plan(&n, &h, allow_reboot, reboot_tried, &plan);
 *	slurm_plan_argv(&plan, scontrol, node, &h, argv, bufs);
 */
#ifndef GD_HEALTH_SLURM_H
#define GD_HEALTH_SLURM_H

#include <stddef.h>

#include "health/health.h"

#define SLURM_REASON_PREFIX "gpudoctor:"

struct slurm_node {
	int found;		/* a NodeName= record was parsed */
	char state[128];	/* State= value, "IDLE+DRAIN" */
	char reason[256];	/* Reason= value without the "[user@time]" tail */
	int drain;		/* DRAIN, DRAINING or DRAINED */
	int down;		/* DOWN or FAIL */
	int unregistered;	/* UNKNOWN or FUTURE: slurmd never registered */
	int reboot_pending;	/* REBOOT_REQUESTED, REBOOT_ISSUED */
};

enum slurm_step {
	SLURM_NOTHING,		/* nothing to do */
	SLURM_SKIP,		/* not registered / not found: not our call */
	SLURM_DRAIN,
	SLURM_REBOOT,
	SLURM_RESUME,
};

struct slurm_plan {
	enum slurm_step step;
	char why[160];		/* one line, for the JSON output and logs */
};

/* Parse `scontrol -o show node NAME` output (first record). */
void slurm_node_parse(const char *text, size_t len, struct slurm_node *n);
int slurm_reason_is_ours(const char *reason);
void slurm_plan(const struct slurm_node *n, const struct health *h, int allow_reboot,
		int reboot_tried, struct slurm_plan *p);
const char *slurm_step_name(enum slurm_step s);

/*
 * Fill argv (at least 8 slots, NULL-terminated) for the plan's scontrol
 * call; strings that need storage are written to the bufs (4 of 320 bytes).
 * Returns 0, or -1 when the step runs nothing.
 */
int slurm_plan_argv(const struct slurm_plan *p, const char *scontrol, const char *node,
		    const struct health *h, const char **argv, char bufs[4][320]);

#endif
