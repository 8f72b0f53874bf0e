/*
 * rules.h - judging the inventory: facts in, findings out.
 *
 * One rules_<layer>() per layer.  A rule reads only the inventory and the
 * knowledge base (never files, never children) and adds findings to the
 * report, each with evidence, a cause id from knowledge/causes.h and a fix.
 * Every layer adds at least one finding, so that an "ok" is shown too.
 * When `blocked` is set a layer below failed: its live probe did not run,
 * and the rule says so with a skipped finding where a check needed it.
 */
#ifndef GD_RULES_H
#define GD_RULES_H

#include "report/report.h"

struct gd_ctx;
struct inventory;
struct kb;

struct rules_in {
	const struct gd_ctx *ctx;
	const struct inventory *inv;
	const struct kb *kb;
	int blocked;		/* a lower layer failed */
	int live;		/* the live probe was allowed to run (no --no-load, not blocked) */
};

void rules_hardware(const struct rules_in *in, struct report *rep);
void rules_kernel(const struct rules_in *in, struct report *rep);
void rules_containers(const struct rules_in *in, struct report *rep);
void rules_devices(const struct rules_in *in, struct report *rep);
void rules_driver(const struct rules_in *in, struct report *rep);
void rules_cuda(const struct rules_in *in, struct report *rep);
void rules_libraries(const struct rules_in *in, struct report *rep);
void rules_frameworks(const struct rules_in *in, struct report *rep);

/* Parts of a layer's rules in files of their own, called by that layer's rules_<layer>(). */
void rules_mig(const struct rules_in *in, struct report *rep);		/* driver: rules_mig.c */
void rules_fabric(const struct rules_in *in, struct report *rep);	/* driver: rules_fabric.c */
void rules_pcie_platform(const struct rules_in *in, struct report *rep);	/* hardware: rules_pcie.c */

#endif
