/* rules_hardware.c - verdicts for the hardware layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_hardware(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_HARDWARE, "hardware.todo", STATUS_SKIPPED, NULL,
		   "hardware checks are not implemented yet");
}
