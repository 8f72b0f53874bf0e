/*
 * engine.c - the check pipeline: the layer-step table and the children it
 * starts, for every command that needs check's verdicts (engine.h).
 *
 * For each layer in order (hardware, kernel, containers, devices, driver, cuda,
 * libraries, frameworks): gather its static facts, then -- unless --no-load
 * or a lower layer failed -- its runtime facts from isolated children, then
 * judge it.  The first failing layer blocks the ones above it: their live
 * checks do not run and they are reported as blocked, while their static
 * findings are still shown.
 */
#include "engine/engine.h"
#include "bench/bench_deep.h"
#include "core/child.h"
#include "core/ctx.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "probes/containers/containers.h"
#include "probes/cuda/cuda.h"
#include "probes/devices/devices.h"
#include "probes/driver/driver.h"
#include "probes/frameworks/frameworks.h"
#include "probes/hardware/hardware.h"
#include "probes/kernel/kernel.h"
#include "probes/libraries/libraries.h"
#include "probes/platform/platform.h"
#include "probes/probe_in.h"
#include "report/report.h"
#include "rules/rules.h"

#include <pthread.h>
#include <stddef.h>

/*
 * The layers bottom-up: each one's static probe, live probe and rules.  The
 * cuda and libraries layers' live probes finish children started earlier,
 * held in struct live_children: run_live() passes them.
 */
struct layer_step {
	enum layer_id id;
	void (*probe)(const struct probe_in *in, struct inventory *inv);
	void (*probe_live)(const struct gd_ctx *ctx, struct inventory *inv);
	void (*judge)(const struct rules_in *in, struct report *rep);
};

static const struct layer_step steps[LAYER_COUNT] = {
	{ LAYER_HARDWARE, probe_hardware, probe_hardware_live, rules_hardware },
	{ LAYER_KERNEL, probe_kernel, probe_kernel_live, rules_kernel },
	{ LAYER_CONTAINERS, probe_containers, probe_containers_live, rules_containers },
	{ LAYER_DEVICES, probe_devices, probe_devices_live, rules_devices },
	{ LAYER_DRIVER, probe_driver, probe_driver_live, rules_driver },
	{ LAYER_CUDA, probe_cuda, NULL, rules_cuda },			/* live: run_live() */
	{ LAYER_LIBRARIES, probe_libraries, NULL, rules_libraries },	/* live: run_live() */
	{ LAYER_FRAMEWORKS, probe_frameworks, probe_frameworks_live, rules_frameworks },
};

/*
 * The libraries and frameworks layers' static facts (walking toolkits,
 * site-packages and ELF headers) need nothing from the lower layers, and the
 * lower layers' live probes spend most of their time waiting for the driver
 * in children: so the scan runs on other threads meanwhile, one per layer
 * (neither reads the other's facts; the loader memo they share is locked,
 * loader/ldso.h).  The threads touch disjoint parts of the inventory (libs,
 * fw vs the rest).
 */
struct upper_scan {
	const struct probe_in *in;
	struct inventory *inv;
	struct report *rep;
	int layer;
	int top;
	pthread_t thread;
	int threaded;
};

static void *upper_scan_run(void *arg)
{
	struct upper_scan *u = arg;
	double t = child_now();

	steps[u->layer].probe(u->in, u->inv);
	u->rep->layer_ms[u->layer] = (child_now() - t) * 1000.0;
	return NULL;
}

static void upper_scan_start(struct upper_scan *scan, size_t n)
{
	for (size_t i = 0; i < n; i++)
		scan[i].threaded = scan[i].layer <= scan[i].top &&
				   pthread_create(&scan[i].thread, NULL, upper_scan_run, &scan[i]) == 0;
	for (size_t i = 0; i < n; i++)
		if (!scan[i].threaded && scan[i].layer <= scan[i].top)
			upper_scan_run(&scan[i]);
}

/* Join the scan threads (once; a no-op afterwards). */
static void upper_scan_join(struct upper_scan *scan, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (scan[i].threaded) {
			pthread_join(scan[i].thread, NULL);
			scan[i].threaded = 0;
		}
}

int check_run(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
	      struct report *rep)
{
	return check_run_upto(ctx, kb, inv, rep, LAYER_COUNT - 1);
}

int check_run_upto(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
		   struct report *rep, int top)
{
	struct probe_in pin;
	int rc;

	probe_in_init(&pin, ctx, kb);
	rc = check_run_in(&pin, inv, rep, top);
	probe_in_release(&pin);
	return rc;
}

