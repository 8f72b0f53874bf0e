/*
 * ldso_priv.h - shared between the ldso_*.c files only: the memo of
 * requesters (ldso_obj_get), of search directories (ldso_dir_caps) and of
 * files (ldso_file_memo_get / _put) that one loader and those derived from
 * it share, and the preload list's loader (ldso_preloads_load).
 *
 *	const struct ldso_obj *o = ldso_obj_get(l, "/opt/x/libtorch_cuda.so");
 *	if (o->runpath) search(o->runpath, o->origin);
 */
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
	/* per dir and capability subdir (n * ncapstrs): its host path,
	 * resolved once; which subdirs exist is ldso_dir_caps()'s */
	char **host;
};

void ldso_lists_free(struct ldso *l);

const struct ldso_obj *ldso_obj_get(struct ldso *l, const char *path);
void ldso_objs_free(struct ldso *l);
/* LD_PRELOAD, then /etc/ld.so.preload, into l->preloads (ldso_preload.c). */
void ldso_preloads_load(struct ldso *l);
/*
 * Which capability subdirectories of a search directory exist
 * (ldso_dirstat.c), as ld.so's per-directory status: one byte per
 * l->capstrs entry, 1 a directory, 0 absent; stat()ed once per loader.  The
 * memo is made by ldso_init(), shared with the loaders derived from it
 * (ldso_init_from), thread-safe, and freed by ldso_release() of the base.
 */
void ldso_dirstat_init(struct ldso *l);
/* The memo's lock, also taken around the requesters' memo (ldso_obj_get). */
void ldso_memo_lock(const struct ldso *l);
void ldso_memo_unlock(const struct ldso *l);
const unsigned char *ldso_dir_caps(struct ldso *l, const char *dir);
void ldso_dirstat_free(struct ldso *l);

/* What trying one file gave (ldso.c's try_file), remembered per ldso. */
struct ldso_file_memo {
	int outcome;		/* ldso.c's enum try_outcome */
	char *why;		/* a skipped file's reason, else NULL */
	char *soname;		/* an accepted file's DT_SONAME, or NULL */
	char *load_error;	/* a file ld.so would fail on: why */
	size_t bytes_read;
};

const struct ldso_file_memo *ldso_file_memo_get(const struct ldso *l, const char *path);
void ldso_file_memo_put(struct ldso *l, const char *path, const struct ldso_file_memo *m);

#endif
