/*
 * containers_ctk_config.c - the NVIDIA Container Toolkit's config.toml:
 * the runtime's mode ("auto", "legacy", "cdi", "csv"), whether
 * nvidia-container-cli manages cgroups (no-cgroups), and where CDI specs
 * are read from.  Keys and defaults as the toolkit writes them
 * (NVIDIA/nvidia-container-toolkit api/config/v1/toml_test.go @d34b3046:
 * [nvidia-container-runtime] mode = "auto",
 * [nvidia-container-runtime.modes.cdi] spec-dirs = ["/etc/cdi", "/var/run/cdi"],
 * [nvidia-container-cli] #no-cgroups = false).
 */
#include "probes/containers/containers.h"
#include "cfg/toml.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

int ctr_read_toolkit_config(const char *text, size_t len, struct ctr_host *h, struct err *e)
{
	struct toml t;
	const struct toml_entry *en;

	if (toml_parse(text, len, &t, e) < 0)
		return -1;
	en = toml_find(&t, "nvidia-container-runtime", "mode", NULL);
	if (en && en->value) {
		free(h->toolkit_mode);
		h->toolkit_mode = xstrdup(en->value);
	}
	en = toml_find(&t, "nvidia-container-cli", "no-cgroups", NULL);
	if (en && en->type == TOML_BOOL)
		h->no_cgroups = !strcmp(en->value, "true");
	en = toml_find(&t, "nvidia-container-runtime", "modes", "cdi", "spec-dirs", NULL);
	if (en && en->type == TOML_ARRAY) {
		for (size_t i = 0; i < h->nspec_dirs; i++)
			free(h->spec_dirs[i]);
		free(h->spec_dirs);
		h->spec_dirs = xcalloc(en->nitems + 1, sizeof(char *));
		h->nspec_dirs = 0;
		for (size_t i = 0; i < en->nitems && i < 16; i++)
			if (en->items[i][0] == '/')
				h->spec_dirs[h->nspec_dirs++] = xstrdup(en->items[i]);
	}
	toml_release(&t);
	return 0;
}
