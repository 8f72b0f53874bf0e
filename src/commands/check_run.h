/*
 * check_run.h - the check pipeline as a function, for commands that need
 * check's verdicts (check itself, explain's live confirmation).
 *
 * check_run_upto() runs the layers from the bottom up to `top` (an enum
 * layer_id) only: the layers above it are neither probed nor judged (their
 * status stays ok with no findings; callers must not read them).
 *
 *	inventory_init(&inv); report_init(&rep);
 *	check_run_upto(ctx, kb, &inv, &rep, LAYER_LIBRARIES);
 */
#ifndef GD_CHECK_RUN_H
#define GD_CHECK_RUN_H

struct gd_ctx;
struct kb;
struct inventory;
struct report;

int check_run(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
	      struct report *rep);
int check_run_upto(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
		   struct report *rep, int top);

#endif
