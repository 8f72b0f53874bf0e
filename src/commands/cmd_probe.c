/*
 * cmd_probe.c - the hidden "__probe NAME" command: the child side of every
 * isolated probe.  It runs in a fresh process started by child_run_probe()
 * and may load foreign libraries; whatever happens here (a crash, a hang)
 * is contained by the parent.
 */
#include "commands/commands.h"
#include "probes/children.h"

#include <stdio.h>
#include <string.h>

struct probe_entry {
	const char *name;
	int (*main)(int argc, char **argv);
};

static const struct probe_entry probes[] = {
	{ "nvml", probe_main_nvml },
	{ "cuda", probe_main_cuda },
	{ "libversion", probe_main_libversion },
	{ "bench", probe_main_bench },
	{ "devopen", probe_main_devopen },
	{ "nvml-sampler", probe_main_nvml_sampler },
	{ "burn", probe_main_burn },
};

int cmd_probe(int argc, char **argv, const struct gd_ctx *ctx)
{
	(void)ctx;
	if (argc < 2) {
		fputs("gpudoctor __probe: internal command, needs a probe name\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!strcmp(probes[i].name, argv[1]))
			return probes[i].main(argc - 1, argv + 1);
	fprintf(stderr, "gpudoctor __probe: unknown probe '%s'\n", argv[1]);
	return 2;
}
