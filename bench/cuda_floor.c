/*
 * cuda_floor.c - the floor a full `gpudoctor check` is measured against:
 * a process that loads libcuda, calls cuInit and creates a context on every
 * device, nothing else.  The contexts are made in parallel, one thread per
 * device, so on N GPUs the floor is cuInit plus the slowest context (what
 * gpudoctor's CUDA child does too); each is destroyed before exit, unless
 * --keep: then the process exits with its contexts (the driver tears them
 * down at exit), which is the stricter floor for a check that does not wait
 * for its child's teardown.
 * Built by bench/speed.sh (cc -O2 -pthread bench/cuda_floor.c -ldl); not part
 * of gpudoctor.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_ctx_create_fn)(void **, unsigned, int);
typedef int (*cu_ctx_destroy_fn)(void *);

static cu_device_get_fn get;
static cu_ctx_create_fn create;
static cu_ctx_destroy_fn destroy;

struct dev_run {
	int index;
	int rc;
	void *ctx;
};

static void *make_context(void *arg)
{
	struct dev_run *d = arg;
	int dev;

	if ((d->rc = get(&dev, d->index)) == 0)
		d->rc = create(&d->ctx, 0, dev);
	return NULL;
}

int main(int argc, char **argv)
{
	int keep = argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'k';
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cu_init_fn init;
	cu_count_fn count;
	struct dev_run runs[64];
	pthread_t th[64];
	int n = 0, rc, bad = 0;

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	init = (cu_init_fn)dlsym(h, "cuInit");
	count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
	get = (cu_device_get_fn)dlsym(h, "cuDeviceGet");
	create = (cu_ctx_create_fn)dlsym(h, "cuCtxCreate_v2");
	destroy = (cu_ctx_destroy_fn)dlsym(h, "cuCtxDestroy_v2");
	if (!init || !count || !get || !create || !destroy)
		return 1;
	if ((rc = init(0)) || (rc = count(&n)) || n < 1) {
		fprintf(stderr, "CUresult %d (%d devices)\n", rc, n);
		return 1;
	}
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		runs[i] = (struct dev_run){ i, 0, NULL };
		if (pthread_create(&th[i], NULL, make_context, &runs[i]) != 0)
			return 1;
	}
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		if (runs[i].rc) {
			fprintf(stderr, "device %d: CUresult %d\n", i, runs[i].rc);
			bad = 1;
		}
	}
	for (int i = 0; i < n && !keep; i++)
		if (runs[i].ctx)
			destroy(runs[i].ctx);
	return bad;
}
