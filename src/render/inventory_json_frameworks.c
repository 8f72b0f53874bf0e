/*
 * inventory_json_frameworks.c - the "frameworks" part of the inventory JSON:
 * one object per framework found in a Python environment.  Presentation
 * only; unknown facts are null.
 *
 *   "frameworks": [ { "env", "env_kind", "python", "site_dir", "name", "dist",
 *     "version", "flavour", "cuda_build", "cudnn_build", "archs": [...] (built
 *     for), "archs_partial": [...] (a few kernels), "arch_entries": {arch: n},
 *     "libraries": [ { "soname", "path", "source", "version", ... } ],
 *     "prediction": "gpu"|"cpu"|"broken"|null, "why", "live": {...}|null } ]
 */
#include "render/inventory_json.h"
#include "core/json.h"
#include "core/buf.h"
#include "inventory/inventory.h"
#include "rules/fw_verdict.h"

static void ij_fw_lib(const struct fw_lib *l, struct json *j)
{
	json_obj_begin(j, NULL);
	json_str(j, "soname", l->soname);
	json_str(j, "role", fw_role_id(l->role));
	json_bool(j, "required", l->required);
	json_str(j, "how", l->dlopened ? "dlopen" : "needed");
	json_str(j, "requester", l->requester);
	json_str(j, "path", l->path);
	json_str(j, "realpath", l->realpath);
	json_str(j, "source", l->source);
	json_str(j, "from", l->from);
	json_str(j, "version", l->version);
	json_str(j, "wheel", l->wheel);
	json_str(j, "missing_dependency", l->missing_dep);
	json_str(j, "unreached", l->unreached);
	json_str(j, "shadowed", l->shadowed);
	json_obj_end(j);
}

static void ij_fw_live(const struct fw_live *l, struct json *j)
{
	if (!l->ran) {
		json_null(j, "live");
		return;
	}
	json_obj_begin(j, "live");
	json_str(j, "outcome", l->outcome);
	json_tribool(j, "import_ok", l->import_ok);
	json_int_nonneg(j, "gpus", l->gpus);
	json_tribool(j, "matmul_ok", l->matmul_ok);
	json_str(j, "cuda", l->cuda);
	json_str(j, "cudnn", l->cudnn);
	json_str(j, "archs", l->archs);
	json_str(j, "device", l->device);
	json_str(j, "error", l->error);
	json_str_array(j, "missing", l->missing, l->nmissing);
	json_str_array(j, "noise", l->noise, l->nnoise);
	json_num(j, "seconds", l->seconds);
	json_obj_end(j);
}

void inventory_json_frameworks(const struct inventory *inv, struct json *j)
{
	const struct frameworks_inventory *f = &inv->fw;
	struct buf why = BUF_INIT;
	enum fw_prediction pred;

	json_arr_begin(j, "frameworks");
	for (size_t i = 0; i < f->n; i++) {
		const struct fw_entry *w = &f->fws[i];

		json_obj_begin(j, NULL);
		json_str(j, "env", w->env_prefix);
		json_str(j, "env_kind", w->env_kind);
		json_str(j, "python", w->python_version);
		json_str(j, "interpreter", w->python);
		json_str(j, "site_dir", w->site_dir);
		json_str(j, "name", w->name);
		json_str(j, "dist", w->dist);
		json_str(j, "version", w->version);
		json_str(j, "flavour", w->flavour);
		json_str(j, "local_tag", w->local_tag);
		json_str(j, "plugin", w->plugin);
		json_tribool(j, "is_cuda_build", w->is_cuda_build);
		json_str(j, "cuda_build", w->cuda_build);
		json_str(j, "cudnn_build", w->cudnn_build);
		json_str(j, "cudnn_required", w->cudnn_required);
		json_str(j, "python_supported", w->python_range);
		json_str_array(j, "archs", w->archs, w->narchs);
		/* in the fat binary for a few kernels only (loader/fatbin.h's rule) */
		json_str_array(j, "archs_partial", w->archs_partial, w->narchs_partial);
		if (w->arch_entries) {
			json_obj_begin(j, "arch_entries");
			for (size_t k = 0; k < w->narchs; k++)
				json_int(j, w->archs[k], (long long)w->arch_entries[k]);
			for (size_t k = 0; k < w->narchs_partial; k++)
				json_int(j, w->archs_partial[k], (long long)w->arch_partial_entries[k]);
			json_obj_end(j);
		} else {
			json_null(j, "arch_entries");
		}
		json_str(j, "archs_source", w->archs_source);
		json_str(j, "build_file", w->build_file);
		json_str(j, "main_library", w->main_lib);
		json_str(j, "rpath", w->main_rpath);
		json_str(j, "runpath", w->main_runpath);
		json_arr_begin(j, "libraries");
		for (size_t k = 0; k < w->nlibs; k++)
			ij_fw_lib(&w->libs[k], j);
		json_arr_end(j);
		json_str_array(j, "wheels", w->wheels, w->nwheels);
		json_str(j, "other_cudart", w->other_cudart);
		/* the rules' verdict (rules/fw_verdict.h), beside the facts it rests on */
		pred = fw_predict(w, &why);
		json_str(j, "prediction", fw_prediction_id(pred));
		json_str(j, "why", why.len ? why.s : NULL);
		json_str(j, "error", w->error);
		ij_fw_live(&w->live, j);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* site directories this user cannot list (their frameworks are unknown) */
	json_arr_begin(j, "frameworks_unreadable");
	for (size_t i = 0; i < f->nunreadable; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "site_dir", f->unreadable[i].dir);
		json_str(j, "error", f->unreadable[i].why);
		json_obj_end(j);
	}
	json_arr_end(j);
	buf_release(&why);
}
