/* rules_cuda.c - verdicts for the cuda layer.  (stub: to be filled by its owner) */
#include "rules/rules.h"
#include "probes/inventory.h"

void rules_cuda(const struct rules_in *in, struct report *rep)
{
	(void)in;
	report_add(rep, LAYER_CUDA, "cuda.todo", STATUS_SKIPPED, NULL,
		   "cuda checks are not implemented yet");
}
