/*
 * containers_cdi.c - a CDI spec (Container Device Interface,
 * tags.cncf.io/container-device-interface specs-go/config.go) from its
 * parsed tree: kind, device names, and every host path the spec would bind
 * or run (device nodes, mounts, hooks), so that the probe can check them
 * against the machine.  The shape is what `nvidia-ctk cdi generate` writes
 * (NVIDIA/nvidia-container-toolkit cmd/nvidia-ctk/cdi/generate/
 * generate_test.go @d34b3046): devices[].containerEdits and a top-level
 * containerEdits with deviceNodes, mounts (hostPath, containerPath) and
 * hooks (path, args, one of them "enable-cuda-compat
 * --host-driver-version=V").
 */
#include "probes/containers/containers.h"
#include "cfg/doc.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define CDI_MAX_PATHS 4096
#define CDI_MAX_DEVICES 1024

static int is_version(const char *s)
{
	int parts = 0, digits = 0, first = 0;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			digits++;
			if (parts == 0)
				first = first * 10 + (*s - '0');
			if (first > 100000)
				return 0;
		} else if (*s == '.' && digits) {
			parts++;
			digits = 0;
		} else {
			return 0;
		}
	}
	/* driver versions: 580.95.05, 535.104.05, 999.88.77 (never libcuda.so.1.1) */
	return digits && parts >= 1 && first >= 100;
}

int ctr_driver_lib_version(const char *name, char *ver, size_t versz)
{
	const char *so = strstr(name, ".so.");
	const char *v;

	if (!so || !versz)
		return -1;
	if (strncmp(name, "libcuda", 7) && !strstr(name, "nvidia") && strncmp(name, "libnvcuvid", 10) &&
	    strncmp(name, "libnvoptix", 10))
		return -1;
	v = so + 4;
	if (!is_version(v) || strlen(v) >= versz)
		return -1;
	strcpy(ver, v);
	return 0;
}

static void add_path(struct cdi_spec *s, const char *path, const char *what, const char *device)
{
	struct cdi_path *p;

	if (!path || !*path || s->npaths >= CDI_MAX_PATHS)
		return;
	XGROW(s->paths, s->npaths, s->paths_cap);
	p = &s->paths[s->npaths++];
	p->path = xstrdup(path);
	p->what = xstrdup(what);
	p->device = xstrdup_or_null(device);
	p->exists = -1;
}

static void add_lib_version(struct cdi_spec *s, const char *path)
{
	const char *base = strrchr(path, '/');
	char ver[64];

	base = base ? base + 1 : path;
	if (ctr_driver_lib_version(base, ver, sizeof(ver)) < 0)
		return;
	for (size_t i = 0; i < s->nlib_versions; i++)
		if (!strcmp(s->lib_versions[i], ver))
			return;
	if (s->nlib_versions >= 64)
		return;
	s->lib_versions = xrealloc(s->lib_versions, (s->nlib_versions + 1) * sizeof(char *));
	s->lib_versions[s->nlib_versions++] = xstrdup(ver);
}

static void read_edits(struct cdi_spec *s, const struct doc *edits, const char *device)
{
	const struct doc *nodes = doc_get(edits, "deviceNodes");
	const struct doc *mounts = doc_get(edits, "mounts");
	const struct doc *hooks = doc_get(edits, "hooks");

	for (size_t i = 0; i < doc_len(nodes); i++) {
		const struct doc *n = doc_at(nodes, i);
		const char *p = doc_str(doc_get(n, "hostPath"));

		add_path(s, p ? p : doc_str(doc_get(n, "path")), "device node", device);
	}
	for (size_t i = 0; i < doc_len(mounts); i++) {
		const char *p = doc_str(doc_get(doc_at(mounts, i), "hostPath"));

		if (!p)
			continue;
		add_path(s, p, "mount", device);
		add_lib_version(s, p);
	}
	for (size_t i = 0; i < doc_len(hooks); i++) {
		const struct doc *h = doc_at(hooks, i);
		const struct doc *args = doc_get(h, "args");

		add_path(s, doc_str(doc_get(h, "path")), "hook", device);
		for (size_t k = 0; k < doc_len(args); k++) {
			const char *a = doc_str(doc_at(args, k));
			static const char opt[] = "--host-driver-version=";

			if (a && !strncmp(a, opt, sizeof(opt) - 1) && !s->host_driver_version)
				s->host_driver_version = xstrdup(a + sizeof(opt) - 1);
		}
	}
}

int cdi_spec_from_doc(const struct doc *d, struct cdi_spec *out, char **why)
{
	const struct doc *devices;

	if (!d || d->type != DOC_MAP) {
		*why = xstrdup("not a CDI spec: the document is not a mapping");
		return -1;
	}
	out->cdi_version = xstrdup_or_null(doc_str(doc_get(d, "cdiVersion")));
	out->kind = xstrdup_or_null(doc_str(doc_get(d, "kind")));
	if (!out->kind) {
		*why = xstrdup("not a CDI spec: no \"kind\"");
		return -1;
	}
	devices = doc_get(d, "devices");
	for (size_t i = 0; i < doc_len(devices) && out->ndevices < CDI_MAX_DEVICES; i++) {
		const struct doc *dev = doc_at(devices, i);
		const char *name = doc_str(doc_get(dev, "name"));

		if (!name)
			continue;
		out->devices = xrealloc(out->devices, (out->ndevices + 1) * sizeof(char *));
		out->devices[out->ndevices++] = xstrdup(name);
		read_edits(out, doc_get(dev, "containerEdits"), name);
	}
	read_edits(out, doc_get(d, "containerEdits"), NULL);
	return 0;
}

int ctr_read_cdi_spec(const char *name, const char *text, size_t len, struct cdi_spec *s)
{
	struct doc d;
	struct err e = ERR_INIT;
	size_t n = strlen(name);
	int json = n >= 5 && !strcmp(name + n - 5, ".json");
	int rc;

	if ((json ? doc_parse_json(text, len, &d, &e) : doc_parse_yaml(text, len, &d, &e)) < 0) {
		s->error = xasprintf("not valid %s: %s", json ? "JSON" : "YAML", e.msg);
		return -1;
	}
	rc = cdi_spec_from_doc(&d, s, &s->error);
	doc_release(&d);
	return rc;
}
