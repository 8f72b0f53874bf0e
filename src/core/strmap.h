/*
 * strmap.h - a string -> index hash map, for de-duplicating long lists in
 * linear time (10,000 LD_LIBRARY_PATH entries, 10,000 knowledge-base rows).
 *
 * Keys are borrowed: they must outlive the map (usually they are the
 * strings of the list being de-duplicated).
 *
 *	struct strmap m = STRMAP_INIT;
 *	size_t at;
 *	if (strmap_get(&m, dir, &at)) ... dir is list[at] ...
 *	else strmap_put(&m, dir, n++);
 *	strmap_release(&m);
 */
#ifndef GD_STRMAP_H
#define GD_STRMAP_H

#include <stddef.h>

struct strmap_slot {
	const char *key;
	size_t val;
};

struct strmap {
	struct strmap_slot *slot;
	size_t cap, n;		/* cap is 0 or a power of two, at most half full */
};

#define STRMAP_INIT { NULL, 0, 0 }

/* 1 and *val when key is there, else 0. */
int strmap_get(const struct strmap *m, const char *key, size_t *val);
/* Add key (or replace its value). */
void strmap_put(struct strmap *m, const char *key, size_t val);
/* strmap_put unless key is there: 1 when added, 0 when it was there. */
int strmap_add(struct strmap *m, const char *key, size_t val);
void strmap_release(struct strmap *m);

#endif
