/*
 * health_policy.c - which problems a scheduler should answer with a reboot.
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
	 * (NVIDIA's XID catalogue: XID 79, bucket RESTART_BM). */
	"gpu-lost",
	/* PCI sees more GPUs than NVML (watch): one fell off without an XID. */
	"gpu-count-mismatch",
	/* NVML stuck in the kernel (watch): the driver is wedged. */
	"nvml-hang",
	/* Libraries newer than the loaded module, typically after an unattended
	 * driver upgrade: the next boot loads the matching module. */
	"driver-library-mismatch",
};

/*
 * watch reports other XIDs as "xid-error" with a reason that ends in
 * "action <name>", the immediate action of NVIDIA's XID catalogue in
 * gpudoctor's words (src/knowledge/data/xid.tsv): reboot and reset-gpu are
 * what a scheduler can only do by rebooting the idle node.
 */
static int xid_action_needs_reboot(const char *reason)
{
	const char *a = reason ? strstr(reason, "action ") : NULL, *next;

	if (!a)
		return 0;
	while ((next = strstr(a + 7, "action ")))
		a = next;
	a += 7;
	return !strcmp(a, "reboot") || !strcmp(a, "reset-gpu");
}

int health_item_needs_reboot(const struct health_item *it)
{
	if (!it || !it->cause)
		return 0;
	for (size_t i = 0; i < sizeof(reboot_causes) / sizeof(reboot_causes[0]); i++)
		if (!strcmp(it->cause, reboot_causes[i]))
			return 1;
	return !strcmp(it->cause, "xid-error") && xid_action_needs_reboot(it->reason);
}
