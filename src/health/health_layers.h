/*
 * health_layers.h - the node's own layers of `check`, for `health`.
 *
 * health_layers_run() runs hardware, kernel, devices, driver and the CUDA
 * driver API (hardware only with hardware_only) the way `check` does:
 * static facts, live facts from isolated children unless --no-load or a
 * lower layer failed, then the rules.  The libraries and frameworks layers
 * are not run: a user's environment is not the node's health.
 * health_layers_from_report() turns the findings that are not ok into
 * health items; health_layers_from_kv() reads them back from the child's
 * key=value lines (item.N.cause, .gpu, .status, .reason; items=N).
 *
 *	child:	health_layers_run(ctx, kb, 0, &rep);  ... emit item.N.* lines
 *	parent:	health_layers_from_kv(&result.kv, &h);
 */
#ifndef GD_HEALTH_LAYERS_H
#define GD_HEALTH_LAYERS_H

#include "core/kv.h"
#include "health/health.h"
#include "report/report.h"

struct gd_ctx;
struct kb;

void health_layers_run(const struct gd_ctx *ctx, const struct kb *kb, int hardware_only,
		       struct report *rep);
void health_layers_from_report(const struct report *rep, struct health *h);
/* Returns the number of items taken; -1 when the list is not complete. */
int health_layers_from_kv(const struct kvlist *kv, struct health *h);

#endif
