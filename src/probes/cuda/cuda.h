/*
 * cuda.h - facts of the cuda layer: what the CUDA driver API says when the
 * libcuda.so.1 the loader picks (driver.h) is loaded in an isolated child
 * ("gpudoctor __probe cuda LIB", cuda_child.c): cuInit's result and time,
 * the devices, and whether the embedded PTX kernel ran correctly on each.
 *
 * probe_cuda() records nothing of its own (the library comes from the driver
 * layer); probe_cuda_live() runs the child.  Unknown: NULL / -1 / NAN.
 *
 * To save time the child can be started early, beside the driver layer's
 * NVML child: probe_cuda_live_start() starts it "held" -- it loads libcuda
 * and runs cuInit, then waits for SIGUSR1 before it creates any context, so
 * that NVML never sees gpudoctor's own context in the memory it reports.
 * probe_cuda_live() releases and finishes it; probe_cuda_live_cancel() kills
 * it unused when the cuda layer is blocked.  The answer is taken at the
 * child's "end" line: its contexts are released after that, unwaited.
 * The started child is the caller's (engine/engine.c), in a struct
 * cuda_pending, never the inventory's: the inventory is pure data.
 *
 *	struct cuda_pending pend = CUDA_PENDING_INIT;
 *	probe_cuda_live_start(ctx, inv, &pend);	// before probe_driver_live()
 *	probe_driver_live(ctx, inv);
 *	if (driver ok) probe_cuda_live(ctx, inv, &pend); else probe_cuda_live_cancel(&pend);
 *
 * The facts themselves (struct cuda_inventory and its parts) are
 * the inventory's: inventory/cuda.h, which this header includes.
 */
#ifndef GD_PROBE_CUDA_H
#define GD_PROBE_CUDA_H

#include "inventory/cuda.h"

#include <stddef.h>

/* Sent to a held child ("__probe cuda LIB --hold") to let it go on; <signal.h>. */
#define CUDA_RELEASE_SIGNAL SIGUSR1

struct child;
struct gd_ctx;
struct inventory;
struct probe_in;
struct kvlist;

/* A child started early and not finished yet; CUDA_PENDING_INIT when none. */
struct cuda_pending {
	struct child *child;	/* started by probe_cuda_live_start, not yet finished */
	char *lib;		/* the file it loads */
	int released;		/* probe_cuda_live_release() has let it go on */
};
#define CUDA_PENDING_INIT { NULL, NULL, 0 }

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_cuda(const struct probe_in *in, struct inventory *inv);
/*
 * Runtime facts from isolated children; not called under --no-load or when
 * blocked.  Finishes the child pend holds when there is one (pend may be
 * NULL), else runs one.
 */
void probe_cuda_live(const struct gd_ctx *ctx, struct inventory *inv, struct cuda_pending *pend);
/* Start the child early (held before its first context); needs probe_driver's facts. */
void probe_cuda_live_start(const struct gd_ctx *ctx, const struct inventory *inv,
			   struct cuda_pending *pend);
/*
 * Let a started (held) child go on now, before probe_cuda_live() waits for
 * it, so that work started in between (the libraries' version children)
 * overlaps its contexts.  A no-op when none is pending.
 */
void probe_cuda_live_release(const struct gd_ctx *ctx, struct cuda_pending *pend);
/* Kill a started child without using its results; a no-op when none is pending. */
void probe_cuda_live_cancel(struct cuda_pending *pend);

/* The child's lines into p (exposed for tests). */
void cuda_parse(const struct kvlist *kv, struct cuda_inventory *p);

#endif
