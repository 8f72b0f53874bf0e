/* nccl_api.c - binding NCCL's version call by name; see nccl_api.h. */
#include "probes/libraries/nccl_api.h"

#include <dlfcn.h>

int nccl_api_bind_version(void *handle, struct nccl_api *api, const char **missing)
{
	/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
	*(void **)&api->ncclGetVersion = dlsym(handle, "ncclGetVersion");
	if (!api->ncclGetVersion) {
		*missing = "ncclGetVersion";
		return -1;
	}
	return 0;
}
