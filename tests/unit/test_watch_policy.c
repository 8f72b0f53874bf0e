/* test_watch_policy.c - XID policies: built-ins, files, escalation, severity. */
#include "knowledge/kb.h"
#include "knowledge/kb_xid.h"
#include "watch/policy.h"
#include "tap.h"

#include <string.h>

static struct kb *kb;

static void test_builtin(void)
{
	struct wpolicy p;

	CHECK_INT(policy_builtin("nvidia", &p), 0);
	CHECK_INT(policy_action(&p, kb, 13), KB_XID_RESTART_APP);
	CHECK_INT(policy_action(&p, kb, 48), KB_XID_RESET_GPU);
	CHECK_INT(policy_action(&p, kb, 63), KB_XID_NONE);
	CHECK_INT(policy_action(&p, kb, 79), KB_XID_REBOOT);
	CHECK_INT(policy_action(&p, kb, 9999), KB_XID_INSPECT_HW);
	CHECK_INT(policy_builtin("conservative", &p), 0);
	CHECK_INT(policy_action(&p, kb, 13), KB_XID_RESET_GPU);
	CHECK_INT(policy_action(&p, kb, 63), KB_XID_RESTART_APP);
	CHECK_INT(policy_action(&p, kb, 79), KB_XID_REBOOT);
	CHECK_INT(policy_builtin("lenient", &p), -1);
	/* XID 154 carries NVIDIA's action in its line (issue 21) */
	CHECK_INT(policy_builtin("nvidia", &p), 0);
	CHECK_INT(policy_action_for(&p, kb, 154, "GPU recovery action changed from 0x3 (Drain P2P) "
				    "to 0x2 (Node Reboot Required)"), KB_XID_REBOOT);
	CHECK_INT(policy_action_for(&p, kb, 154, "GPU recovery action changed from 0x3 (Drain P2P) "
				    "to 0x1 (GPU Reset Required)"), KB_XID_RESET_GPU);
	CHECK_INT(policy_action_for(&p, kb, 154, "GPU recovery action changed"), policy_action(&p, kb, 154));
}

static void test_file(void)
{
	static const char text[] = "# site\r\nbase conservative\nunknown drain\n  13   none\n79 inspect-hw\n79 drain\n";
	struct wpolicy p;
	struct err e = ERR_INIT;

	CHECK_INT(policy_parse("site.policy", text, strlen(text), &p, &e), 0);
	CHECK_STR(p.name, "site.policy");
	CHECK_INT(policy_action(&p, kb, 13), KB_XID_NONE);
	CHECK_INT(policy_action(&p, kb, 79), KB_XID_DRAIN);	/* the last line wins */
	CHECK_INT(policy_action(&p, kb, 31), KB_XID_RESET_GPU);	/* conservative base */
	CHECK_INT(policy_action(&p, kb, 5000), KB_XID_DRAIN);
	CHECK_INT(policy_parse("p", "13 soon\n", 8, &p, &e), -1);
	CHECK(strstr(e.msg, "p:1: 'soon' is not an action") != NULL);
	CHECK_INT(policy_parse("p", "\nx13 none\n", 10, &p, &e), -1);
	CHECK(strstr(e.msg, "p:2:") != NULL);
	CHECK_INT(policy_parse("p", "13 none extra\n", 14, &p, &e), -1);
	CHECK_INT(policy_parse("p", "base lenient\n", 13, &p, &e), -1);
	CHECK_INT(policy_parse("p", "13\n", 3, &p, &e), -1);
}

static void test_escalation_and_severity(void)
{
	CHECK_INT(policy_escalate(KB_XID_NONE), KB_XID_NONE);
	CHECK_INT(policy_escalate(KB_XID_RESTART_APP), KB_XID_RESTART_APP);	/* a user's own */
	CHECK_INT(policy_escalate(KB_XID_RESET_GPU), KB_XID_INSPECT_HW);
	CHECK_INT(policy_escalate(KB_XID_REBOOT), KB_XID_INSPECT_HW);
	CHECK_INT(policy_severity(KB_XID_NONE), STATUS_OK);
	CHECK_INT(policy_severity(KB_XID_RESTART_APP), STATUS_WARN);
	CHECK_INT(policy_severity(KB_XID_DRAIN), STATUS_FAIL);
}

int main(void)
{
	struct err e = ERR_INIT;

	if (kb_open(NULL, &kb, &e) < 0) {
		printf("not ok 1 - kb_open: %s\n1..1\n", e.msg);
		return 1;
	}
	RUN(test_builtin);
	RUN(test_file);
	RUN(test_escalation_and_severity);
	kb_close(kb);
	return tap_done();
}
