/* strmap.c - open addressing, FNV-1a, linear probing; see strmap.h. */
#include "core/strmap.h"
#include "core/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

static struct strmap_slot *strmap_find(const struct strmap *m, const char *key)
{
	size_t i;

	for (i = strmap_hash(key) & (m->cap - 1); m->slot[i].key; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->slot[i].key, key))
			break;
	return &m->slot[i];
}

int strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	const struct strmap_slot *s;

	if (!m->cap)
		return 0;
	s = strmap_find(m, key);
	if (!s->key)
		return 0;
	if (val)
		*val = s->val;
	return 1;
}

static void strmap_grow(struct strmap *m)
{
	struct strmap bigger = { NULL, m->cap ? 2 * m->cap : 64, 0 };

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key)
			*strmap_find(&bigger, m->slot[i].key) = m->slot[i];
	bigger.n = m->n;
	free(m->slot);
	*m = bigger;
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
	struct strmap_slot *s;

	if (2 * (m->n + 1) > m->cap)
		strmap_grow(m);
	s = strmap_find(m, key);
	if (!s->key) {
		s->key = key;
		m->n++;
	}
	s->val = val;
}

int strmap_add(struct strmap *m, const char *key, size_t val)
{
	if (strmap_get(m, key, NULL))
		return 0;
	strmap_put(m, key, val);
	return 1;
}

void strmap_release(struct strmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
