/*
 * ldcache.h - reading /etc/ld.so.cache the way glibc's ld.so does.
 *
 * Both formats ldconfig writes are understood (glibc sysdeps/generic/
 * dl-cache.h): the old "ld.so-1.7.0" table, the new "glibc-ld.so.cache1.1"
 * table, and the combined file (old table, then the new header aligned to 8
 * bytes inside the old string table).  As in elf/dl-cache.c, when a new table
 * is present it alone is searched.  Every offset is checked against the file
 * size; a cache that fails the checks is an error, as it is ignored by ld.so.
 *
 *	struct ldcache *c;
 *	if (ldcache_load("/", "/etc/ld.so.cache", &c, &e) < 0) ...
 *	const struct ldcache_entry *hit =
 *		ldcache_lookup(c, "libcudnn.so.9", LDCACHE_FLAGS_X86_64, &hw);
 *	if (hit) printf("%s\n", hit->value);
 *	ldcache_free(c);
 */
#ifndef GD_LDCACHE_H
#define GD_LDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* sysdeps/generic/ldconfig.h: FLAG_ELF_LIBC6 | FLAG_X8664_LIB64, | FLAG_AARCH64_LIB64. */
#define LDCACHE_FLAG_ELF_LIBC6	0x0003
#define LDCACHE_FLAGS_X86_64	0x0303
#define LDCACHE_FLAGS_AARCH64	0x0a03
/* dl-cache.h: an hwcap field with only this bit (and ISA-level bits) set names a glibc-hwcaps subdir. */
#define LDCACHE_HWCAP_EXTENSION	(1ULL << 62)

enum ldcache_format { LDCACHE_OLD = 1, LDCACHE_NEW = 2, LDCACHE_COMPAT = 3 };

struct ldcache_entry {
	char *key;		/* soname */
	char *value;		/* machine path */
	int32_t flags;		/* FLAG_ELF_LIBC6 | arch bits */
	uint64_t hwcap;		/* 0 for plain entries */
	const char *hwcaps_subdir;	/* "x86-64-v3" for glibc-hwcaps entries, else NULL */
	unsigned isa_level;	/* x86 ISA level bits of the entry (0 baseline) */
};

struct ldcache {
	char *path;
	enum ldcache_format format;
	struct ldcache_entry *entries;	/* of the table ld.so searches, in file order */
	size_t n;
	char **hwcaps;			/* the glibc-hwcaps extension's subdir names */
	size_t nhwcaps;
	char *generator;		/* e.g. "ldconfig (GNU libc) stable release version 2.36" or NULL */
	size_t nold;			/* entries of the old table (LDCACHE_COMPAT/OLD) */
};

/* What the running CPU supports, for glibc-hwcaps entries. */
struct ldcache_hw {
	const char *const *subdirs;	/* usable glibc-hwcaps names, best first (e.g. v4, v3, v2) */
	size_t nsubdirs;
	unsigned isa_level;		/* highest x86 ISA level the CPU has: 0 baseline .. 3 (v4) */
};

/* Read root+abs and parse it. */
int ldcache_load(const char *root, const char *abs, struct ldcache **out, struct err *e);
/* Parse a cache image (the fuzz entry point); path is only used in messages. */
int ldcache_parse(const unsigned char *data, size_t size, const char *path,
		  struct ldcache **out, struct err *e);
void ldcache_free(struct ldcache *c);

/*
 * The entry ld.so would use for soname (elf/dl-cache.c search_cache):
 * binary search with ldcache_libcmp, flags == want_flags, glibc-hwcaps entries
 * ranked by hw (NULL: none usable), legacy-hwcap entries skipped (as glibc
 * >= 2.37 does).  NULL when there is none.
 */
const struct ldcache_entry *ldcache_lookup(const struct ldcache *c, const char *soname,
					   int32_t want_flags, const struct ldcache_hw *hw);
/* glibc's _dl_cache_libcmp: digit runs compare numerically. */
int ldcache_libcmp(const char *a, const char *b);
/* "libc6,x86-64" style description of flags, as ldconfig -p prints it. */
const char *ldcache_flags_name(int32_t flags);
const char *ldcache_format_name(enum ldcache_format f);

#endif
