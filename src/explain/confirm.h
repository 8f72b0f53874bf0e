/*
 * confirm.h - does this machine show the cause a log points to?
 *
 * explain runs `check` on the layers the log's causes live in (the command
 * does: commands/cmd_explain.c), plus one probe of its own: where the loader
 * finds each soname a log says could not be opened (confirm_probe_sonames).
 * confirm_cause() then judges, like a rule, from those facts alone:
 *
 *  - confirmed: check reported the cause here (its evidence and its fix,
 *    with this machine's paths), or the captured value shows it here (the
 *    soname is not on the loader's path; the driver reports the same CUDA
 *    version; the GPU at that PCI address is lost);
 *  - not reproduced: check judged that layer here and the cause is one it
 *    tests, and it did not find it; or the captured value differs here (the
 *    loader finds the soname; no GPU at that PCI address);
 *  - cannot tell: check has no test for the cause, or a lower layer failed
 *    and blocked the one it lives in.
 *
 *	struct confirm_in ci = { .rep = &rep, .inv = &inv, .top = LAYER_LIBRARIES, ... };
 *	confirm_cause(&ci, "cudnn-missing", hit, &xc);
 */
#ifndef GD_CONFIRM_H
#define GD_CONFIRM_H

#include <stddef.h>

#include "explain/explain.h"

struct gd_ctx;
struct inventory;
struct report;

/* Where the loader finds a soname on this machine. */
struct confirm_soname {
	char *soname;
	char *path;		/* the winner, NULL when not found */
	const char *how;	/* "ld.so.cache", "LD_LIBRARY_PATH" ... */
	char *error;		/* the loader emulation failed: why */
	char **copies;		/* files with that soname found elsewhere (not searched) */
	size_t ncopies;
};

struct confirm_in {
	const struct report *rep;
	const struct inventory *inv;
	int top;			/* highest layer check judged */
	const char *against;		/* "this machine" or "the tree at DIR" */
	struct confirm_soname *sonames;
	size_t nsonames;
};

/* Fill xc (cause, layer, title already set by the caller) with conf, evidence and fix. */
void confirm_cause(const struct confirm_in *ci, const struct logmatch_hit *h,
		   struct xcause *xc);

/* Does check have a test that can find this cause? */
int confirm_checkable(enum cause_id cause);

/* The probe side: resolve every soname captured by the hits (reads files, inside ctx->root). */
void confirm_probe_sonames(const struct gd_ctx *ctx, const struct inventory *inv,
			   const struct logmatch *m, struct confirm_in *ci);
void confirm_in_release(struct confirm_in *ci);

#endif
