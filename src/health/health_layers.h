/*
 * health_layers.h - the node's own layers of `check`, as health items.
 *
 * health's child runs check's pipeline up to the CUDA driver API
 * (check_run_upto(..., LAYER_CUDA); LAYER_HARDWARE with --hardware): the
 * libraries and frameworks layers are not run, a user's environment is not
 * the node's health.  health_layers_from_report() turns the findings that
 * are not ok into health items; the child emits them with
 * health_layers_emit() as report/finding_record.h records (item.N=RECORD,
 * items=N) and the parent reads them back with health_layers_from_kv(),
 * counting a record that does not parse (an unknown cause id) in *bad.
 *
 *	child:	check_run_upto(...); health_layers_emit(&rep); kv_end();
 *	parent:	health_layers_from_kv(&result.kv, &h, &bad);
 */
#ifndef GD_HEALTH_LAYERS_H
#define GD_HEALTH_LAYERS_H

#include "core/kv.h"
#include "health/health.h"
#include "report/report.h"

void health_layers_from_report(const struct report *rep, struct health *h);
void health_layers_emit(const struct report *rep);
/* The items read of one child's list; more are counted in *bad. */
#define HEALTH_LAYERS_MAX 1000
/* Returns the number of items taken; -1 when the list is not complete. */
int health_layers_from_kv(const struct kvlist *kv, struct health *h, int *bad);

#endif
