/* bench_dl.c - dlopen/dlsym helpers for the bench children; see bench_dl.h. */
#include "bench/bench_dl.h"
#include "core/xalloc.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

int bench_dl_open(const char *name, void **handle, char **path, struct err *e)
{
	struct link_map *lm = NULL;

	*path = NULL;
	*handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!*handle) {
		const char *why = dlerror();

		return err_set(e, "cannot load %s: %s", name, why ? why : "unknown error");
	}
	if (dlinfo(*handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name)
		*path = xstrdup(lm->l_name);
	return 0;
}

/* Copied through memcpy: ISO C leaves the object-to-function pointer cast undefined. */
int bench_dl_sym(void *handle, const char *name, void *fnptr)
{
	void *p = dlsym(handle, name);

	if (!p)
		return -1;
	memcpy(fnptr, &p, sizeof(p));
	return 0;
}
