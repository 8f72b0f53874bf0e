/* cuda_api.c - binding the CUDA driver API into struct cu_api; see cuda_api.h. */
#include "probes/cuda/cuda_api.h"

#include <stddef.h>

#define CUDA_API_ROW(slot, params, name, fallback) \
	[CUDA_FN_##slot] = { offsetof(struct cu_api, slot), name, fallback },
static const struct cuda_sym_row cuda_rows[CUDA_FN_COUNT] = { CUDA_API_FUNCS(CUDA_API_ROW) };
#undef CUDA_API_ROW

int cuda_api_bind(void *handle, struct cu_api *cu, const struct cuda_sym_want *want, size_t n,
		  struct cuda_symtab_missing *m)
{
	void *h = cu->handle;
	char *path = cu->path;

	*cu = (struct cu_api){ .handle = h, .path = path };
	return cuda_symtab_bind_rows(handle, cu, cuda_rows, CUDA_FN_COUNT, want, n, m);
}
