/*
 * fuzz_toml.c - libFuzzer target for the TOML subset reader (cfg/toml.h) of
 * /etc/nvidia-container-runtime/config.toml and containerd's config.toml.
 * The input is copied into an exactly-sized heap buffer without a NUL.
 *
 * fuzz-sources: src/cfg/toml.c src/core/buf.c src/core/err.c src/core/xalloc.c
 */
#include "cfg/toml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml t;
	struct err e = ERR_INIT;
	char *text = malloc(size ? size : 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (toml_parse(text, size, &t, &e) == 0) {
		static const char *const pre[] = { "plugins", "io.containerd.grpc.v1.cri" };

		for (size_t i = 0; i < t.n; i++) {
			char *s = toml_path_str(&t.entries[i]);

			free(s);
			(void)toml_has_prefix(&t.entries[i], pre, 2);
		}
		(void)toml_find(&t, "nvidia-container-cli", "no-cgroups", NULL);
		toml_release(&t);
	} else if (!e.msg[0]) {
		abort();
	}
	free(text);
	return 0;
}
