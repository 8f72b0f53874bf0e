/*
 * containers_docker.c - Docker's /etc/docker/daemon.json: the runtimes it
 * knows ("runtimes": {"nvidia": {"path": "nvidia-container-runtime",
 * "args": []}}, as `nvidia-ctk runtime configure --runtime=docker` writes
 * it), "default-runtime", and "features": {"cdi": true}.  Docker's --gpus
 * needs neither: it runs nvidia-container-runtime-hook from dockerd's PATH
 * (moby daemon/nvidia_linux.go); the runtime entry serves --runtime=nvidia
 * and CDI serves --device nvidia.com/gpu=all.
 */
#include "probes/containers/containers.h"
#include "cfg/doc.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int is_nvidia_runtime(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && !strncmp(base, "nvidia-container-runtime", 24);
}

int ctr_read_docker_daemon(const char *text, size_t len, struct ctr_host *h, struct err *e)
{
	struct doc d;
	const struct doc *rt, *def;

	if (doc_parse_json(text, len, &d, e) < 0)
		return -1;
	if (d.type != DOC_MAP) {
		doc_release(&d);
		return err_set(e, "not a JSON object");
	}
	rt = doc_get(&d, "runtimes");
	for (size_t i = 0; rt && rt->type == DOC_MAP && i < rt->n && i < 64; i++) {
		const struct doc *r = doc_at(rt, i);
		const char *path = doc_str(doc_get(r, "path"));

		h->docker_runtimes = xrealloc(h->docker_runtimes,
					      (h->ndocker_runtimes + 1) * sizeof(char *));
		h->docker_runtimes[h->ndocker_runtimes++] =
			xasprintf("%s=%s", r->key ? r->key : "?", path ? path : "(no path)");
		if (is_nvidia_runtime(path))
			h->docker_nvidia_runtime = 1;
	}
	def = doc_get(&d, "default-runtime");
	if (doc_str(def)) {
		free(h->docker_default_runtime);
		h->docker_default_runtime = xstrdup(doc_str(def));
	}
	h->docker_cdi = doc_bool(doc_get(doc_get(&d, "features"), "cdi"));
	doc_release(&d);
	return 0;
}
