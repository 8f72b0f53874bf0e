/*
 * ldso.h - which file the dynamic loader would load, and why.
 *
 * Emulates glibc's search (elf/dl-load.c _dl_map_object) for a soname
 * requested by a given object:
 *   1. a name with a '/' is used as a path;
 *   2. DT_RPATH of the requester, then of its loaders up to the executable,
 *      but only when the requester has no DT_RUNPATH;
 *   3. LD_LIBRARY_PATH (ignored for set-uid programs);
 *   4. DT_RUNPATH of the requester (not of its loaders);
 *   5. /etc/ld.so.cache (unless -z nodeflib... see docs/loader.md);
 *   6. the default directories (/lib64, /usr/lib64 or the multiarch ones).
 * $ORIGIN, $LIB and $PLATFORM are expanded; glibc-hwcaps subdirectories are
 * tried first in each directory.  A candidate of the wrong ELF class or
 * machine is passed over, as ld.so does.  Everything is read inside root.
 *
 *	struct ldso l;
 *	struct ldso_env env = { .root = "/", .ld_library_path = getenv("LD_LIBRARY_PATH") };
 *	ldso_init(&l, &env, &e);
 *	struct ldso_result r = LDSO_RESULT_INIT;
 *	const char *chain[] = { "/opt/x/lib/libtorch_cuda.so" };
 *	ldso_resolve(&l, "libcudnn.so.9", chain, 1, &r, &e);
 *	printf("%s via %s\n", r.path, ldso_source_name(r.source));
 *	ldso_result_release(&r);
 *	ldso_release(&l);
 */
#ifndef GD_LDSO_H
#define GD_LDSO_H

#include <stddef.h>

#include "core/err.h"

struct ldcache;

enum ldso_source {
	LDSO_NONE,		/* not found */
	LDSO_PATH,		/* the name contained a '/' */
	LDSO_RPATH,		/* DT_RPATH of the requester or one of its loaders */
	LDSO_LD_LIBRARY_PATH,
	LDSO_RUNPATH,
	LDSO_CACHE,		/* /etc/ld.so.cache */
	LDSO_DEFAULT_DIR,
	LDSO_ALREADY_LOADED,	/* a loaded object already has this soname */
};

struct ldso_env {
	const char *root;		/* "/" or a fixture root */
	const char *ld_library_path;	/* the value in force, or NULL */
	int secure;			/* set-uid: LD_LIBRARY_PATH ignored */
	const char *platform;		/* $PLATFORM, default "x86_64" / "aarch64" */
	const char *lib;		/* $LIB, default "lib/x86_64-linux-gnu" style multiarch or "lib64" */
	const char *cache_path;		/* default "/etc/ld.so.cache" */
};

struct ldso {
	struct ldso_env env;
	struct ldcache *cache;		/* NULL when missing or unreadable */
	char *cache_error;		/* why, when cache is NULL */
	int cache_stale;		/* ld.so.conf dirs newer than the cache, or cache misses files */
	char **default_dirs;
	size_t ndefault_dirs;
};

struct ldso_candidate {
	char *path;			/* machine path tried */
	enum ldso_source source;
	char *from;			/* e.g. the object whose RPATH listed it */
	char *rejected;			/* NULL for the winner; else why it was passed over */
};

struct ldso_result {
	char *path;			/* machine path of the winner, NULL when not found */
	char *realpath;			/* winner with symlinks resolved (inside root) */
	enum ldso_source source;
	char *from;			/* which object's RPATH/RUNPATH, when relevant */
	struct ldso_candidate *cands;	/* every place looked, in order */
	size_t ncands, cands_cap;
};

#define LDSO_RESULT_INIT { 0 }

int ldso_init(struct ldso *l, const struct ldso_env *env, struct err *e);
void ldso_release(struct ldso *l);

/*
 * Resolve soname as requested by chain[0], whose loaders are chain[1..n-1]
 * (the executable last).  n == 0 means "requested by a program with no
 * RPATH/RUNPATH" (like dlopen from python).  Returns 0 (found or not: see
 * r->path), -1 on an internal error.
 */
int ldso_resolve(struct ldso *l, const char *soname, const char *const *chain, size_t n,
		 struct ldso_result *r, struct err *e);
void ldso_result_release(struct ldso_result *r);

const char *ldso_source_name(enum ldso_source s);

#endif
