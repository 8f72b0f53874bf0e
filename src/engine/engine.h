/*
 * engine.h - the check pipeline as a function, for the commands that need
 * check's verdicts: check, explain's live confirmation, plan, health and
 * watch.  It owns the layer-step table (each layer's probe, live probe and
 * rules) and the probe children it starts early; none outlives a call, and
 * none is left in the inventory (pure data, inventory/inventory.h).
 *
 * check_run_upto() runs the layers from the bottom up to `top` (an enum
 * layer_id) only: the layers above it are neither probed nor judged (their
 * status stays ok with no findings; callers must not read them).
 *
 *	inventory_init(&inv); report_init(&rep);
 *	check_run_upto(ctx, kb, &inv, &rep, LAYER_LIBRARIES);
 *
 * check_run_in() is the same with the probes' inputs built by the caller
 * (probes/probe_in.h: environment, loader, knowledge base, Python
 * environments, read once), for a caller that runs the pipeline more than
 * once (a `watch`) or wants them itself; check_run_upto() builds them for
 * one run.
 */
#ifndef GD_ENGINE_H
#define GD_ENGINE_H

struct gd_ctx;
struct kb;
struct inventory;
struct report;
struct probe_in;

int check_run(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
	      struct report *rep);
int check_run_upto(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
		   struct report *rep, int top);
int check_run_in(const struct probe_in *pin, struct inventory *inv, struct report *rep, int top);

#endif
