/*
 * severity.h - the severity policy: how bad a finding is, decided in one place.
 *
 * A rule says what is wrong (the cause) and whether real work meets it (the
 * reach); it never picks warn or fail itself.  Each cause's severity class is
 * a column of knowledge/causes.def; severity_status() turns class and reach
 * into the finding's status.  The written policy, with the reasons, is
 * docs/severity.md, and tests/unit/test_severity.c holds it to that.
 *
 *	enum status st = severity_status(SEV_FAIL, REACH_LATENT);	// STATUS_WARN
 */
#ifndef GD_SEVERITY_H
#define GD_SEVERITY_H

#include "knowledge/layers.h"

enum severity {
	SEV_WARN,		/* worth fixing; work still runs */
	SEV_FAIL,		/* breaks work that meets it; a warning while latent */
	SEV_FAIL_ALWAYS,	/* the link is broken even if nothing uses it yet */
};

enum reach {
	REACH_WORK,		/* on the path real work takes: the loader's pick,
				   the bound GPU, the running module, the framework's
				   own check */
	REACH_LATENT,		/* present on the machine, but nothing installed
				   meets it today (a copy the loader does not pick,
				   a module file for the next boot) */
};

enum status severity_status(enum severity sev, enum reach reach);
const char *severity_name(enum severity sev);

#endif
