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
