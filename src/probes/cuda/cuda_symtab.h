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

/*
 * A declared interface (cuda_api.h, nvml_api.h) is a table of rows, one per
 * entry point: where its slot lies in the interface's struct, and its names.
 * A caller asks for entries by their index in that table.
 */
struct cuda_sym_row {
	size_t off;		/* of the slot in the interface's struct */
	const char *name, *fallback;
};

struct cuda_sym_want {
	int fn;			/* index in the interface's row table */
	enum cuda_sym_need need;
	int no_fallback;	/* 1: the newest symbol only */
};

/* Bind the wanted rows' slots inside api (wanted indexes out of the table are
 * skipped); -1 when a required symbol is missing. */
int cuda_symtab_bind_rows(void *handle, void *api, const struct cuda_sym_row *rows, size_t nrows,
			  const struct cuda_sym_want *want, size_t n, struct cuda_symtab_missing *m);

/* Fill every slot (NULL when absent); -1 when a required symbol is missing. */
int cuda_symtab_bind(void *handle, const struct cuda_sym *syms, size_t n,
		     struct cuda_symtab_missing *m);
void cuda_symtab_missing_release(struct cuda_symtab_missing *m);

#endif
