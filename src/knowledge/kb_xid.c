/* kb_xid.c - lookups in the XID catalogue; see kb_xid.h. */
#include "knowledge/kb_internal.h"
#include "knowledge/kb_xid.h"

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
