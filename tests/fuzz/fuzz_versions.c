/*
 * fuzz_versions.c - libFuzzer target for the version readers of outside
 * text: libversion_parse_* (cudnn_version.h, a toolkit's version.json and
 * version.txt, dist-info directory names), kernel_parse_nvidia_version
 * (/proc/driver/nvidia/version) and version_parse (20-digit parts).
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The first byte picks the dist-info stem; the rest is NUL-terminated text.
 */
#include "core/version.h"
#include "probes/kernel/kernel.h"
#include "probes/libraries/libscan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const stems[] = { "cudnn", "cuda_runtime", "nccl", "cublas" };
	const char *stem = stems[size ? data[0] % 4 : 0];
	char *text = malloc(size + 1), *v, *pkg = NULL;
	struct version ver;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	free(libversion_parse_cudnn_header(text));
	free(libversion_parse_version_json(text, "cuda"));
	free(libversion_parse_version_json(text, "cuda_cudart"));
	free(libversion_parse_version_txt(text));
	v = libversion_parse_dist_info(text, stem, &pkg);
	free(v);
	free(pkg);
	{
		char mod[64];
		int open;

		if (kernel_parse_nvidia_version(text, size, mod, sizeof(mod), &open) == 0 &&
		    strlen(mod) >= sizeof(mod))
			abort();
	}
	if (version_parse(text, &ver) == 0)
		for (int i = 0; i < ver.n; i++)
			if (ver.part[i] < 0 || ver.part[i] > VERSION_PART_MAX)
				abort();
	free(text);
	return 0;
}
