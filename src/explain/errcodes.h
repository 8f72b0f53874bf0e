/*
 * errcodes.h - the error codes of the GPU stack's C APIs (CUresult,
 * cudaError_t, cudnnStatus_t, ncclResult_t, nvmlReturn_t and pynvml's
 * NVMLError_ names), by name and by number, with the catalogue causes each
 * one implies.
 *
 * The table (errcodes.c) is generated from the real headers by
 * src/knowledge/data/errcodes-from-headers.py; explain's rules whose causes
 * column is "@errcode" name the causes of the code they captured.
 *
 *	const struct errcode *c = errcode_by_name("CUDA_ERROR_STUB_LIBRARY", 23);
 *	if (c && c->causes[0]) ...	// CAUSE_LIBCUDA_STUB_ON_PATH
 */
#ifndef GD_ERRCODES_H
#define GD_ERRCODES_H

#include <stddef.h>

#include "knowledge/causes.h"

/* ERR_CUDART_OLD: cudaError_t as numbered in CUDA 10.0 and older (10.1 renumbered it) */
enum errcode_family { ERR_CU, ERR_CUDART, ERR_CUDNN, ERR_NCCL, ERR_NVML, ERR_CUDART_OLD };

struct errcode {
	enum errcode_family family;
	long code;
	const char *name;
	enum cause_id causes[4];	/* the causes it implies; CAUSE_NONE ends the list */
};

extern const struct errcode errcodes[];
extern const unsigned long errcodes_count;

/* The entry for a name (exact, len bytes), or NULL. */
const struct errcode *errcode_by_name(const char *name, size_t len);
/* The entry for a number of one family, or NULL. */
const struct errcode *errcode_by_number(enum errcode_family f, long code);
/*
 * The family a number captured under this name belongs to (logrules.h):
 * cu_result, cuda_error, cudnn_code, nccl_code, nvml_code; -1 for another
 * name.  The rule's pattern found the number in a context naming its API
 * ("cuInit(0) failed with error code 999", "ncclSuccess (2 vs. 0)").
 */
int errcode_family_of_capture(const char *name);
/*
 * Wrappers print a code's name without its API's prefix: go-nvml's
 * "ERROR_LIBRARY_NOT_FOUND" (NVML_ERROR_LIBRARY_NOT_FOUND), CUDA.jl's
 * "ERROR_NO_DEVICE" (CUDA_ERROR_NO_DEVICE), cudnn wrappers' "STATUS_NOT_INITIALIZED".
 * A rule whose context names the API captures it as cu_short, nvml_short or
 * cudnn_short; this is the entry of the family's prefix plus the name, or
 * NULL.  A name that already carries the prefix is looked up as it is.
 */
const struct errcode *errcode_by_short_name(enum errcode_family f, const char *name, size_t len);
/* The family of a short-name capture (cu_short, nvml_short, cudnn_short); -1 for another name. */
int errcode_family_of_short_capture(const char *name);
/*
 * Which numbering a cudaError_t number printed in a log is in: CUDA 10.1
 * renumbered the enum (8 was cudaErrorInvalidDeviceFunction, is
 * cudaErrorProfilerAlreadyStopped; 38 was cudaErrorNoDevice, is nothing).
 * The era is the log's evidence (explain.c: @cudart-old, @cudart-new).
 */
enum cudart_era { CUDART_ERA_UNKNOWN, CUDART_ERA_OLD, CUDART_ERA_NEW };
/*
 * The entry a cudaError_t number of a log stands for: the era's table; with
 * the era unknown, the entry both numberings give the same name, the only
 * numbering that has the number, or the one whose cudaGetErrorString text
 * the line carries ("(8 vs. 0)  invalid device function"; line may be NULL);
 * NULL when it stays ambiguous: no meaning is better than a wrong one.
 */
const struct errcode *errcode_cudart(long code, enum cudart_era era, const char *line);
/* The other numbering's entry for the number, when its name differs from ec's; or NULL. */
const struct errcode *errcode_cudart_other(long code, const struct errcode *ec);
/* "CUresult", "cudaError_t", ... */
const char *errcode_family_name(enum errcode_family f);

#endif
