/*
 * cuda_symtab.h - binding a dlopen()ed NVIDIA library through a symbol table.
 *
 * Used by the child sides of the isolated probes (nvml_child.c,
 * cuda_child.c), never in the gpudoctor process itself.  Each row names a
 * slot, the preferred (newest) symbol, an older fallback and whether the probe
 * can do without it.  Missing symbols are recorded, because a library that
 * lacks a required entry point is itself a finding.
 *
 *	static void *p_init;
 *	static const struct cuda_sym syms[] = {
 *		{ &p_init, "nvmlInit_v2", "nvmlInit", CUDA_SYM_REQUIRED },
 *	};
 *	struct cuda_symtab_missing m = CUDA_SYMTAB_MISSING_INIT;
 *	if (cuda_symtab_bind(handle, syms, n, &m) < 0)
 *		report(m.required);
 */
#ifndef GD_CUDA_SYMTAB_H
#define GD_CUDA_SYMTAB_H

#include <stddef.h>

#include "core/buf.h"

enum cuda_sym_need { CUDA_SYM_OPTIONAL, CUDA_SYM_REQUIRED };

struct cuda_sym {
	void **slot;
	const char *name;	/* preferred symbol */
	const char *fallback;	/* older name with the same signature, or NULL */
	enum cuda_sym_need need;
};

struct cuda_symtab_missing {
	struct buf required;	/* comma-separated names of missing required symbols */
	struct buf optional;	/* the same for optional ones */
};

#define CUDA_SYMTAB_MISSING_INIT { BUF_INIT, BUF_INIT }

/* Fill every slot (NULL when absent); -1 when a required symbol is missing. */
int cuda_symtab_bind(void *handle, const struct cuda_sym *syms, size_t n,
		     struct cuda_symtab_missing *m);
void cuda_symtab_missing_release(struct cuda_symtab_missing *m);

#endif
