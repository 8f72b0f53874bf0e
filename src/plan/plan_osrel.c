/*
 * plan_osrel.c - one KEY=value of an os-release file (os-release(5)): the
 * value unquoted when it is wrapped in "" or ''.  The text is hostile input
 * (it comes from the inspected tree): nothing is interpreted but the quotes.
 * Fuzzed by tests/fuzz/fuzz_osrel.c.
 */
#include "plan/plan.h"
#include "cfg/osrel.h"
#include "core/xalloc.h"

#include <string.h>

char *plan_os_value(const char *text, const char *key)
{
	return osrel_value(text, key);
}
