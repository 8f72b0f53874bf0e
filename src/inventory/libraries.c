/* libraries.c - lifecycle of and lookups in the libraries part of the inventory; see libraries.h. */
#include "inventory/libraries.h"
#include "core/version.h"

#include <stdlib.h>
#include <string.h>

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void libraries_inventory_init(struct libraries_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->cuda_link = -1;
}

static void copy_release(struct lib_copy *c)
{
	free(c->path);
	free(c->dir);
	free(c->realpath);
	free(c->soname);
	free(c->version);
	free(c->owner);
	free(c->conda_spec);
	free(c->problem);
	free_strv(c->needed, c->nneeded);
	free(c->runpath);
	free(c->rpath);
	free_strv(c->missing_deps, c->nmissing_deps);
}

void libraries_inventory_release(struct libraries_inventory *p)
{
	for (size_t i = 0; i < p->n; i++)
		copy_release(&p->copies[i]);
	free(p->copies);
	for (size_t i = 0; i < p->nconda; i++)
		condameta_release(&p->conda[i]);
	free(p->conda);
	for (size_t i = 0; i < p->nresolved; i++) {
		struct lib_resolved *r = &p->resolved[i];

		free(r->soname);
		free(r->path);
		free(r->realpath);
		free(r->from);
		free_strv(r->passed_over, r->npassed_over);
	}
	free(p->resolved);
	for (size_t i = 0; i < p->ncudnn_subs; i++) {
		free(p->cudnn_subs[i].shim);
		free(p->cudnn_subs[i].shim_version);
		free(p->cudnn_subs[i].soname);
		free(p->cudnn_subs[i].path);
		free(p->cudnn_subs[i].version);
	}
	free(p->cudnn_subs);
	for (size_t i = 0; i < p->ntoolkits; i++) {
		free(p->toolkits[i].path);
		free(p->toolkits[i].realpath);
		free(p->toolkits[i].version);
	}
	free(p->toolkits);
	for (size_t i = 0; i < p->nlive; i++) {
		struct lib_live *l = &p->live[i];

		free(l->path);
		free(l->version);
		free(l->raw);
		free(l->cudart_version);
		free(l->static_version);
		free(l->error);
	}
	free(p->live);
	free(p->ld_library_path);
	free(p->cuda_link_target);
	free(p->cuda_link_resolved);
	free(p->cuda_link_version);
	ldso_preloads_free(p->preloads, p->npreloads);
	free(p->nvcc_path);
	free(p->nvcc_wrapper);
	free(p->nvcc_toolkit);
	free(p->nvcc_version);
	free(p->cudnn_header);
	free(p->cudnn_header_version);
	free(p->nccl_header);
	free(p->ldso_error);
	free(p->cache_stale_reason);
	free(p->cache_error);
	free_strv(p->notes, p->nnotes);
	for (size_t i = 0; i < p->nunreadable; i++) {
		free(p->unreadable[i].dir);
		free(p->unreadable[i].why);
	}
	free(p->unreadable);
	libraries_inventory_init(p);
}

const struct lib_copy *libraries_copy_by_realpath(const struct libraries_inventory *p,
						  const char *realpath)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->copies[i].realpath, realpath) == 0)
			return &p->copies[i];
	return NULL;
}

const struct lib_resolved *libraries_resolved(const struct libraries_inventory *p,
					      const char *soname)
{
	for (size_t i = 0; i < p->nresolved; i++)
		if (strcmp(p->resolved[i].soname, soname) == 0)
			return &p->resolved[i];
	return NULL;
}

const struct lib_copy *libraries_newest(const struct libraries_inventory *p, const char *soname)
{
	const struct lib_copy *best = NULL;

	for (size_t i = 0; i < p->n; i++) {
		const struct lib_copy *c = &p->copies[i];

		if (strcmp(c->soname, soname) != 0 || !c->version || c->elf_problem != 0)
			continue;
		if (!best || version_cmp_str(c->version, best->version) > 0)
			best = c;
	}
	return best;
}
