/*
 * check_run.h - the check pipeline as a function, for commands that need the
 * machine's facts and verdicts without printing a report (plan).
 *
 *	inventory_init(&inv); report_init(&rep);
 *	check_run_upto(ctx, kb, &inv, &rep, LAYER_DRIVER);
 */
#ifndef GD_CHECK_RUN_H
#define GD_CHECK_RUN_H

#include "knowledge/layers.h"

struct gd_ctx;
struct kb;
struct inventory;
struct report;

/* All layers. */
int check_run(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv, struct report *rep);
/* The layers up to `last` (an enum layer_id); the ones above are reported as not checked. */
int check_run_upto(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
		   struct report *rep, int last);

#endif
