/*
 * ldso.h - which file the dynamic loader would load, and why.
 *
 * Emulates glibc's search (elf/dl-load.c _dl_map_object) for a soname
 * requested by a given object:
 *   0. an object preloaded (LD_PRELOAD, /etc/ld.so.preload) that answers
 *      to the name is used;
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
	LDSO_PRELOAD,		/* LD_PRELOAD or /etc/ld.so.preload loaded it before anything else */
};

enum { LDSO_LEGACY_AUTO = 0, LDSO_LEGACY_ON = 1, LDSO_LEGACY_OFF = 2 };

struct ldso_env {
	const char *root;		/* "/" or a fixture root */
	const char *ld_library_path;	/* the value in force, or NULL */
	int secure;			/* set-uid: LD_LIBRARY_PATH ignored */
	const char *platform;		/* $PLATFORM, default "x86_64" / "aarch64" */
	const char *lib;		/* $LIB, default "lib/x86_64-linux-gnu" style multiarch or "lib64" */
	const char *cache_path;		/* default "/etc/ld.so.cache" */
	/* Added by the loader helper; NULL / 0 / -1 mean "work it out from root". */
	const char *default_dirs;	/* colon list overriding the trusted directories */
	const char *hwcaps;		/* colon list of glibc-hwcaps subdirs, best first ("" = none) */
	int legacy_hwcaps;		/* LDSO_LEGACY_AUTO (0 or negative: glibc < 2.37 has tls/ and
					 * $PLATFORM subdirs), LDSO_LEGACY_ON, LDSO_LEGACY_OFF */
	const char *cwd;		/* for relative RPATH entries; default getcwd() when root is "/" */
	const char *conf_path;		/* default "/etc/ld.so.conf" */
	const char *preload;		/* LD_PRELOAD in force, or NULL (ignored when secure) */
	const char *preload_file;	/* default "/etc/ld.so.preload" */
};

/*
 * An object ld.so loads before the program's own dependencies: LD_PRELOAD
 * first, then /etc/ld.so.preload (elf/rtld.c).  A later request for a name
 * it answers to -- the name it was preloaded by, its path, or its
 * DT_SONAME -- gets this object, whatever the search would have found.
 */
struct ldso_preload {
	char *name;			/* as written: "libfoo.so.1" or "/opt/x/libfoo.so" */
	const char *via;		/* "LD_PRELOAD" or "/etc/ld.so.preload" */
	char *path;			/* machine path loaded, NULL when it cannot be preloaded */
	char *realpath;
	char *soname;			/* its DT_SONAME, or NULL */
	char *error;			/* why it cannot be preloaded (ld.so prints it and goes on) */
};

struct ldso {
	struct ldso_env env;
	struct ldcache *cache;		/* NULL when missing or unreadable */
	char *cache_error;		/* why, when cache is NULL */
	int cache_stale;		/* ld.so.conf dirs newer than the cache, or cache misses files */
	char **default_dirs;
	size_t ndefault_dirs;
	/* Added by the loader helper. */
	char *cache_stale_reason;	/* why cache_stale is set, else NULL */
	char **conf_dirs;		/* directories listed in ld.so.conf (and includes) */
	size_t nconf_dirs;
	char **capstrs;			/* subdirs tried in every directory, best first, "" last */
	size_t ncapstrs;
	char **hwcaps;			/* the glibc-hwcaps names among them, best first */
	size_t nhwcaps;
	unsigned isa_level;		/* x86-64 ISA level of the CPU (0 baseline .. 3 = v4) */
	int glibc_major, glibc_minor;	/* of the root's libc.so.6, -1 unknown */
	int machine;			/* e_machine the loader accepts (EM_X86_64 / EM_AARCH64) */
	int cache_flags;		/* ld.so.cache flags the loader accepts (0x0303 / 0x0a03) */
	struct ldso_preload *preloads;	/* in load order */
	size_t npreloads;
	char *cwd_buf;			/* private: getcwd() when env.cwd was NULL */
	void *objs;			/* private: RPATH/RUNPATH of requesters already read */
	size_t nobjs, objs_cap;
	void *dirstat;			/* private: directories known absent (ldso_dirstat.c) */
	struct ldso *base;		/* private: set by ldso_init_from; shares its state */
	void *lists;			/* private: search lists expanded and de-duplicated once;
					   each loader's own, a derived one's too (not locked) */
	size_t nlists, lists_cap;
};

