/*
 * health_policy.c - which causes a scheduler should answer with a reboot.
 *
 * Draining is always safe; a reboot is only worth asking for when nothing
 * short of it (or a GPU reset, which cannot happen under running jobs)
 * clears the cause, and it is only done when the operator opts in
 * (`health --slurm --reboot`).  Everything else drains and waits for a
 * person.
 */
#include "health/health.h"

#include <string.h>

static const char *const reboot_causes[] = {
	/* The GPU fell off the bus: only a reset of the device brings it back
	 * (NVIDIA's XID catalogue: XID 79, "RESTART_BM"). */
	"gpu-lost",
	/* Libraries newer than the loaded module, typically after an unattended
	 * driver upgrade: the next boot loads the matching module. */
	"driver-library-mismatch",
	/* The module is missing for the running kernel after a kernel upgrade
	 * without DKMS having built it: a reboot into the older kernel or a
	 * rebuild; the reboot is not a fix, so drain only (not listed). */
};

/* Cause ids the watch daemon derives from NVIDIA's XID catalogue whose
 * action is a reboot or a GPU reset carry these prefixes. */
static const char *const reboot_prefixes[] = { "xid-reboot", "xid-reset", "gpu-reset-required" };

int health_cause_needs_reboot(const char *cause)
{
	if (!cause)
		return 0;
	for (size_t i = 0; i < sizeof(reboot_causes) / sizeof(reboot_causes[0]); i++)
		if (!strcmp(cause, reboot_causes[i]))
			return 1;
	for (size_t i = 0; i < sizeof(reboot_prefixes) / sizeof(reboot_prefixes[0]); i++)
		if (!strncmp(cause, reboot_prefixes[i], strlen(reboot_prefixes[i])))
			return 1;
	return 0;
}
