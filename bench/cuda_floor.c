/*
 * cuda_floor.c - the floor a full `gpudoctor check` is measured against:
 * a process that loads libcuda, calls cuInit and creates a context, nothing
 * else.  Built by bench/speed.sh; not part of gpudoctor.
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_ctx_create_fn)(void **, unsigned, int);
typedef int (*cu_ctx_destroy_fn)(void *);

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cu_init_fn init;
	cu_device_get_fn get;
	cu_ctx_create_fn create;
	cu_ctx_destroy_fn destroy;
	void *ctx;
	int dev, rc;

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	init = (cu_init_fn)dlsym(h, "cuInit");
	get = (cu_device_get_fn)dlsym(h, "cuDeviceGet");
	create = (cu_ctx_create_fn)dlsym(h, "cuCtxCreate_v2");
	destroy = (cu_ctx_destroy_fn)dlsym(h, "cuCtxDestroy_v2");
	if (!init || !get || !create || !destroy)
		return 1;
	if ((rc = init(0)) || (rc = get(&dev, 0)) || (rc = create(&ctx, 0, dev))) {
		fprintf(stderr, "CUresult %d\n", rc);
		return 1;
	}
	destroy(ctx);
	return 0;
}
