/*
 * health.h - the verdict for schedulers: one cause, one line, one exit status.
 *
 * `gpudoctor health` answers "may this node take GPU jobs?" for Slurm's
 * HealthCheckProgram and node-problem-detector's custom plugins.  Its
 * problems (struct health_item) come from two places:
 *   - the node's own layers of `check` (hardware, kernel, devices, driver,
 *     CUDA driver API), run in a child with a hard deadline; the libraries
 *     and frameworks layers are left out on purpose: they belong to a user's
 *     environment, and one broken venv must not drain a node;
 *   - the `watch` daemon's state file (health_state.c), so that a fatal XID
 *     seen between two health checks still counts.
 * health_verdict() orders them and makes the one line; the exit status is
 * node-problem-detector's: 0 healthy, 1 unhealthy, 2 unknown.
 *
 *	struct health h;
 *	health_init(&h);
 *	health_add_finding(&h, &finding, 0);	(a report/ finding: cause, status, scope)
 *	health_verdict(&h);
 *	puts(h.line);			(h.verdict is the exit status)
 *	health_release(&h);
 */
#ifndef GD_HEALTH_H
#define GD_HEALTH_H

#include <stddef.h>

#include "report/report.h"

/* node-problem-detector's custom-plugin protocol, also our exit status. */
enum health_verdict {
	HEALTH_OK = 0,
	HEALTH_UNHEALTHY = 1,
	HEALTH_UNKNOWN = 2,
};

/* What a scheduler should do about the worst problem. */
enum health_action {
	HEALTH_ACT_NONE,
	HEALTH_ACT_DRAIN,
	HEALTH_ACT_REBOOT,	/* drain, and a reboot is what clears it */
};

/* The longest line printed: node-problem-detector's default message limit. */
#define HEALTH_LINE_MAX 80

/* One problem: a report/ finding's verdict as health keeps it. */
struct health_item {
	enum cause_id cause;	/* from the catalogue; never CAUSE_NONE */
	char *gpu;		/* GPU index, a PCI address, or "-": the line's word */
	enum status status;	/* STATUS_WARN or STATUS_FAIL, as the policy decided */
	char *reason;		/* one line, not yet escaped */
	int from_watch;		/* taken from the watch daemon's state file */
	int xid;		/* the XID it reports, 0 none */
	enum kb_xid_action xid_action;	/* NVIDIA's action for it */
};

struct health {
	struct health_item *items;
	size_t n, cap;
	/* Why the verdict may be unknown: the layer child did not finish. */
	char *unknown_reason;	/* NULL when the layers answered */
	/* Filled by health_verdict(). */
	enum health_verdict verdict;
	enum health_action action;
	const struct health_item *worst;	/* NULL when healthy */
	size_t nfail, nwarn;
	char line[HEALTH_LINE_MAX + 1];
};

void health_init(struct health *h);
void health_release(struct health *h);

/* A finding of check's layers or of watch's state (status warn or fail;
 * others are ignored): its GPU word is the index, else the PCI address. */
void health_add_finding(struct health *h, const struct finding *f, int from_watch);
/* The item's cause id, "unknown-cause" for none. */
const char *health_cause(const struct health_item *it);
void health_set_unknown(struct health *h, const char *reason);

/* Decide verdict, action, worst and line from the items. */
void health_verdict(struct health *h);

/*
 * Copy s into out (size outsz) with only printable ASCII: control bytes,
 * DEL and non-ASCII become '?', runs of blanks one space, cut at outsz-1.
 * The line goes to terminals, Slurm reasons and Kubernetes conditions alike.
 * This is the health line's own format, not terminal escaping (that is
 * core/termesc.h): a drain reason must stay one short line of plain ASCII,
 * which core/termesc's "\x1b" escapes (up to four bytes for one) and kept
 * UTF-8 would not be.
 */
void health_clean(char *out, size_t outsz, const char *s);

/*
 * The reboot policy: problems that only a reboot (or a GPU reset, which a
 * scheduler cannot do while jobs run) clears: the cause's action in
 * knowledge/cause_policy.def, or its XID's (report/report.h, finding_action()).
 */
int health_item_needs_reboot(const struct health_item *it);

/* The GPU a check finding is about, from its id ("driver.gpu.3.ecc" -> "3",
 * "hardware.driver.0000:17:00.0" -> "0000:17:00.0"); "-" when none.  */
void health_gpu_of_finding(const char *finding_id, char *out, size_t outsz);

#endif
