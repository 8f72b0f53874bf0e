/* frameworks.c - the frameworks part of the inventory: its lifecycle and JSON names; see frameworks.h. */
#include "inventory/frameworks.h"

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
