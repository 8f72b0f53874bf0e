/* cudnn_api.c - binding cuDNN's version calls by name; see cudnn_api.h. */
#include "probes/libraries/cudnn_api.h"

#include <dlfcn.h>

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
#define BIND(h, api, field) (*(void **)&(api)->field = dlsym((h), #field))

int cudnn_api_bind_version(void *handle, struct cudnn_api *api, const char **missing)
{
	if (!BIND(handle, api, cudnnGetVersion)) {
		*missing = "cudnnGetVersion";
		return -1;
	}
	return 0;
}

void cudnn_api_bind_optional(void *handle, struct cudnn_api *api)
{
	BIND(handle, api, cudnnGetLastErrorString);
	BIND(handle, api, cudnnGetCudartVersion);
}
