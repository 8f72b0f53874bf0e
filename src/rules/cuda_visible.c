/*
 * cuda_visible.c - CUDA_VISIBLE_DEVICES applied to the GPUs of the
 * inventory, by CUDA's documented rules; see cuda_visible.h.
 */
#include "rules/cuda_visible.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Does "MIG-<uuid>" (drivers >= R470) name one of the MIG devices?  1 or 0. */
static int cuda_visible_mig(const char *tok, const char *const *mig, size_t nmig)
{
	int hits = 0;

	for (size_t i = 0; i < nmig; i++)
		if (mig[i] && !strncasecmp(mig[i], tok, strlen(tok)))
			hits++;
	return hits == 1;
}

/* Does entry (trimmed) name a GPU?  Index into uuids (count for a MIG device), or -1. */
static int cuda_visible_match(const char *tok, int count, const char *const *uuids,
			      const char *const *mig, size_t nmig)
{
	char *end;
	long idx;
	int hit = -1;

	if (isdigit((unsigned char)tok[0])) {
		idx = strtol(tok, &end, 10);
		if (*end == 0)
			return idx < count ? (int)idx : -1;
		return -1;
	}
	/* "GPU-8932f937" (a unique prefix of a UUID) or "MIG-GPU-.../..." */
	if (!strncasecmp(tok, "MIG-", 4) && strncasecmp(tok + 4, "GPU-", 4))
		return tok[4] && cuda_visible_mig(tok, mig, nmig) ? count : -1;
	if (!strncasecmp(tok, "MIG-", 4))
		tok += 4;
	if (strncasecmp(tok, "GPU-", 4) != 0 || !uuids)
		return -1;
	for (int i = 0; i < count; i++) {
		size_t n = strcspn(tok, "/");

		if (uuids[i] && !strncasecmp(uuids[i], tok, n)) {
			if (hit >= 0)
				return -1;	/* ambiguous prefix */
			hit = i;
		}
	}
	return hit;
}

int cuda_visible_count(const char *value, int count, const char *const *uuids, struct buf *why)
{
	return cuda_visible_count_mig(value, count, uuids, NULL, 0, why);
}

int cuda_visible_count_mig(const char *value, int count, const char *const *uuids,
			   const char *const *mig, size_t nmig, struct buf *why)
{
	char *copy, *save = NULL, *tok;
	int visible = 0, seen_unknown = 0;

	buf_reset(why);
	if (!value)
		return count;
	while (isspace((unsigned char)*value))
		value++;
	if (!*value) {
		buf_puts(why, "it is set to an empty value, which hides every GPU");
		return 0;
	}
	copy = xstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *t = tok, *e;
		int m;

		while (isspace((unsigned char)*t))
			t++;
		e = t + strlen(t);
		while (e > t && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (count < 0) {
			/* Without the GPU list only a first entry that can never match is sure. */
			if (visible == 0 && !seen_unknown && !isdigit((unsigned char)*t) &&
			    strncasecmp(t, "GPU-", 4) && strncasecmp(t, "MIG-", 4)) {
				buf_printf(why, "its first entry '%s' is not a GPU index or UUID, "
					   "which hides every GPU", t);
				free(copy);
				return 0;
			}
			seen_unknown = 1;
			continue;
		}
		m = cuda_visible_match(t, count, uuids, mig, nmig);
		if (m < 0) {
			buf_printf(why, "entry '%s' matches no GPU of the %d present, and CUDA "
				   "ignores it and everything after it", t, count);
			break;
		}
		visible++;
	}
	free(copy);
	return count < 0 ? -1 : visible;
}
