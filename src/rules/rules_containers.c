/* placeholder, replaced below */
#include "rules/rules.h"
void rules_containers(const struct rules_in *in, struct report *rep)
{
	(void)in;
	(void)rep;
}
