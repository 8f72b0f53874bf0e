/*
 * fuzz_health.c - libFuzzer target for what `gpudoctor health` parses from
 * outside: the watch daemon's state file (health_state_parse) and the output
 * of `scontrol -o show node` (slurm_node_parse), then the verdict, the line
 * and the Slurm plan built from them.
 *
 * fuzz-sources: src/health/health.c src/health/health_reboot.c src/health/health_state.c src/health/health_slurm.c src/health/health_policy.c src/core/kv.c src/core/buf.c src/core/err.c src/core/fs.c src/core/xalloc.c
 *
 * The first byte picks the boot id (none, or the fixed one) and the split
 * between the two inputs; the input is copied into an exactly-sized heap
 * buffer without a NUL, so ASan catches any read past the length given.
 * The line must stay within 80 printable ASCII characters whatever comes in.
 */
#include "health/health.h"
#include "health/health_slurm.h"
#include "health/health_state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct health_state st;
	struct health h;
	struct slurm_node n;
	struct slurm_plan p;
	const char *argv[10];
	char bufs[4][320];
	size_t split;
	char *a, *b;

	if (size < 1)
		return 0;
	split = size > 1 ? (size_t)(data[0] * (size - 1)) / 255 : 0;
	a = malloc(split ? split : 1);
	b = malloc(size - 1 - split ? size - 1 - split : 1);
	if (!a || !b)
		abort();
	memcpy(a, data + 1, split);
	memcpy(b, data + 1 + split, size - 1 - split);
	health_init(&h);
	health_state_parse(a, split, (data[0] & 1) ? "0f3c6b9e" : NULL, 1000, 300, &st, &h);
	health_verdict(&h);
	if (strlen(h.line) > HEALTH_LINE_MAX)
		abort();
	for (const char *c = h.line; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			abort();
	slurm_node_parse(b, size - 1 - split, &n);
	slurm_plan(&n, &h, data[0] & 2, data[0] & 4, &p);
	slurm_plan_argv(&p, "scontrol", "n1", &h, argv, bufs);
	health_release(&h);
	free(a);
	free(b);
	return 0;
}
