/*
 * curesult.h - the CUDA driver API's CUresult codes: names and what they
 * usually mean on a machine.
 *
 * The numbers are those of the CUresult enum in the toolkit's cuda.h (13.0);
 * gpudoctor never includes that header, so they are kept here as data.  A
 * code maps to a cause id of knowledge/causes.c when one fits (34 -> the stub
 * library, 802 -> Fabric Manager, ...), else to CAUSE_NONE and the caller picks
 * its layer's generic cause.
 *
 *	const struct curesult *c = curesult_lookup(802);
 *	printf("%s: %s\n", c->name, c->hint);	// CUDA_ERROR_SYSTEM_NOT_READY: ...
 */
#ifndef GD_CURESULT_H
#define GD_CURESULT_H

#include "knowledge/causes.h"

struct curesult {
	int code;
	const char *name;	/* "CUDA_ERROR_NO_DEVICE" */
	enum cause_id cause;	/* CAUSE_NONE: the caller's generic one */
	const char *hint;	/* one line: what usually causes it; NULL if nothing useful */
};

/* The entry for code, or NULL for a number not in the table. */
const struct curesult *curesult_lookup(int code);
/* The name, or "CUresult N" (in a static buffer) for an unknown number. */
const char *curesult_name(int code);

#endif
