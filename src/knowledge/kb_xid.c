/* kb_xid.c - lookups in the XID catalogue; see kb_xid.h. */
#include "knowledge/kb_internal.h"
#include "knowledge/kb_xid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[KB_XID_NACTIONS] = {
	"none", "restart-app", "reset-gpu", "reboot", "drain", "inspect-hw",
};

const char *kb_xid_action_name(enum kb_xid_action a)
{
	return (unsigned)a < KB_XID_NACTIONS ? action_names[a] : "?";
}

int kb_xid_action_parse(const char *s, enum kb_xid_action *out)
{
	for (int i = 0; s && i < KB_XID_NACTIONS; i++)
		if (!strcmp(s, action_names[i])) {
			*out = (enum kb_xid_action)i;
			return 0;
		}
	return -1;
}

int kb_xid_count(const struct kb *kb)
{
	return kb ? (int)kb->nxids : 0;
}

const struct kb_xid *kb_xid_at(const struct kb *kb, int i)
{
	return kb && i >= 0 && (size_t)i < kb->nxids ? &kb->xids[i] : NULL;
}

int kb_xid_find(const struct kb *kb, int xid, struct kb_xid *out)
{
	for (size_t i = 0; kb && i < kb->nxids; i++)
		if (kb->xids[i].xid == xid) {
			*out = kb->xids[i];
			return 0;
		}
	return -1;
}

/* XID 154's line: "GPU recovery action changed from 0x0 (None) to 0x2 (Node
 * Reboot Required)".  The number after the last "to 0x" is the action. */
static int xid154_action(const char *msg, enum kb_xid_action *a)
{
	static const enum kb_xid_action by_code[] = {
		KB_XID_NONE, KB_XID_RESET_GPU, KB_XID_REBOOT, KB_XID_DRAIN, KB_XID_DRAIN,
	};
	const char *p = NULL;
	char *end;
	unsigned long v;

	for (const char *q = msg; q && (q = strstr(q, "to 0x")); q++)
		p = q;
	if (!p)
		return -1;
	v = strtoul(p + 5, &end, 16);
	if (end == p + 5 || v >= sizeof(by_code) / sizeof(by_code[0]))
		return -1;
	*a = by_code[v];
	return 0;
}

void kb_xid_judge(const struct kb_xid *x, const char *message, struct kb_xid_judgement *out)
{
	out->action = x->action;
	out->by_nvidia = x->nvidia_immediate != NULL;
	out->from_message = 0;
	out->note = NULL;
	if (x->xid == 154 && xid154_action(message, &out->action) == 0) {
		out->by_nvidia = 1;
		out->from_message = 1;
	}
	/* XID 45: the catalogue's investigatory bucket is "Solo: RESTART_FM Not
	 * Solo: IGNORE (follow other Xid)". */
	if (x->nvidia_investigatory && strstr(x->nvidia_investigatory, "RESTART_FM"))
		out->note = "alone (no other XID with it), NVIDIA's catalogue says to restart "
			    "Fabric Manager; with other XIDs, follow those";
}

char *kb_xid_action_text(const struct kb_xid *x, const char *message, char *buf, unsigned long size)
{
	struct kb_xid_judgement j;
	const char *in = NULL;
	int n = 0;

	kb_xid_judge(x, message, &j);
	if (j.from_message) {
		in = strrchr(message, '(');
		if (in && strchr(in, ')'))
			n = (int)(strchr(in, ')') - in - 1), in++;
		else
			in = NULL;
	}
	if (n > 60)
		n = 60;
	if (!j.by_nvidia)
		snprintf(buf, size, "no action in NVIDIA's catalogue; gpudoctor's judgement: %s%s%s",
			 kb_xid_action_name(j.action), j.note ? "; " : "", j.note ? j.note : "");
	else if (in)
		snprintf(buf, size, "NVIDIA's action: %s (in the message: %.*s)%s%s",
			 kb_xid_action_name(j.action), n, in, j.note ? "; " : "", j.note ? j.note : "");
	else
		snprintf(buf, size, "NVIDIA's action: %s%s%s", kb_xid_action_name(j.action),
			 j.note ? "; " : "", j.note ? j.note : "");
	return buf;
}
