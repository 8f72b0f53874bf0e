/* rules_kernel.c - verdicts for the kernel layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_kernel(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_KERNEL, "kernel.todo", STATUS_SKIPPED, NULL,
		   "kernel checks are not implemented yet");
}
