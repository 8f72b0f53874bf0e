/* osrel.c - os-release values; see osrel.h. */
#include "cfg/osrel.h"
#include "core/xalloc.h"

#include <string.h>

char *osrel_value(const char *text, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (n > k && !strncmp(p, key, k) && p[k] == '=') {
			const char *v = p + k + 1;
			size_t len = n - k - 1;

			if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
				v++;
				len -= 2;
			}
			return xstrndup(v, len);
		}
		p += n + (p[n] == '\n');
	}
	return NULL;
}
