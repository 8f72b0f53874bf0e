/*
 * kb_internal.h - the knowledge base's in-memory form, shared by the kb_*.c
 * files only (callers use kb.h).  kb.c loads the tables (embedded or --kb
 * DIR) and converts each row into the typed arrays below; strings point into
 * the tables' text, which lives as long as the struct kb.
 */
#ifndef GD_KB_INTERNAL_H
#define GD_KB_INTERNAL_H

#include "knowledge/kb.h"
#include "knowledge/kb_table.h"
#include "knowledge/kb_xid.h"

enum kb_tab {
	KB_SOURCES, KB_FACTS, KB_TF, KB_TORCH, KB_JAX, KB_CUDA, KB_COMPAT, KB_BRANCHES,
	KB_ARCHS, KB_CUDNN, KB_SONAMES, KB_GPUS, KB_GPUDRV, KB_FAILURES, KB_CUPY, KB_XID, KB_NTABLES
};

struct kb_branch {
	int branch;		/* 535 */
	int cuda_version;	/* 12020 */
	const char *source;
};

struct kb_compat {
	int major;
	const char *linux_min, *windows_min;
	const char *source;
};

struct kb_soname_row {
	int major;		/* -1: any */
	const char *lib, *soname, *conf, *source;
};

/* gpu_drivers.tsv */
struct kb_gpudrv {
	unsigned device;
	const char *first_driver;	/* NULL: older than the table (the arch floor applies) */
	const char *backports;		/* "535.216.03;550.40.80" or NULL */
	const char *last_driver;	/* the newest tag that lists it; NULL: still listed */
	const char *names;		/* "NVIDIA A10G|..." or NULL */
	const char *source;
};

struct kb {
	struct kb_table tab[KB_NTABLES];
	struct kb_tf *tf;		size_t ntf;
	struct kb_torch *torch;		size_t ntorch;
	struct kb_jax *jax;		size_t njax;
	struct kb_cuda_release *cuda;	size_t ncuda;
	struct kb_compat *compat;	size_t ncompat;
	struct kb_branch *branches;	size_t nbranches;
	struct kb_arch *archs;		size_t narchs;
	struct kb_cudnn *cudnn;		size_t ncudnn;
	struct kb_soname_row *sonames;	size_t nsonames;
	struct kb_gpu *gpus;		size_t ngpus;
	struct kb_gpudrv *gpudrv;	size_t ngpudrv;
	struct kb_failure *failures;	size_t nfailures;
	struct kb_cupy *cupy;		size_t ncupy;
	struct kb_xid *xids;		size_t nxids;
};

/* The file names, in enum order. */
extern const char *const kb_table_names[KB_NTABLES];
/* The embedded text of table i (NUL-terminated). */
const char *kb_embedded(int i);

/* "-" -> NULL. */
const char *kb_cell(const struct kb_table *t, size_t row, int col);
/* Parse "X.Y" as a compute capability; 0 or -1. */
int kb_parse_cc(const char *s, int *major, int *minor);
/* The gpu_drivers.tsv row of a PCI device id, or NULL (kb_query.c). */
const struct kb_gpudrv *kb_gpudrv_of(const struct kb *kb, unsigned device);

#endif
