/*
 * json_preloads.h - the loader's preloaded objects as JSON, one shape for
 * `which --json` (loader.preloads) and `check --json`
 * (inventory.libraries_loader.preloads).
 */
#ifndef GD_JSON_PRELOADS_H
#define GD_JSON_PRELOADS_H

#include <stddef.h>

struct json;
struct ldso_preload;

/* key: [ { "name", "via", "path", "realpath", "soname", "error" }, ... ] */
void json_preloads(struct json *j, const char *key, const struct ldso_preload *p, size_t n);

#endif