struct ldso_candidate {
	char *path;			/* machine path tried */
	enum ldso_source source;
	char *from;			/* e.g. the object whose RPATH listed it */
	char *rejected;			/* NULL for the winner; else why it was passed over */
};

/* A directory searched, in order (the files tried there that exist are in cands). */
struct ldso_dir {
	char *dir;			/* machine path, after $ORIGIN/$LIB/$PLATFORM expansion */
	enum ldso_source source;
	char *from;			/* whose RPATH/RUNPATH, or NULL */
};

struct ldso_result {
	char *path;			/* machine path of the winner, NULL when not found */
	char *realpath;			/* winner with symlinks resolved (inside root) */
	enum ldso_source source;
	char *from;			/* which object's RPATH/RUNPATH, when relevant */
	struct ldso_candidate *cands;	/* every existing file looked at, in order */
	size_t ncands, cands_cap;
	/* Added by the loader helper. */
	struct ldso_dir *dirs;		/* every directory searched, in order */
	size_t ndirs, dirs_cap;
	char *load_error;		/* the winner would make ld.so fail ("file too short"...), else NULL */
	size_t bytes_read;		/* bytes of the winner looked at */
	char *soname;			/* DT_SONAME of the winner, or NULL */
};

#define LDSO_RESULT_INIT { 0 }

int ldso_init(struct ldso *l, const struct ldso_env *env, struct err *e);
void ldso_release(struct ldso *l);
/*
 * The same loader with another LD_LIBRARY_PATH (NULL: unset), without
 * reading anything again: l shares base's cache, directories, preloads and
 * the memo of requesters and absent directories, so it is cheap enough to
 * make one per question.  base must outlive l, and the two are used from one
 * thread at a time.  ldso_release(l) frees only what l owns.  The string
 * ld_library_path is kept by pointer.
 */
void ldso_init_from(struct ldso *l, struct ldso *base, const char *ld_library_path);

/*
 * Resolve soname as requested by chain[0], whose loaders are chain[1..n-1]
 * (the executable last).  n == 0 means "requested by a program with no
 * RPATH/RUNPATH" (like dlopen from python).  Returns 0 (found or not: see
 * r->path), -1 on an internal error.
 */
int ldso_resolve(struct ldso *l, const char *soname, const char *const *chain, size_t n,
		 struct ldso_result *r, struct err *e);
void ldso_result_release(struct ldso_result *r);

/* How a file was found, for people: "LD_LIBRARY_PATH", "ld.so.cache", "RUNPATH" ... */
const char *ldso_source_name(enum ldso_source s);
/*
 * The same as an id of the JSON vocabulary, the only one every JSON document
 * uses for it (check's inventory, which): "path", "rpath",
 * "ld-library-path", "runpath", "cache", "default", "already-loaded",
 * "preload"; NULL for LDSO_NONE.
 */
const char *ldso_source_id(enum ldso_source s);

/*
 * Expand $ORIGIN/${ORIGIN}, $LIB and $PLATFORM in one path element as
 * glibc's _dl_dst_substitute does; origin NULL makes a $ORIGIN element
 * unusable.  NULL when the element must be dropped.
 */
char *ldso_expand(const struct ldso *l, const char *elem, const char *origin);
/* A deep copy of l's preloads (for an inventory that outlives l), and its release. */
struct ldso_preload *ldso_preloads_copy(const struct ldso *l, size_t *n);
void ldso_preloads_free(struct ldso_preload *p, size_t n);

/*
 * The entries of a preload list, as elf/rtld.c splits them: LD_PRELOAD on
 * ' ' and ':'; /etc/ld.so.preload (file != 0) on whitespace and ':', with
 * '#' starting a comment to the end of the line.  text[0..len) need not be
 * NUL-terminated; a NUL ends it.  Free with fs_names_free.
 */
char **ldso_preload_split(const char *text, size_t len, int file, size_t *n);
/* $ORIGIN of an object loaded under path: its directory (not the realpath; see docs/loader.md). */
char *ldso_origin(const char *path, const char *cwd);

#endif
