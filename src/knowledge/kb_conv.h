/*
 * kb_conv.h - converting the knowledge base's tables into the typed arrays
 * of kb_internal.h, shared by kb.c (which runs one converter per table),
 * kb_rows.c (the converters) and kb_cells.c (one cell).
 *
 *	struct conv c = { kb, &kb->tables[i], 0, e };
 *	kb_conv_tf(&c);		a table's rows; inside, per cell:
 *	kbc_need_col(c, "version", &col); kbc_get_cuda(c, col, 0, &cuda);
 */
#ifndef GD_KB_CONV_H
#define GD_KB_CONV_H

#include "knowledge/kb_internal.h"

#include <stddef.h>

struct err;

/* The row being converted, and where an error goes. */
struct conv {
	struct kb *kb;
	struct kb_table *t;
	size_t row;
	struct err *e;
};

/* kb_cells.c */
int kbc_need_col(struct conv *c, const char *name, int *col);
int kbc_bad(struct conv *c, int col, const char *what);
const char *kbc_str(struct conv *c, int col);
int kbc_get_int(struct conv *c, int col, int unknown_ok, int *out);
int kbc_get_double(struct conv *c, int col, double *out);
int kbc_get_cuda(struct conv *c, int col, int unknown_ok, int *out);
int kbc_get_version(struct conv *c, int col, int unknown_ok, const char **out);
int kbc_get_cc(struct conv *c, int col, int *major, int *minor);
int kbc_get_tri(struct conv *c, int col, int *out);
int kbc_get_source(struct conv *c, int col, const char **out);

/* kb_rows.c */
int kb_conv_sources(struct conv *c);
int kb_conv_facts(struct conv *c);
int kb_conv_tf(struct conv *c);
int kb_conv_torch(struct conv *c);
int kb_conv_jax(struct conv *c);
int kb_conv_cuda(struct conv *c);
int kb_conv_compat(struct conv *c);
int kb_conv_branches(struct conv *c);
int kb_conv_archs(struct conv *c);
int kb_conv_cudnn(struct conv *c);
int kb_conv_sonames(struct conv *c);
int kb_conv_gpus(struct conv *c);
int kb_conv_gpudrv(struct conv *c);
int kb_conv_failures(struct conv *c);
int kb_conv_cupy(struct conv *c);
int kb_conv_xid(struct conv *c);

#endif
