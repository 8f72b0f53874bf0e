/*
 * frameworks.c - the frameworks layer's static probe: every Python
 * environment, every site directory once, each framework found there.
 *
 * Cost: one directory listing per site directory, then files read only for
 * the frameworks present (dist-info, one generated .py, a few ELF dynamic
 * sections, the fatbin headers of libtorch_cuda.so).
 */
#include "probes/frameworks/frameworks.h"
#include "probes/frameworks/fw_internal.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"

#include "core/buf.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/ldso.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	fw_strv_free(l->missing, l->nmissing);
	fw_strv_free(l->noise, l->nnoise);
	free(l->stderr_tail);
	memset(l, 0, sizeof(*l));
}

void fw_entry_release(struct fw_entry *fw)
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
	fw_strv_free(fw->archs, fw->narchs);
	fw_strv_free(fw->archs_partial, fw->narchs_partial);
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
	fw_strv_free(fw->wheels, fw->nwheels);
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

struct fw_entry *fw_entry_new(struct frameworks_inventory *fw, const struct pyenv_list *envs,
			      size_t env, const char *site_dir, enum fw_kind kind)
{
	const struct pyenv *pe = &envs->envs[env];
	struct fw_entry *e;

	XGROW(fw->fws, fw->n + 1, fw->cap);
	e = &fw->fws[fw->n++];
	memset(e, 0, sizeof(*e));
	e->env = env;
	e->env_prefix = xstrdup(pe->prefix);
	e->env_kind = pe->kind;
	e->python = xstrdup_or_null(pe->python);
	e->python_version = xstrdup_or_null(pe->python_version);
	e->site_dir = xstrdup(site_dir);
	e->kind = kind;
	e->name = fw_kind_id(kind);
	e->is_cuda_build = -1;
	e->cuda_version = e->cuda_major = e->cudnn_major = -1;
	e->live.import_ok = e->live.gpus = e->live.matmul_ok = -1;
	return e;
}

static void fw_site_release(struct fw_site *s)
{
	distinfo_site_release(&s->idx);
	for (size_t i = 0; i < s->nrec; i++)
		free(s->rec_paths[i]);
	free(s->rec_paths);
	free(s->rec_owner);
	fw_strv_free(s->owners, s->nowners);
}

void probe_frameworks(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	const struct pyenv_list *envs = &in->pyenvs;
	double t0 = child_now();
	const struct kb *kb = in->kb;
	struct ldso l;
	int have_ldso = in->loader != NULL;
	char **seen = NULL;
	size_t nseen = 0, seen_cap = 0;
	struct err e = ERR_INIT;

	inv->fw.probed = 1;
	if (!kb)
		inv->fw.error = xstrdup("knowledge base: not available");
	/* Its own copy of the shared loader: the frameworks scan runs on the scan thread. */
	if (have_ldso)
		ldso_init_from(&l, in->loader, in->env.ld_library_path);
	else if (!inv->fw.error)
		inv->fw.error = xasprintf("loader emulation: %s", in->loader_error);

	inv->fw.nenvs = envs->n;
	for (size_t i = 0; i < envs->n; i++) {
		const struct pyenv *pe = &envs->envs[i];

		for (size_t k = 0; k < pe->nsite; k++) {
			struct fw_site s;
			struct buf rp = BUF_INIT;
			int dup = 0;

			/* a site dir shared by two environments is examined once */
			if (fs_resolve(ctx->root, pe->site_dirs[k], &rp, NULL) < 0)
				buf_puts(&rp, pe->site_dirs[k]);
			for (size_t j = 0; j < nseen && !dup; j++)
				dup = strcmp(seen[j], rp.s) == 0;
			if (dup) {
				buf_release(&rp);
				continue;
			}
			XGROW(seen, nseen + 1, seen_cap);
			seen[nseen++] = buf_detach(&rp);

			memset(&s, 0, sizeof(s));
			s.ctx = ctx;
			s.root = ctx->root;
			s.ldso = have_ldso ? &l : NULL;
			s.kb = kb;
			s.env = &in->env;
			inv->fw.nsites++;
			e.code = 0;
			if (distinfo_index_site(ctx->root, pe->site_dirs[k], &s.idx, &e) == 0) {
				fw_probe_tensorflow(&s, &inv->fw, envs, i);
				fw_probe_torch(&s, &inv->fw, envs, i);
				fw_probe_jax(&s, &inv->fw, envs, i);
				fw_probe_cupy(&s, &inv->fw, envs, i);
			} else if (e.code == EACCES || e.code == EPERM) {
				struct fw_unreadable_site *u;

				XGROW(inv->fw.unreadable, inv->fw.nunreadable, inv->fw.unreadable_cap);
				u = &inv->fw.unreadable[inv->fw.nunreadable++];
				u->dir = xstrdup(pe->site_dirs[k]);
				u->why = xstrdup(strerror(e.code));
			}
			fw_site_release(&s);
		}
	}
	fw_strv_free(seen, nseen);
	if (have_ldso)
		ldso_release(&l);
	inv->fw.seconds = child_now() - t0;
}
