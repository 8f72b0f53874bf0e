/* kb.c - knowledge base.  (stub: answers "unknown" until the tables land) */
#include "knowledge/kb.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kb {
	int unused;
};

int kb_open(const char *dir, struct kb **out, struct err *e)
{
	(void)dir;
	(void)e;
	*out = xcalloc(1, sizeof(**out));
	return 0;
}

void kb_close(struct kb *kb)
{
	free(kb);
}

static int kb_unknown(struct kb_verdict *v)
{
	if (v) {
		v->ok = -1;
		snprintf(v->why, sizeof(v->why), "not in the knowledge base");
		v->source = NULL;
	}
	return -1;
}

const struct kb_gpu *kb_gpu_by_pci(const struct kb *kb, unsigned vendor, unsigned device)
{
	(void)kb; (void)vendor; (void)device;
	return NULL;
}

int kb_driver_cuda_version(const struct kb *kb, const char *driver_version)
{
	(void)kb; (void)driver_version;
	return -1;
}

const char *kb_cuda_min_driver(const struct kb *kb, int cuda_version)
{
	(void)kb; (void)cuda_version;
	return NULL;
}

int kb_driver_runs_cuda(const struct kb *kb, const char *driver_version, int cuda_version,
			int datacenter_gpu, struct kb_verdict *v)
{
	(void)kb; (void)driver_version; (void)cuda_version; (void)datacenter_gpu;
	return kb_unknown(v);
}

int kb_arch_runs(const char *const *archs, size_t n, int cc_major, int cc_minor,
		 struct kb_verdict *v)
{
	(void)archs; (void)n; (void)cc_major; (void)cc_minor;
	return kb_unknown(v);
}

int kb_cudnn_satisfies(const char *runtime, const char *built, struct kb_verdict *v)
{
	(void)runtime; (void)built;
	return kb_unknown(v);
}

void kb_cudnn_decode(long v, int *major, int *minor, int *patch)
{
	if (v >= 90000) {
		*major = (int)(v / 10000);
		*minor = (int)(v % 10000 / 100);
	} else {
		*major = (int)(v / 1000);
		*minor = (int)(v % 1000 / 100);
	}
	*patch = (int)(v % 100);
}

const char *kb_soname(const struct kb *kb, int cuda_major, const char *lib)
{
	(void)kb; (void)cuda_major; (void)lib;
	return NULL;
}

const struct kb_tf *kb_tf_release(const struct kb *kb, const char *version)
{
	(void)kb; (void)version;
	return NULL;
}
