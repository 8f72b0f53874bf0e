/* rules_driver.c - verdicts for the driver layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_driver(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_DRIVER, "driver.todo", STATUS_SKIPPED, NULL,
		   "driver checks are not implemented yet");
}
