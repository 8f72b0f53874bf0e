/*
 * toml.h - the TOML subset of the configuration files gpudoctor reads
 * (/etc/nvidia-container-runtime/config.toml, /etc/containerd/config.toml).
 *
 * The file becomes a flat list of entries, each the full key path
 * (table path + dotted key, quoted parts unquoted: the containerd table
 * [plugins."io.containerd.grpc.v1.cri".containerd] gives the parts
 * "plugins", "io.containerd.grpc.v1.cri", "containerd") and its value:
 * a string, a boolean, a number (kept as text), or an array of those (its
 * items as strings).  Inline tables are entries of their own under the key.
 * [[array]] tables are read as tables.  Bounded like doc.h; a line it does
 * not understand is an error with its number.
 *
 *	struct toml t;
 *	if (toml_parse(text, len, &t, &e) == 0) {
 *		const struct toml_entry *v = toml_find(&t, "nvidia-container-cli", "no-cgroups", NULL);
 *		...
 *		toml_release(&t);
 *	}
 */
#ifndef GD_TOML_H
#define GD_TOML_H

#include <stddef.h>

#include "core/err.h"

#define TOML_MAX_ENTRIES 20000
#define TOML_MAX_PARTS 16

enum toml_type { TOML_STRING, TOML_BOOL, TOML_NUMBER, TOML_ARRAY, TOML_OTHER };

struct toml_entry {
	char *parts[TOML_MAX_PARTS];
	size_t nparts;
	enum toml_type type;
	char *value;		/* string, "true"/"false", number text; NULL for arrays */
	char **items;		/* TOML_ARRAY: the items as text */
	size_t nitems;
	int line;
};

struct toml {
	struct toml_entry *entries;
	size_t n, cap;
};

int toml_parse(const char *text, size_t len, struct toml *out, struct err *e);
void toml_release(struct toml *t);

/* The entry whose parts are the NULL-terminated list given, or NULL (last wins). */
const struct toml_entry *toml_find(const struct toml *t, ...);
/* Does the entry's path start with these n parts? */
int toml_has_prefix(const struct toml_entry *en, const char *const *prefix, size_t n);
/* "a.\"b.c\".d" for evidence (malloc'ed). */
char *toml_path_str(const struct toml_entry *en);

#endif
