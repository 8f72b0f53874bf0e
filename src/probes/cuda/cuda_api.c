/* cuda_api.c - binding the CUDA driver API into struct cu_api; see cuda_api.h. */
#include "probes/cuda/cuda_api.h"

#include <stddef.h>

struct cuda_row {
	size_t off;		/* of the slot in struct cu_api */
	const char *name, *fallback;
};

#define CUDA_API_ROW(slot, params, name, fallback) \
	[CUDA_FN_##slot] = { offsetof(struct cu_api, slot), name, fallback },
static const struct cuda_row cuda_rows[CUDA_FN_COUNT] = { CUDA_API_FUNCS(CUDA_API_ROW) };
#undef CUDA_API_ROW

int cuda_api_bind(void *handle, struct cu_api *cu, const struct cuda_want *want, size_t n,
		  struct cuda_symtab_missing *m)
{
	void *h = cu->handle;
	char *path = cu->path;
	int ret = 0;

	*cu = (struct cu_api){ .handle = h, .path = path };
	for (size_t i = 0; i < n; i++) {
		const struct cuda_row *r;
		struct cuda_sym s;

		if ((unsigned)want[i].fn >= CUDA_FN_COUNT)
			continue;
		r = &cuda_rows[want[i].fn];
		s.slot = (void **)((char *)cu + r->off);
		s.name = r->name;
		s.fallback = want[i].no_fallback ? NULL : r->fallback;
		s.need = want[i].need;
		if (cuda_symtab_bind(handle, &s, 1, m) < 0)
			ret = -1;
	}
	return ret;
}
