/*
 * containers_containerd.c - containerd's config.toml: is there a runtime
 * whose BinaryName is the NVIDIA runtime, which runtime is the default,
 * and is CDI on.  The runtimes table moved between config versions:
 *   version 1: [plugins.cri.containerd.runtimes.NAME]
 *   version 2: [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.NAME]
 *   version 3: [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.NAME]
 * each with .options.BinaryName = "/usr/bin/nvidia-container-runtime" as
 * `nvidia-ctk runtime configure --runtime=containerd` writes it
 * (NVIDIA/nvidia-container-toolkit pkg/config/engine/containerd,
 * tests/container/shared/etc/containerd/config_v2.toml @d34b3046); so any
 * [... runtimes NAME options] table is read, whatever plugin holds it.
 */
#include "probes/containers/containers.h"
#include "cfg/toml.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int last_parts(const struct toml_entry *en, const char *a, const char *b)
{
	return en->nparts >= 2 && !strcmp(en->parts[en->nparts - 2], a) &&
	       !strcmp(en->parts[en->nparts - 1], b);
}

int ctr_read_containerd_config(const char *text, size_t len, struct ctr_host *h, struct err *e)
{
	struct toml t;

	if (toml_parse(text, len, &t, e) < 0)
		return -1;
	for (size_t i = 0; i < t.n; i++) {
		const struct toml_entry *en = &t.entries[i];

		if (en->nparts >= 4 && last_parts(en, "options", "BinaryName") &&
		    !strcmp(en->parts[en->nparts - 4], "runtimes") && en->value) {
			const char *base = strrchr(en->value, '/');

			base = base ? base + 1 : en->value;
			if (!strncmp(base, "nvidia-container-runtime", 24))
				h->containerd_nvidia_runtime = 1;
		} else if (last_parts(en, "containerd", "default_runtime_name") && en->value) {
			free(h->containerd_default_runtime);
			h->containerd_default_runtime = xstrdup(en->value);
		} else if (en->nparts >= 1 && !strcmp(en->parts[en->nparts - 1], "enable_cdi") &&
			   en->type == TOML_BOOL) {
			h->containerd_cdi = !strcmp(en->value, "true");
		}
	}
	toml_release(&t);
	return 0;
}
