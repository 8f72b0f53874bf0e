/* rules_frameworks.c - verdicts for the frameworks layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_frameworks(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_FRAMEWORKS, "frameworks.todo", STATUS_SKIPPED, NULL,
		   "frameworks checks are not implemented yet");
}