/*
 * The children started early, for a later layer's live probe: the engine's,
 * never the inventory's (which is pure data), and never left running.
 */
struct live_children {
	struct cuda_pending cuda;
	struct libraries_pending libs;
};

static void run_live(const struct layer_step *s, const struct gd_ctx *ctx, struct inventory *inv,
		     struct live_children *kids)
{
	if (s->id == LAYER_CUDA)
		probe_cuda_live(ctx, inv, &kids->cuda);
	else if (s->id == LAYER_LIBRARIES)
		probe_libraries_live(ctx, inv, &kids->libs);
	else
		s->probe_live(ctx, inv);
}

int check_run_in(const struct probe_in *pin, struct inventory *inv, struct report *rep, int top)
{
	struct live_children kids = { CUDA_PENDING_INIT, LIBRARIES_PENDING_INIT };
	const struct gd_ctx *ctx = pin->ctx;
	const struct kb *kb = pin->kb;
	struct upper_scan scan[] = {
		{ pin, inv, rep, LAYER_LIBRARIES, top, 0, 0 },
		{ pin, inv, rep, LAYER_FRAMEWORKS, top, 0, 0 },
	};
	const size_t nscan = sizeof(scan) / sizeof(scan[0]);
	double t_all = child_now(), t;
	int blocked_by = -1;

	/*
	 * Static facts first: they never load anything.  The lower layers'
	 * here; the upper layers' on threads that are joined before any rule
	 * of theirs runs (the libraries rules read what the frameworks need).
	 */
	pyenv_list_copy(&inv->pyenvs, &pin->pyenvs);
	/* What kind of machine (WSL, a GPU Operator node): every layer reads it. */
	probe_platform(pin, inv);
	for (int l = 0; l < LAYER_LIBRARIES && l <= top; l++) {
		t = child_now();
		steps[l].probe(pin, inv);
		rep->layer_ms[l] = (child_now() - t) * 1000.0;
	}
	upper_scan_start(scan, nscan);
	for (int l = 0; l < LAYER_COUNT && l <= top; l++) {
		const struct layer_step *s = &steps[l];
		struct rules_in in = { .ctx = ctx, .inv = inv, .kb = kb };

		if (s->id == LAYER_LIBRARIES) {
			upper_scan_join(scan, nscan);
			frameworks_adopt_library_versions(&inv->fw, &inv->libs);
		}
		t = child_now();
		in.blocked = blocked_by >= 0;
		in.live = !ctx->no_load && !in.blocked;
		/*
		 * The CUDA child starts beside the NVML child (its cuInit overlaps
		 * NVML; it holds back its contexts until released); it is finished
		 * by the cuda layer's live probe, or killed unused when that layer
		 * is blocked.
		 */
		if (in.live && s->id == LAYER_DRIVER)
			probe_cuda_live_start(ctx, inv, &kids.cuda);
		if (!in.live && s->id == LAYER_CUDA)
			probe_cuda_live_cancel(&kids.cuda);
		/*
		 * The libraries' version children (a cold libcudnn load is about
		 * 100 ms) run while the CUDA child makes its contexts, not after:
		 * released first, then the scan joined, then they start.  Used by
		 * the libraries layer's live probe, killed unused if it is blocked.
		 */
		if (in.live && s->id == LAYER_CUDA) {
			probe_cuda_live_release(ctx, &kids.cuda);
			upper_scan_join(scan, 1);	/* scan[0]: the libraries */
			probe_libraries_live_start(ctx, inv, &kids.libs);
		}
		if (!in.live && s->id == LAYER_LIBRARIES)
			probe_libraries_live_cancel(&kids.libs);
		if (in.live)
			run_live(s, ctx, inv, &kids);
		s->judge(&in, rep);
		if (s->id == LAYER_LIBRARIES && in.live && ctx->deep)
			bench_deep_check(ctx, inv, rep);
		if (in.blocked) {
			report_block(rep, s->id, (enum layer_id)blocked_by);
		} else if (report_layer_worst(rep, s->id) == STATUS_FAIL) {
			blocked_by = (int)s->id;
		}
		rep->layer_ms[l] += (child_now() - t) * 1000.0;
	}
	/* Never leave a started child running (a no-op when it was finished). */
	probe_cuda_live_cancel(&kids.cuda);
	probe_libraries_live_cancel(&kids.libs);
	report_finish(rep);
	rep->total_ms = (child_now() - t_all) * 1000.0;
	return 0;
}
