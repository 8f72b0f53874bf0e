/* health_slurm.c - Slurm's node state and what to ask of it; see health_slurm.h. */
#include "health/health_slurm.h"

#include <stdio.h>
#include <string.h>

/* Value of " KEY=" in a one-line record: up to the next " Word=" or the end. */
static void record_value(const char *rec, size_t len, const char *key, char *out,
			 size_t outsz, int to_end)
{
	size_t kl = strlen(key);
	const char *p = NULL, *end = rec + len, *v, *stop;

	out[0] = '\0';
	for (const char *s = rec; s + kl < end; s++)
		if ((s == rec || s[-1] == ' ') && !memcmp(s, key, kl) && s[kl] == '=') {
			p = s;
			break;
		}
	if (!p)
		return;
	v = p + kl + 1;
	stop = v;
	while (stop < end && *stop != '\n' && (to_end || *stop != ' '))
		stop++;
	if ((size_t)(stop - v) >= outsz)
		stop = v + outsz - 1;
	memcpy(out, v, (size_t)(stop - v));
	out[stop - v] = '\0';
}

/* Reason=... runs to the end of the record, except scontrol's fields that may
 * follow it in newer releases; cut its "[user@time]" tail. */
static void trim_reason(char *r)
{
	static const char *const after[] = { " Comment=", " Extra=", " ResumeAfterTime=",
					     " InstanceId=", " InstanceType=" };
	char *b;
	size_t n;

	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if ((b = strstr(r, after[i])))
			*b = '\0';
	b = strrchr(r, '[');
	if (b && strchr(b, '@') && strchr(b, ']'))
		*b = '\0';
	n = strlen(r);
	while (n && (r[n - 1] == ' ' || r[n - 1] == '\r'))
		r[--n] = '\0';
	if (!strcmp(r, "(null)") || !strcmp(r, "none"))
		r[0] = '\0';
}

static int has_flag(const char *state, const char *flag)
{
	size_t fl = strlen(flag);

	for (const char *s = state; (s = strstr(s, flag)); s += fl) {
		int start = s == state || s[-1] == '+';
		int stop = s[fl] == '\0' || s[fl] == '+' || s[fl] == '*';

		if (start && stop)
			return 1;
	}
	return 0;
}

void slurm_node_parse(const char *text, size_t len, struct slurm_node *n)
{
	const char *rec = text, *nl;
	size_t rl;

	memset(n, 0, sizeof(*n));
	/* The first record only: one line with -o. */
	while (rec < text + len && (*rec == '\n' || *rec == ' '))
		rec++;
	nl = memchr(rec, '\n', (size_t)(text + len - rec));
	rl = (size_t)((nl ? nl : text + len) - rec);
	if (rl < 9 || memcmp(rec, "NodeName=", 9))
		return;
	n->found = 1;
	record_value(rec, rl, "State", n->state, sizeof(n->state), 0);
	record_value(rec, rl, "Reason", n->reason, sizeof(n->reason), 1);
	trim_reason(n->reason);
	n->drain = has_flag(n->state, "DRAIN") || has_flag(n->state, "DRAINING") ||
		   has_flag(n->state, "DRAINED");
	n->down = has_flag(n->state, "DOWN") || has_flag(n->state, "FAIL");
	/*
	 * Before slurmd's first registration the controller shows the node
	 * UNKNOWN (or FUTURE); NOT_RESPONDING alone only means a missed ping
	 * of a node it knows, and a sick node must still be drained then.
	 */
	n->unregistered = !n->state[0] || has_flag(n->state, "UNKNOWN") ||
			  has_flag(n->state, "FUTURE");
	n->reboot_pending = has_flag(n->state, "REBOOT_REQUESTED") ||
			    has_flag(n->state, "REBOOT_ISSUED");
}

int slurm_reason_is_ours(const char *reason)
{
	return reason && !strncmp(reason, SLURM_REASON_PREFIX, strlen(SLURM_REASON_PREFIX));
}

const char *slurm_step_name(enum slurm_step s)
{
	switch (s) {
	case SLURM_NOTHING: return "nothing";
	case SLURM_SKIP: return "skip";
	case SLURM_DRAIN: return "drain";
	case SLURM_REBOOT: return "reboot";
	case SLURM_RESUME: return "resume";
	}
	return "?";
}

