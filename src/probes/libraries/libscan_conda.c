/*
 * libscan_conda.c - the conda side of the libraries probe: each conda
 * environment's CUDA packages (cudatoolkit, cudnn, nccl, cuda-*, libcublas
 * ...) from its conda-meta records (python/condameta.h), and for each copy
 * found in a conda environment's lib/, the package and channel that
 * installed it ("conda-forge::cudnn=8.9.7.29"), so that fixes name conda
 * packages where conda installed the library.
 */
#include "probes/libraries/libscan.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static struct conda_env *conda_add(const struct gd_ctx *ctx, struct libraries_inventory *li,
				   const char *prefix)
{
	struct conda_env ce;

	for (size_t i = 0; i < li->nconda; i++)
		if (!strcmp(li->conda[i].prefix, prefix))
			return &li->conda[i];
	if (condameta_read(ctx->root, prefix, &ce, NULL) < 0) {
		condameta_release(&ce);
		return NULL;
	}
	XGROW(li->conda, li->nconda, li->conda_cap);
	li->conda[li->nconda] = ce;
	return &li->conda[li->nconda++];
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

void libscan_conda(const struct probe_in *in, struct libraries_inventory *li)
{
	const struct gd_ctx *ctx = in->ctx;
	const char *cp = in->env.conda_prefix;

	if (cp && cp[0] == '/')
		conda_add(ctx, li, cp);
	for (size_t i = 0; i < in->pyenvs.n; i++) {
		const struct pyenv *pe = &in->pyenvs.envs[i];

		if (pe->kind && !strcmp(pe->kind, "conda") && pe->prefix)
			conda_add(ctx, li, pe->prefix);
	}
	for (size_t i = 0; i < li->n; i++) {
		struct lib_copy *c = &li->copies[i];

		if (!c->origin || strcmp(c->origin, "conda") != 0 || c->conda_spec)
			continue;
		for (size_t k = 0; k < li->nconda; k++) {
			const struct conda_env *ce = &li->conda[k];
			size_t pl = strlen(ce->prefix);
			const struct conda_pkg *p;

			if (strncmp(c->dir, ce->prefix, pl) != 0 || strcmp(c->dir + pl, "/lib") != 0)
				continue;
			p = condameta_owner(ce, base_name(c->path));
			if (!p)
				p = condameta_owner(ce, base_name(c->realpath));
			if (p)
				c->conda_spec = xasprintf("%s%s%s=%s", p->channel ? p->channel : "",
							  p->channel ? "::" : "", p->name, p->version);
			break;
		}
	}
}
