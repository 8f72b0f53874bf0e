/* severity.c - the severity policy of severity.h; see docs/severity.md. */
#include "knowledge/severity.h"

enum status severity_status(enum severity sev, enum reach reach)
{
	switch (sev) {
	case SEV_FAIL_ALWAYS:
		/* A corrupt or unreadable library is a broken link today: the
		   next install that relies on it fails, and a node gated on the
		   exit status must not be called healthy. */
		return STATUS_FAIL;
	case SEV_FAIL:
		return reach == REACH_WORK ? STATUS_FAIL : STATUS_WARN;
	case SEV_WARN:
		break;
	}
	return STATUS_WARN;
}

const char *severity_name(enum severity sev)
{
	switch (sev) {
	case SEV_WARN:
		return "warn";
	case SEV_FAIL:
		return "fail";
	case SEV_FAIL_ALWAYS:
		return "fail-always";
	}
	return "?";
}
