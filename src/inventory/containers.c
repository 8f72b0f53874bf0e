/* containers.c - the containers part of the inventory: its lifecycle and names; see containers.h. */
#include "inventory/containers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned bit;
} cap_names[] = {
	{ "compute", CTR_CAP_COMPUTE }, { "compat32", CTR_CAP_COMPAT32 },
	{ "graphics", CTR_CAP_GRAPHICS }, { "utility", CTR_CAP_UTILITY },
	{ "video", CTR_CAP_VIDEO }, { "display", CTR_CAP_DISPLAY }, { "ngx", CTR_CAP_NGX },
};

const char *ctr_caps_str(unsigned caps, char *buf, size_t bufsz)
{
	size_t used = 0;

	if (!bufsz)
		return "";
	buf[0] = '\0';
	if ((caps & CTR_CAP_ALL) == CTR_CAP_ALL) {
		snprintf(buf, bufsz, "all");
		return buf;
	}
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		int n;

		if (!(caps & cap_names[i].bit))
			continue;
		n = snprintf(buf + used, bufsz - used, "%s%s", used ? "," : "", cap_names[i].name);
		if (n < 0 || (size_t)n >= bufsz - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

unsigned ctr_cap_bit(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if (strlen(cap_names[i].name) == n && !memcmp(name, cap_names[i].name, n))
			return cap_names[i].bit;
	return 0;
}

const char *ctr_engine_name(enum ctr_engine e)
{
	switch (e) {
	case CTR_ENGINE_UNKNOWN: return "unknown";
	case CTR_ENGINE_DOCKER: return "docker";
	case CTR_ENGINE_PODMAN: return "podman";
	case CTR_ENGINE_CONTAINERD: return "containerd";
	case CTR_ENGINE_KUBERNETES: return "kubernetes";
	case CTR_ENGINE_LXC: return "lxc";
	case CTR_ENGINE_NSPAWN: return "systemd-nspawn";
	}
	return "?";
}

void containers_inventory_init(struct containers_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->cgroup_allows_nvidia = -1;
	p->shm_bytes = -1;
	p->memlock_soft = p->memlock_hard = -1;
	p->host.no_cgroups = -1;
	p->host.docker_cdi = -1;
	p->host.containerd_cdi = -1;
	p->host.cgroup_version = -1;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void containers_inventory_release(struct containers_inventory *p)
{
	struct ctr_host *h = &p->host;

	free(p->markers);
	free(p->markers_ignored);
	free(p->engine_detail);
	ctr_env_release(&p->env);
	for (size_t i = 0; i < p->nnodes; i++)
		free(p->nodes[i].path);
	free(p->nodes);
	free(p->cgroup_devices_evidence);
	for (size_t i = 0; i < p->nlibs; i++) {
		free(p->libs[i].path);
		free(p->libs[i].name);
		free(p->libs[i].version);
	}
	free(p->libs);
	free(p->nvidia_smi);
	free(h->nvidia_ctk);
	free(h->nvidia_container_cli);
	free(h->nvidia_container_runtime);
	free(h->nvidia_hook);
	free(h->dockerd);
	free(h->podman);
	free(h->containerd);
	free(h->kubelet);
	free(h->crio);
	free(h->toolkit_config_error);
	free(h->toolkit_mode);
	free_strv(h->spec_dirs, h->nspec_dirs);
	free(h->docker_config_error);
	free_strv(h->docker_runtimes, h->ndocker_runtimes);
	free(h->docker_default_runtime);
	free(h->containerd_config_file);
	free(h->containerd_config_error);
	free(h->containerd_default_runtime);
	free(h->podman_oci_hook);
	for (size_t i = 0; i < h->nspecs; i++)
		cdi_spec_release(&h->specs[i]);
	free(h->specs);
	memset(p, 0, sizeof(*p));
}

const char *ctr_visible_name(enum ctr_visible v)
{
	switch (v) {
	case CTR_VIS_VOID: return "void";
	case CTR_VIS_NONE: return "none";
	case CTR_VIS_ALL: return "all";
	case CTR_VIS_LIST: return "list";
	}
	return "?";
}

void ctr_env_release(struct ctr_env *env)
{
	for (size_t i = 0; i < env->nrequires; i++)
		free(env->requires[i]);
	free(env->requires);
	free(env->caps_unknown);
	memset(env, 0, sizeof(*env));
}

void cdi_spec_release(struct cdi_spec *s)
{
	free(s->file);
	free(s->error);
	free(s->cdi_version);
	free(s->kind);
	for (size_t i = 0; i < s->ndevices; i++)
		free(s->devices[i]);
	free(s->devices);
	for (size_t i = 0; i < s->npaths; i++) {
		free(s->paths[i].path);
		free(s->paths[i].what);
		free(s->paths[i].device);
	}
	free(s->paths);
	for (size_t i = 0; i < s->nlib_versions; i++)
		free(s->lib_versions[i]);
	free(s->lib_versions);
	free(s->host_driver_version);
	memset(s, 0, sizeof(*s));
}
