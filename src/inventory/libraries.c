/* libraries.c - lookups in the libraries part of the inventory; see libraries.h. */
#include "inventory/libraries.h"
#include "core/version.h"

#include <string.h>

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
