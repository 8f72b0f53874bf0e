/* policy.c - XID policies; see policy.h. */
#include "watch/policy.h"
#include "knowledge/kb_xid.h"
#include "report/report.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int policy_builtin(const char *name, struct wpolicy *p)
{
	memset(p, 0, sizeof(*p));
	p->unknown = KB_XID_INSPECT_HW;
	if (!strcmp(name, "nvidia")) {
		snprintf(p->name, sizeof(p->name), "nvidia");
		return 0;
	}
	if (!strcmp(name, "conservative")) {
		snprintf(p->name, sizeof(p->name), "conservative");
		p->conservative = 1;
		return 0;
	}
	return -1;
}

/* The next word of [*s, end) into w; 0 when there is none. */
static size_t word(const char **s, const char *end, char *w, size_t size)
{
	const char *p = *s;
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p != ' ' && *p != '\t') {
		if (n + 1 < size)
			w[n] = *p;
		n++;
		p++;
	}
	*s = p;
	if (n >= size)
		return (size_t)-1;
	w[n] = '\0';
	return n;
}

int policy_parse(const char *name, const char *text, size_t len, struct wpolicy *p,
		 struct err *e)
{
	const char *s = text, *end = text + len;
	int line = 0;

	policy_builtin("nvidia", p);
	snprintf(p->name, sizeof(p->name), "%s", name);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		char a[64], b[64], c[8];
		size_t na, nb;
		enum kb_xid_action act;

		line++;
		if (le > s && le[-1] == '\r')
			le--;
		na = word(&s, le, a, sizeof(a));
		if (na == 0 || a[0] == '#') {
			s = (nl ? nl : end) + (nl ? 1 : 0);
			continue;
		}
		nb = word(&s, le, b, sizeof(b));
		if (na == (size_t)-1 || nb == 0 || nb == (size_t)-1 || word(&s, le, c, sizeof(c)) != 0)
			return err_set(e, "%s:%d: expected two words: XID ACTION, base NAME or unknown ACTION",
				       name, line);
		if (!strcmp(a, "base")) {
			if (strcmp(b, "nvidia") && strcmp(b, "conservative"))
				return err_set(e, "%s:%d: base must be nvidia or conservative", name, line);
			p->conservative = !strcmp(b, "conservative");
		} else if (kb_xid_action_parse(b, &act) < 0) {
			return err_set(e, "%s:%d: '%s' is not an action (none, restart-app, reset-gpu, "
				       "reboot, drain, inspect-hw)", name, line, b);
		} else if (!strcmp(a, "unknown")) {
			p->unknown = act;
		} else {
			char *ne;
			long x = strtol(a, &ne, 10);

			if (*ne || !isdigit((unsigned char)a[0]) || x < 1 || x > 100000)
				return err_set(e, "%s:%d: '%s' is not an XID number", name, line, a);
			if (p->nover >= sizeof(p->over) / sizeof(p->over[0]))
				return err_set(e, "%s:%d: more than %zu XIDs", name, line,
					       sizeof(p->over) / sizeof(p->over[0]));
			p->over[p->nover].xid = (int)x;
			p->over[p->nover].a = act;
			p->nover++;
		}
		s = nl ? nl + 1 : end;
	}
	return 0;
}

enum kb_xid_action policy_action(const struct wpolicy *p, const struct kb *kb, int xid)
{
	return policy_action_for(p, kb, xid, NULL);
}

enum kb_xid_action policy_action_for(const struct wpolicy *p, const struct kb *kb, int xid,
				     const char *message)
{
	struct kb_xid x;
	struct kb_xid_judgement j;
	enum kb_xid_action a;

	/* The last line of a file for this XID wins. */
	for (size_t i = p->nover; i-- > 0;)
		if (p->over[i].xid == xid)
			return p->over[i].a;
	if (kb_xid_find(kb, xid, &x) < 0)
		return p->unknown;
	/* NVIDIA's action: the catalogue's, or the one the driver prints in
	 * the line itself (XID 154's "... to 0x2 (Node Reboot Required)") */
	kb_xid_judge(&x, message, &j);
	a = j.action;
	if (p->conservative && (a == KB_XID_NONE || a == KB_XID_RESTART_APP))
		a = (enum kb_xid_action)(a + 1);
	return a;
}

enum kb_xid_action policy_escalate(enum kb_xid_action a)
{
	switch (a) {
	case KB_XID_NONE:
		return KB_XID_NONE;
	case KB_XID_RESTART_APP:
		/* The application's own errors (XID 13, 31: any user's kernel
		   with an illegal address raises them) recur as often as users
		   run such code: escalated, any user could get a node reset or
		   rebooted by crashing once per boot.  Hardware trends behind
		   them show in NVML's ECC and remapping counters instead. */
		return KB_XID_RESTART_APP;
	default:
		return KB_XID_INSPECT_HW;
	}
}

enum status policy_severity(enum kb_xid_action a)
{
	/* The severity policy decides (report/report.h): an XID's reach is its
	   action, the class is gpu-xid-error's in the catalogue. */
	if (a == KB_XID_NONE)
		return STATUS_OK;
	return finding_status(CAUSE_GPU_XID_ERROR, finding_xid_reach(a));
}
