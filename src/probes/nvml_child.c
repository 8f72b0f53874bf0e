/* nvml_child.c - child side of the isolated 'nvml' probe.  (stub) */
#include "commands/commands.h"
#include "core/kv.h"

int probe_main_nvml(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	kv_emit("error", "not implemented");
	kv_end();
	return 0;
}
