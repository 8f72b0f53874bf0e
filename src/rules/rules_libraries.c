/* rules_libraries.c - verdicts for the libraries layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_libraries(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_LIBRARIES, "libraries.todo", STATUS_SKIPPED, NULL,
		   "libraries checks are not implemented yet");
}
