/*
 * kv.h - the line protocol between gpudoctor and its isolated children.
 *
 * A child writes "key=value" lines to stdout and a last line "end"; values
 * never contain newlines (kv_emit replaces them).  The parent parses them
 * into a struct kvlist; a missing "end" means the child died part-way, which
 * is itself a finding.  Keys for repeated things carry an index:
 * "gpu.0.name=NVIDIA H200".
 */
#ifndef GD_KV_H
#define GD_KV_H

#include <stddef.h>

struct kv {
	char *key;
	char *val;
};

struct kvlist {
	struct kv *items;
	size_t n, cap;
	int complete;		/* the "end" line was seen */
};

#define KVLIST_INIT { NULL, 0, 0, 0 }

/* Parse text (not NUL-required beyond len); lines without '=' are ignored. */
void kvlist_parse(struct kvlist *l, const char *text, size_t len);
void kvlist_add(struct kvlist *l, const char *key, const char *val);
void kvlist_release(struct kvlist *l);
/* Last value for key, or NULL. */
const char *kv_get(const struct kvlist *l, const char *key);
/* printf-style key. */
const char *kv_getf(const struct kvlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Integer value, or def when absent or not a number. */
long long kv_get_ll(const struct kvlist *l, const char *key, long long def);
double kv_get_double(const struct kvlist *l, const char *key, double def);

/* Child side: write one "key=value" line to stdout, newlines flattened. */
void kv_emit(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kv_end(void);

#endif
