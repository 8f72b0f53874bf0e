/* rules_devices.c - verdicts for the devices layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_devices(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_DEVICES, "devices.todo", STATUS_SKIPPED, NULL,
		   "devices checks are not implemented yet");
}
