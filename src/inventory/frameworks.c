/* frameworks.c - the frameworks part of the inventory: its lifecycle and JSON names; see frameworks.h. */
#include "inventory/frameworks.h"
#include "inventory/libraries.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void frameworks_inventory_init(struct frameworks_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->seconds = -1;
}

static void fw_live_release(struct fw_live *l)
{
	free(l->outcome);
	free(l->cuda);
	free(l->cudnn);
	free(l->archs);
	free(l->device);
	free(l->error);
	strv_free(l->missing, l->nmissing);
	strv_free(l->noise, l->nnoise);
	free(l->stderr_tail);
	memset(l, 0, sizeof(*l));
}

static void fw_entry_release(struct fw_entry *fw)
{
	free(fw->env_prefix);
	free(fw->python);
	free(fw->python_version);
	free(fw->site_dir);
	free(fw->dist);
	free(fw->version);
	free(fw->flavour);
	free(fw->local_tag);
	free(fw->plugin);
	free(fw->cuda_build);
	free(fw->cudnn_build);
	free(fw->cudnn_required);
	strv_free(fw->archs, fw->narchs);
	strv_free(fw->archs_partial, fw->narchs_partial);
	free(fw->arch_entries);
	free(fw->arch_partial_entries);
	free(fw->archs_from);
	free(fw->build_file);
	free(fw->main_lib);
	free(fw->main_rpath);
	free(fw->main_runpath);
	for (size_t i = 0; i < fw->nlibs; i++) {
		struct fw_lib *l = &fw->libs[i];

		free(l->soname);
		free(l->requester);
		free(l->path);
		free(l->realpath);
		free(l->from);
		free(l->version);
		free(l->wheel);
		free(l->missing_dep);
		free(l->shadowed);
		free(l->unreached);
		free(l->shadowed_version);
	}
	free(fw->libs);
	strv_free(fw->wheels, fw->nwheels);
	free(fw->python_range);
	free(fw->other_cudart);
	free(fw->stub_why);
	free(fw->load_note);
	free(fw->error);
	fw_live_release(&fw->live);
	memset(fw, 0, sizeof(*fw));
}

void frameworks_inventory_release(struct frameworks_inventory *p)
{
	for (size_t i = 0; i < p->n; i++)
		fw_entry_release(&p->fws[i]);
	free(p->fws);
	free(p->error);
	for (size_t i = 0; i < p->nunreadable; i++) {
		free(p->unreadable[i].dir);
		free(p->unreadable[i].why);
	}
	free(p->unreadable);
	memset(p, 0, sizeof(*p));
}

const char *fw_kind_id(enum fw_kind k)
{
	switch (k) {
	case FW_TENSORFLOW: return "tensorflow";
	case FW_TORCH: return "torch";
	case FW_JAX: return "jax";
	case FW_CUPY: return "cupy";
	}
	return "?";
}

const char *fw_role_id(enum fw_role r)
{
	switch (r) {
	case FW_ROLE_NEEDED: return "needed";
	case FW_ROLE_DRIVER: return "driver";
	case FW_ROLE_CUDART: return "cudart";
	case FW_ROLE_CUBLAS: return "cublas";
	case FW_ROLE_CUBLASLT: return "cublasLt";
	case FW_ROLE_CUFFT: return "cufft";
	case FW_ROLE_CUSOLVER: return "cusolver";
	case FW_ROLE_CUSPARSE: return "cusparse";
	case FW_ROLE_CURAND: return "curand";
	case FW_ROLE_NVRTC: return "nvrtc";
	case FW_ROLE_CUDNN: return "cudnn";
	case FW_ROLE_CUDNN_SUB: return "cudnn-sub";
	case FW_ROLE_NCCL: return "nccl";
	}
	return "?";
}

/* The libraries layer's copy of a file named by its path or real path. */
static const struct lib_copy *copy_of(const struct libraries_inventory *libs, const char *path,
				      const char *realpath)
{
	for (size_t i = 0; path && i < libs->n; i++) {
		const struct lib_copy *c = &libs->copies[i];

		if ((realpath && c->realpath && !strcmp(c->realpath, realpath)) ||
		    (c->path && !strcmp(c->path, path)) || (c->realpath && !strcmp(c->realpath, path)))
			return c;
	}
	return NULL;
}

static void adopt(char **dst, const struct lib_copy *c)
{
	if (!c || !c->version)
		return;
	free(*dst);
	*dst = xstrdup(c->version);
}

void frameworks_adopt_library_versions(struct frameworks_inventory *fw, const struct libraries_inventory *libs)
{
	for (size_t i = 0; libs && i < fw->n; i++) {
		struct fw_entry *w = &fw->fws[i];
		const char *shim = NULL;

		for (size_t k = 0; k < w->nlibs; k++) {
			struct fw_lib *l = &w->libs[k];

			if (l->path)
				adopt(&l->version, copy_of(libs, l->path, l->realpath));
			if (l->role == FW_ROLE_CUDNN && l->version)
				shim = l->version;
		}
		/* a shadowed sub-library is the one beside the shim: the shim's
		 * release unless the libraries layer read the file itself */
		for (size_t k = 0; k < w->nlibs; k++) {
			struct fw_lib *l = &w->libs[k];

			if (!l->shadowed)
				continue;
			adopt(&l->shadowed_version, copy_of(libs, l->shadowed, NULL));
			if (!l->shadowed_version && shim)
				l->shadowed_version = xstrdup(shim);
		}
	}
}