/*
 * Is the reason Slurm shows the line health would set?  The shown reason
 * went through trim_reason(), so the line is compared after the same, with
 * the "[user@time]" tail scontrol adds: a title holding " Comment=" or
 * "[x@y]" (a finding may quote either) never compared equal, and the node
 * was drained again every run, resetting the time Slurm shows it drained
 * since.
 */
static int same_reason(const char *shown, const char *line)
{
	char mine[256];		/* struct slurm_node's reason */

	snprintf(mine, sizeof(mine), "%s [root@0]", line);
	trim_reason(mine);
	return !strcmp(shown, mine);
}

#define WHY(...) snprintf(p->why, sizeof(p->why), __VA_ARGS__)

void slurm_plan(const struct slurm_node *n, const struct health *h, int allow_reboot,
		int reboot_tried, struct slurm_plan *p)
{
	int ours = slurm_reason_is_ours(n->reason);

	p->step = SLURM_NOTHING;
	p->why[0] = '\0';
	if (!n->found) {
		p->step = SLURM_SKIP;
		WHY("the node is not known to slurmctld");
		return;
	}
	if (n->unregistered) {
		p->step = SLURM_SKIP;
		WHY("slurmd has not registered yet (state %.100s)", n->state);
		return;
	}
	if (h->verdict == HEALTH_UNKNOWN) {
		WHY("the verdict is unknown: the node is left as it is");
		return;
	}
	if (h->verdict == HEALTH_OK) {
		if (n->drain && ours) {
			p->step = SLURM_RESUME;
			WHY("healthy again: resuming a node gpudoctor drained");
		} else if (n->drain || n->down) {
			WHY("drained or down for a reason gpudoctor did not set: kept");
		} else {
			WHY("healthy");
		}
		return;
	}
	/* Unhealthy. */
	if ((n->drain || n->down) && !ours && n->reason[0]) {
		WHY("already drained or down for another reason: kept");
		return;
	}
	if (n->down && !n->drain) {
		WHY("the node is down: slurmctld decides when it returns");
		return;
	}
	if (n->reboot_pending) {
		WHY("a reboot is already pending");
		return;
	}
	if (allow_reboot && h->action == HEALTH_ACT_REBOOT && !reboot_tried) {
		p->step = SLURM_REBOOT;
		WHY("the cause needs a reboot: reboot as soon as the node is idle");
		return;
	}
	if (n->drain && ours && same_reason(n->reason, h->line)) {
		WHY("already drained by gpudoctor for this cause");
		return;
	}
	p->step = SLURM_DRAIN;
	if (allow_reboot && h->action == HEALTH_ACT_REBOOT && reboot_tried)
		WHY("a reboot did not clear the cause: drain for a person to look at");
	else
		WHY(n->drain ? "drained by gpudoctor for an older cause: new reason" : "unhealthy: drain");
}

int slurm_plan_argv(const struct slurm_plan *p, const char *scontrol, const char *node,
		    const struct health *h, const char **argv, char bufs[4][320])
{
	int i = 0;

	argv[i++] = scontrol;
	switch (p->step) {
	case SLURM_DRAIN:
		snprintf(bufs[0], 320, "NodeName=%s", node);
		snprintf(bufs[1], 320, "Reason=%s", h->line);
		argv[i++] = "update";
		argv[i++] = bufs[0];
		argv[i++] = "State=DRAIN";
		argv[i++] = bufs[1];
		break;
	case SLURM_RESUME:
		snprintf(bufs[0], 320, "NodeName=%s", node);
		argv[i++] = "update";
		argv[i++] = bufs[0];
		argv[i++] = "State=RESUME";
		break;
	case SLURM_REBOOT:
		snprintf(bufs[1], 320, "reason=%s", h->line);
		argv[i++] = "reboot";
		argv[i++] = "ASAP";
		argv[i++] = "nextstate=RESUME";
		argv[i++] = bufs[1];
		argv[i++] = "--";	/* the node is a value, never an option */
		argv[i++] = node;
		break;
	default:
		return -1;
	}
	argv[i] = NULL;
	return 0;
}
