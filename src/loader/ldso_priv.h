/* ldso_priv.h - shared between the ldso_*.c files only. */
#ifndef GD_LDSO_PRIV_H
#define GD_LDSO_PRIV_H

#include "loader/ldso.h"

#include <stdint.h>

/* What a requester contributes to a search, read once per ldso. */
struct ldso_obj {
	char *path;		/* machine path it was loaded under */
	char *rpath, *runpath;
	uint64_t flags_1;
	char *origin;		/* $ORIGIN, NULL when unknown */
	int ok;			/* 0: could not be read (no RPATH/RUNPATH used) */
};

/* A search list (RPATH, RUNPATH, LD_LIBRARY_PATH) expanded with one
 * $ORIGIN and de-duplicated, kept per ldso: thousands of entries cost one
 * pass each, not one per soname (ldso.c). */
struct ldso_list {
	char *list, *seps, *origin;	/* the key */
	char **dirs;			/* machine paths, in order, each once */
	size_t n;
	/* per dir and capability subdir (n * ncapstrs): 0 unknown, 1 exists,
	 * 2 missing; a missing one is not tried again (ld.so's "nonexisting") */
	unsigned char *status;
	char **host;			/* per dir and subdir: its host path, resolved once */
};

void ldso_lists_free(struct ldso *l);

const struct ldso_obj *ldso_obj_get(struct ldso *l, const char *path);
void ldso_objs_free(struct ldso *l);
/* LD_PRELOAD, then /etc/ld.so.preload, into l->preloads (ldso_preload.c). */
void ldso_preloads_load(struct ldso *l);

#endif
