/* linememo.c - the line-to-match memo; see linememo.h. */
#include "explain/linememo.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * Eight bytes a step, mixed by a multiply: every line is hashed, so this
 * must cost less than the automaton's byte-by-byte walk it replaces.  A
 * collision costs a miss (the text is compared), never a wrong answer.
 */
static uint64_t hash_text(const char *text, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, text + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, text + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

const struct linememo_slot *linememo_find(struct linememo *mm, const char *text, size_t len,
					  uint64_t *hash)
{
	const struct linememo_slot *s;

	*hash = 0;
	if (len == 0 || len > LINEMEMO_MAX_LINE)
		return NULL;
	*hash = hash_text(text, len);
	if (!mm->slot) {
		mm->missed++;
		return NULL;
	}
	s = &mm->slot[*hash % LINEMEMO_SLOTS];
	if (s->len != len || s->hash != *hash || memcmp(s->text, text, len)) {
		mm->missed++;
		return NULL;
	}
	mm->found++;
	return s;
}

void linememo_put(struct linememo *mm, uint64_t hash, const char *text, size_t len,
		  const struct linememo_slot *r)
{
	struct linememo_slot *s;

	if (len == 0 || len > LINEMEMO_MAX_LINE || r->nev > LINEMEMO_MAX_EV)
		return;
	if (!mm->slot)
		mm->slot = xcalloc(LINEMEMO_SLOTS, sizeof(*mm->slot));
	s = &mm->slot[hash % LINEMEMO_SLOTS];
	if (s->cap < len) {
		s->text = xrealloc(s->text, len);
		s->cap = len;
	}
	memcpy(s->text, text, len);
	s->len = len;
	s->hash = hash;
	s->rule = r->rule;
	memcpy(s->off, r->off, sizeof(s->off));
	memcpy(s->clen, r->clen, sizeof(s->clen));
	s->won_start = r->won_start;
	s->won_end = r->won_end;
	memcpy(s->ev, r->ev, sizeof(s->ev));
	s->nev = r->nev;
}

void linememo_release(struct linememo *mm)
{
	if (mm->slot)
		for (size_t i = 0; i < LINEMEMO_SLOTS; i++)
			free(mm->slot[i].text);
	free(mm->slot);
	memset(mm, 0, sizeof(*mm));
}
