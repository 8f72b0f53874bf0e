/* nvml_api.c - binding NVML's entry points into struct nvml_api; see nvml_api.h. */
#include "probes/driver/nvml_api.h"

#include <stddef.h>

#define NVML_API_ROW(slot, ret, params, name, fallback) \
	[NVML_FN_##slot] = { offsetof(struct nvml_api, slot), name, fallback },
static const struct cuda_sym_row nvml_rows[NVML_FN_COUNT] = { NVML_API_FUNCS(NVML_API_ROW) };
#undef NVML_API_ROW

int nvml_api_bind(void *handle, struct nvml_api *api, const struct cuda_sym_want *want, size_t n,
		  struct cuda_symtab_missing *m)
{
	*api = (struct nvml_api){ 0 };
	return cuda_symtab_bind_rows(handle, api, nvml_rows, NVML_FN_COUNT, want, n, m);
}
