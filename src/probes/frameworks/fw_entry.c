/*
 * fw_entry.c - a new framework entry of the inventory, filled with the
 * environment it was found in and "unknown" everywhere else (see
 * fw_internal.h).  The per-framework readers (fw_tf.c, fw_torch.c,
 * fw_jax.c) add their entries through it; it is apart from frameworks.c,
 * which calls those readers, so that no two files of the probe call each
 * other.
 */
#include "probes/frameworks/fw_internal.h"

#include "core/xalloc.h"

#include <string.h>

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
