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

const struct ldso_obj *ldso_obj_get(struct ldso *l, const char *path);
void ldso_objs_free(struct ldso *l);
/* LD_PRELOAD, then /etc/ld.so.preload, into l->preloads (ldso_preload.c). */
void ldso_preloads_load(struct ldso *l);

#endif
