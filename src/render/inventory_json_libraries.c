/*
 * inventory_json_libraries.c - the libraries part of the inventory JSON.
 *
 * "libraries": one object per copy:
 *   {name, soname, path, realpath, version, version_source, reachable_as,
 *    winner, owner, origin, size_bytes, problem, readable, missing_deps,
 *    bytes_read, live_version}
 * "libraries_loader": the loader's winner for every soname asked, the cuDNN 9
 * sub-libraries each shim would load, /usr/local/cuda and nvcc, and the
 * live answers.  Unknown facts are null.
 */
#include "render/json_preloads.h"
#include "render/inventory_json.h"
#include "core/json.h"
#include "inventory/inventory.h"

#include <math.h>
#include <string.h>

static const struct lib_live *live_for(const struct libraries_inventory *li, const char *path)
{
	for (size_t i = 0; i < li->nlive; i++)
		if (strcmp(li->live[i].path, path) == 0)
			return &li->live[i];
	return NULL;
}

static void copy_json(const struct libraries_inventory *li, const struct lib_copy *c,
		      struct json *j)
{
	const struct lib_live *l = live_for(li, c->path);

	json_obj_begin(j, NULL);
	json_str(j, "name", c->family);
	json_str(j, "soname", c->soname);
	json_str(j, "path", c->path);
	json_str(j, "realpath", c->realpath);
	json_str(j, "version", c->version);
	json_str(j, "version_source", c->version_source);
	json_str(j, "reachable_as", c->reachable_as);
	json_bool(j, "winner", c->winner);
	json_str(j, "owner", c->owner);
	json_str(j, "conda_package", c->conda_spec);
	json_str(j, "origin", c->origin);
	json_int_nonneg(j, "size_bytes", c->size_bytes);
	json_str(j, "problem", c->problem);
	json_tribool(j, "readable", c->readable);
	json_bool(j, "root_only", c->root_only);
	json_str_array(j, "missing_deps", c->missing_deps, c->nmissing_deps);
	json_int(j, "bytes_read", (long long)c->bytes_touched);
	json_str(j, "runpath", c->runpath);
	json_str(j, "rpath", c->rpath);
	json_str(j, "live_version", l && l->ok ? l->version : NULL);
	json_obj_end(j);
}

static void loader_json(const struct libraries_inventory *li, struct json *j)
{
	json_obj_begin(j, "libraries_loader");
	json_str(j, "ld_library_path", li->ld_library_path);
	json_str(j, "ldso_error", li->ldso_error);
	json_str(j, "cache_error", li->cache_error);
	json_bool(j, "cache_stale", li->cache_stale);
	json_str(j, "cache_stale_reason", li->cache_stale_reason);
	json_preloads(j, "preloads", li->preloads, li->npreloads);
	json_arr_begin(j, "unreadable_dirs");
	for (size_t i = 0; i < li->nunreadable; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "dir", li->unreadable[i].dir);
		json_str(j, "error", li->unreadable[i].why);
		json_bool(j, "active_toolkit", li->unreadable[i].active);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_num(j, "seconds", li->probed ? li->seconds : NAN);
	json_arr_begin(j, "resolved");
	for (size_t i = 0; i < li->nresolved; i++) {
		const struct lib_resolved *r = &li->resolved[i];

		if (!r->path && !r->npassed_over)
			continue;	/* asked and absent: not worth a line */
		json_obj_begin(j, NULL);
		json_str(j, "soname", r->soname);
		json_str(j, "path", r->path);
		json_str(j, "realpath", r->realpath);
		json_str(j, "source", r->source);
		json_str(j, "from", r->from);
		json_str_array(j, "passed_over", r->passed_over, r->npassed_over);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "cudnn_subs");
	for (size_t i = 0; i < li->ncudnn_subs; i++) {
		const struct lib_cudnn_sub *s = &li->cudnn_subs[i];

		json_obj_begin(j, NULL);
		json_str(j, "shim", s->shim);
		json_str(j, "shim_version", s->shim_version);
		json_str(j, "soname", s->soname);
		json_str(j, "path", s->path);
		json_str(j, "version", s->version);
		json_str(j, "source", s->source);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "toolkits");
	for (size_t i = 0; i < li->ntoolkits; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", li->toolkits[i].path);
		json_str(j, "realpath", li->toolkits[i].realpath);
		json_str(j, "version", li->toolkits[i].version);
		json_str(j, "version_source", li->toolkits[i].version_source);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "conda_environments");
	for (size_t i = 0; i < li->nconda; i++) {
		const struct conda_env *ce = &li->conda[i];

		json_obj_begin(j, NULL);
		json_str(j, "prefix", ce->prefix);
		json_int(j, "unreadable_records", (long long)ce->skipped);
		json_arr_begin(j, "packages");
		for (size_t k = 0; k < ce->n; k++) {
			json_obj_begin(j, NULL);
			json_str(j, "name", ce->pkgs[k].name);
			json_str(j, "version", ce->pkgs[k].version);
			json_str(j, "build", ce->pkgs[k].build);
			json_str(j, "channel", ce->pkgs[k].channel);
			json_bool(j, "framework", ce->pkgs[k].framework);
			json_str_array(j, "libraries", ce->pkgs[k].libs, ce->pkgs[k].nlibs);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "usr_local_cuda");
	json_str(j, "state", li->cuda_link < 0 ? "absent" : li->cuda_link == 0 ? "directory" :
			     li->cuda_link == 1 ? "link" : "dangling");
	json_str(j, "target", li->cuda_link_target);
	json_str(j, "resolved", li->cuda_link_resolved);
	json_str(j, "version", li->cuda_link_version);
	json_obj_end(j);
	json_obj_begin(j, "nvcc");
	json_str(j, "path", li->nvcc_path);
	json_str(j, "wrapper", li->nvcc_wrapper);
	json_str(j, "toolkit", li->nvcc_toolkit);
	json_str(j, "version", li->nvcc_version);
	json_obj_end(j);
	json_str(j, "cudnn_header", li->cudnn_header);
	json_str(j, "cudnn_header_version", li->cudnn_header_version);
	json_arr_begin(j, "live");
	for (size_t i = 0; i < li->nlive; i++) {
		const struct lib_live *l = &li->live[i];

		json_obj_begin(j, NULL);
		json_str(j, "path", l->path);
		json_str(j, "kind", l->kind);
		json_bool(j, "ok", l->ok);
		json_str(j, "version", l->version);
		json_str(j, "raw", l->raw);
		json_str(j, "cudart_version", l->cudart_version);
		json_str(j, "static_version", l->static_version);
		json_str(j, "error", l->error);
		json_num(j, "seconds", l->seconds);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void inventory_json_libraries(const struct inventory *inv, struct json *j)
{
	const struct libraries_inventory *li = &inv->libs;

	json_arr_begin(j, "libraries");
	for (size_t i = 0; i < li->n; i++)
		copy_json(li, &li->copies[i], j);
	json_arr_end(j);
	loader_json(li, j);
}
