/*
 * policy.h - which action an XID asks for, as data.
 *
 * The base is the XID catalogue of the knowledge base (knowledge/kb_xid.h).
 * Built-in policies: "nvidia" (the catalogue's actions) and "conservative"
 * (every action one step up: none -> restart-app, restart-app -> reset-gpu;
 * unknown XIDs -> inspect-hw in both).  A policy file overrides per XID:
 *
 *	# comments and blank lines are ignored
 *	base conservative        (optional: start from this built-in)
 *	unknown drain            (optional: for XIDs the catalogue lacks)
 *	13 none                  (XID, action)
 *	79 inspect-hw
 *
 * An XID that comes back on the same GPU in a later boot escalates:
 * reset-gpu, reboot, drain -> inspect-hw; restart-app stays (the
 * application's own errors, which any user can raise once per boot; the
 * conservative policy, an operator's choice, still makes them reset-gpu).
 * policy_parse() reads outside input and is fuzzed (tests/fuzz/fuzz_watch.c).
 *
 *	struct wpolicy p;
 *	if (policy_builtin("nvidia", &p) < 0 && policy_parse(name, text, len, &p, &e) < 0) ...
 *	enum kb_xid_action a = policy_action(&p, kb, 48);
 */
#ifndef GD_WATCH_POLICY_H
#define GD_WATCH_POLICY_H

#include <stddef.h>

#include "core/err.h"
#include "watch/watch.h"

struct kb;

/* 0 for "nvidia" or "conservative", -1 for anything else. */
int policy_builtin(const char *name, struct wpolicy *p);
int policy_parse(const char *name, const char *text, size_t len, struct wpolicy *p,
		 struct err *e);
enum kb_xid_action policy_action(const struct wpolicy *p, const struct kb *kb, int xid);
/* The same for one logged line: an action the driver prints in the message
 * (XID 154) is NVIDIA's action for that event. */
enum kb_xid_action policy_action_for(const struct wpolicy *p, const struct kb *kb, int xid,
				     const char *message);
enum kb_xid_action policy_escalate(enum kb_xid_action a);
/* ok for none; otherwise the severity policy for gpu-xid-error at the
 * action's reach (report/report.h): warn for restart-app, fail beyond. */
enum status policy_severity(enum kb_xid_action a);

#endif
