/*
 * health_layers.h - the node's own layers of `check`, as health items.
 *
 * health's child runs check's pipeline up to the CUDA driver API
 * (check_run_upto(..., LAYER_CUDA); LAYER_HARDWARE with --hardware): the
 * libraries and frameworks layers are not run, a user's environment is not
 * the node's health.  health_layers_from_report() turns the findings that
 * are not ok into health items; health_layers_from_kv() reads them back
 * from the child's key=value lines (item.N.cause, .gpu, .status, .reason;
 * items=N).
 *
 *	child:	check_run_upto(...); health_layers_from_report(&rep, &h); emit
 *	parent:	health_layers_from_kv(&result.kv, &h);
 */
#ifndef GD_HEALTH_LAYERS_H
#define GD_HEALTH_LAYERS_H

#include "core/kv.h"
#include "health/health.h"
#include "report/report.h"

void health_layers_from_report(const struct report *rep, struct health *h);
/* Returns the number of items taken; -1 when the list is not complete. */
int health_layers_from_kv(const struct kvlist *kv, struct health *h);

#endif
