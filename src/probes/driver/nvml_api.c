/* nvml_api.c - binding NVML's entry points into struct nvml_api; see nvml_api.h. */
#include "probes/driver/nvml_api.h"

#include <stddef.h>

struct nvml_row {
	size_t off;		/* of the slot in struct nvml_api */
	const char *name, *fallback;
};

#define NVML_API_ROW(slot, ret, params, name, fallback) \
	[NVML_FN_##slot] = { offsetof(struct nvml_api, slot), name, fallback },
static const struct nvml_row nvml_rows[NVML_FN_COUNT] = { NVML_API_FUNCS(NVML_API_ROW) };
#undef NVML_API_ROW

int nvml_api_bind(void *handle, struct nvml_api *api, const struct nvml_want *want, size_t n,
		  struct cuda_symtab_missing *m)
{
	int ret = 0;

	*api = (struct nvml_api){ 0 };
	for (size_t i = 0; i < n; i++) {
		const struct nvml_row *r;
		struct cuda_sym s;

		if ((unsigned)want[i].fn >= NVML_FN_COUNT)
			continue;
		r = &nvml_rows[want[i].fn];
		s.slot = (void **)((char *)api + r->off);
		s.name = r->name;
		s.fallback = want[i].no_fallback ? NULL : r->fallback;
		s.need = want[i].need;
		if (cuda_symtab_bind(handle, &s, 1, m) < 0)
			ret = -1;
	}
	return ret;
}
