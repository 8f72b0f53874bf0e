/* inventory_json_containers.c - the "containers" object of the inventory JSON. */
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

static void limit(struct json *j, const char *key, long long v)
{
	if (v == -2)
		json_str(j, key, "unlimited");
	else
		json_int_nonneg(j, key, v);
}

static void env_json(const struct ctr_env *env, struct json *j)
{
	char caps[128];

	json_obj_begin(j, "toolkit_env");
	json_str(j, "NVIDIA_VISIBLE_DEVICES", env->visible_raw);
	json_str(j, "NVIDIA_DRIVER_CAPABILITIES", env->caps_raw);
	json_str(j, "NVIDIA_REQUIRE_CUDA", env->require_cuda);
	json_str(j, "CUDA_VERSION", env->cuda_version);
	json_bool(j, "legacy_image", env->legacy);
	json_str(j, "devices", ctr_visible_name(env->visible));
	json_str(j, "capabilities", ctr_caps_str(env->caps, caps, sizeof(caps)));
	json_str(j, "capabilities_from", env->caps_from == 0 ? "default" :
		 env->caps_from == 1 ? "variable" : "legacy image");
	json_str(j, "unknown_capabilities", env->caps_unknown);
	json_str_array(j, "requirements", env->requires, env->nrequires);
	json_bool(j, "requirements_disabled", env->require_disabled);
	json_obj_end(j);
}

static void host_json(const struct ctr_host *h, struct json *j)
{
	json_obj_begin(j, "host");
	json_obj_begin(j, "tools");
	json_str(j, "nvidia-ctk", h->nvidia_ctk);
	json_str(j, "nvidia-container-cli", h->nvidia_container_cli);
	json_str(j, "nvidia-container-runtime", h->nvidia_container_runtime);
	json_str(j, "nvidia-container-runtime-hook", h->nvidia_hook);
	json_str(j, "dockerd", h->dockerd);
	json_str(j, "podman", h->podman);
	json_str(j, "containerd", h->containerd);
	json_str(j, "kubelet", h->kubelet);
	json_str(j, "crio", h->crio);
	json_obj_end(j);
	json_obj_begin(j, "toolkit_config");
	json_int(j, "read", h->toolkit_config);
	json_str(j, "error", h->toolkit_config_error);
	json_str(j, "mode", h->toolkit_mode);
	json_tribool(j, "no_cgroups", h->no_cgroups);
	json_str_array(j, "cdi_spec_dirs", h->spec_dirs, h->nspec_dirs);
	json_obj_end(j);
	json_obj_begin(j, "docker");
	json_int(j, "read", h->docker_config);
	json_str(j, "error", h->docker_config_error);
	json_str_array(j, "runtimes", h->docker_runtimes, h->ndocker_runtimes);
	json_bool(j, "nvidia_runtime", h->docker_nvidia_runtime);
	json_str(j, "default_runtime", h->docker_default_runtime);
	json_tribool(j, "cdi", h->docker_cdi);
	json_obj_end(j);
	json_obj_begin(j, "containerd");
	json_str(j, "file", h->containerd_config_file);
	json_int(j, "read", h->containerd_config);
	json_str(j, "error", h->containerd_config_error);
	json_bool(j, "nvidia_runtime", h->containerd_nvidia_runtime);
	json_str(j, "default_runtime", h->containerd_default_runtime);
	json_tribool(j, "cdi", h->containerd_cdi);
	json_obj_end(j);
	json_str(j, "podman_oci_hook", h->podman_oci_hook);
	json_int_nonneg(j, "cgroup_version", h->cgroup_version);
	json_arr_begin(j, "cdi_specs");
	for (size_t i = 0; i < h->nspecs; i++) {
		const struct cdi_spec *s = &h->specs[i];

		json_obj_begin(j, NULL);
		json_str(j, "file", s->file);
		json_str(j, "error", s->error);
		json_str(j, "cdi_version", s->cdi_version);
		json_str(j, "kind", s->kind);
		json_str_array(j, "devices", s->devices, s->ndevices);
		json_str_array(j, "driver_versions", s->lib_versions, s->nlib_versions);
		json_str(j, "host_driver_version", s->host_driver_version);
		json_arr_begin(j, "missing_paths");
		for (size_t k = 0; k < s->npaths; k++)
			if (s->paths[k].exists == 0)
				json_str(j, NULL, s->paths[k].path);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void inventory_json_containers(const struct inventory *inv, struct json *j)
{
	const struct containers_inventory *c = &inv->containers;

	json_obj_begin(j, "containers");
	json_bool(j, "in_container", c->in_container);
	json_bool(j, "unpacked_image", c->image_root);
	json_str(j, "markers", c->markers);
	json_str(j, "markers_ignored", c->markers_ignored);
	json_str(j, "engine", c->in_container ? ctr_engine_name(c->engine) : NULL);
	json_str(j, "engine_detail", c->engine_detail);
	env_json(&c->env, j);
	json_arr_begin(j, "nodes");
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct ctr_node *n = &c->nodes[i];

		json_obj_begin(j, NULL);
		json_str(j, "path", n->path);
		json_bool(j, "char_device", n->is_chr);
		json_int_nonneg(j, "major", n->major);
		json_int_nonneg(j, "minor", n->minor);
		json_int_nonneg(j, "open_errno", n->open_errno);
		json_tribool(j, "dev_char_link", n->char_link);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_tribool(j, "cgroup_allows_nvidia", c->cgroup_allows_nvidia);
	json_arr_begin(j, "driver_libraries");
	for (size_t i = 0; i < c->nlibs; i++) {
		const struct ctr_lib *l = &c->libs[i];

		json_obj_begin(j, NULL);
		json_str(j, "path", l->path);
		json_str(j, "version", l->version);
		json_tribool(j, "bind_mounted", l->bind_mounted);
		json_bool(j, "compat", l->compat);
		json_tribool(j, "on_loader_path", l->compat ? l->on_loader_path : -1);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_str(j, "nvidia_smi", c->nvidia_smi);
	json_int_nonneg(j, "shm_bytes", c->shm_bytes);
	json_str(j, "shm_source", c->shm_source);
	limit(j, "memlock_soft", c->memlock_soft);
	limit(j, "memlock_hard", c->memlock_hard);
	json_int(j, "rdma_devices", c->rdma_devices);
	host_json(&c->host, j);
	json_obj_end(j);
}
