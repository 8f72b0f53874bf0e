/*
 * cmd_check.c - gpudoctor check: verify the chain bottom-up.
 *
 * For each layer in order (hardware, kernel, containers, devices, driver, cuda,
 * libraries, frameworks): gather its static facts, then -- unless --no-load
 * or a lower layer failed -- its runtime facts from isolated children, then
 * judge it.  The first failing layer blocks the ones above it: their live
 * checks do not run and they are reported as blocked, while their static
 * findings are still shown.
 */
#include "bench/bench_deep.h"
#include "commands/commands.h"
#include "commands/check_run.h"
#include "core/ctx.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "probes/inventory.h"
#include "report/render.h"
#include "report/report.h"
#include "rules/rules.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct layer_step {
	enum layer_id id;
	void (*probe)(const struct gd_ctx *ctx, struct inventory *inv);
	void (*probe_live)(const struct gd_ctx *ctx, struct inventory *inv);
	void (*judge)(const struct rules_in *in, struct report *rep);
};

static const struct layer_step steps[LAYER_COUNT] = {
	{ LAYER_HARDWARE, probe_hardware, probe_hardware_live, rules_hardware },
	{ LAYER_KERNEL, probe_kernel, probe_kernel_live, rules_kernel },
	{ LAYER_CONTAINERS, probe_containers, probe_containers_live, rules_containers },
	{ LAYER_DEVICES, probe_devices, probe_devices_live, rules_devices },
	{ LAYER_DRIVER, probe_driver, probe_driver_live, rules_driver },
	{ LAYER_CUDA, probe_cuda, probe_cuda_live, rules_cuda },
	{ LAYER_LIBRARIES, probe_libraries, probe_libraries_live, rules_libraries },
	{ LAYER_FRAMEWORKS, probe_frameworks, probe_frameworks_live, rules_frameworks },
};

static void check_usage(FILE *f)
{
	fputs("usage: gpudoctor check [--json] [--no-load] [--root DIR] [--timeout SEC] [-v]\n"
	      "                       [--live] [--deep] [--python PATH]... [--site-packages DIR]...\n"
	      "                       [--format text|json|markdown]\n"
	      "\n"
	      "Verifies the GPU stack one link at a time, bottom-up: hardware, kernel,\n"
	      "containers, devices, driver, cuda, libraries, frameworks.  Each finding names its\n"
	      "evidence, a stable cause id and a fix.  A failing layer blocks the layers\n"
	      "above it.  Exit status: 0 nothing failed, 1 a check failed, 2 error.\n"
	      "\n"
	      "  --live                 also run each Python environment's interpreter (in a\n"
	      "                         child, with the timeout) for one real GPU operation and\n"
	      "                         compare with the static prediction\n"
	      "  --deep                 also run one small cuDNN convolution on each GPU and,\n"
	      "                         with two GPUs or more, one NCCL all-reduce, both checked\n"
	      "  --format FORMAT        text (default), json (as --json) or markdown: a\n"
	      "                         GitHub-ready block for bug reports (summary, versions,\n"
	      "                         findings in a <details> element)\n"
	      "  --python PATH          also inspect this interpreter's environment\n"
	      "  --site-packages DIR    also inspect this site-packages directory\n", f);
}


/*
 * The libraries and frameworks layers' static facts (walking toolkits,
 * site-packages and ELF headers) need nothing from the lower layers, and the
 * lower layers' live probes spend most of their time waiting for the driver
 * in children: so the scan runs on a second thread meanwhile.  The two sides
 * touch disjoint parts of the inventory (libs, fw, pyenvs vs the rest).
 */
struct upper_scan {
	const struct gd_ctx *ctx;
	struct inventory *inv;
	struct report *rep;
	int top;
};

static void *upper_scan_run(void *arg)
{
	struct upper_scan *u = arg;

	for (int l = LAYER_LIBRARIES; l < LAYER_COUNT && l <= u->top; l++) {
		double t = child_now();

		steps[l].probe(u->ctx, u->inv);
		u->rep->layer_ms[l] = (child_now() - t) * 1000.0;
	}
	return NULL;
}

int check_run(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
	      struct report *rep)
{
	return check_run_upto(ctx, kb, inv, rep, LAYER_COUNT - 1);
}

int check_run_upto(const struct gd_ctx *ctx, const struct kb *kb, struct inventory *inv,
		   struct report *rep, int top)
{
	struct upper_scan scan = { ctx, inv, rep, top };
	double t_all = child_now(), t;
	int blocked_by = -1, threaded;
	pthread_t thread;

	/*
	 * Static facts first: they never load anything.  The lower layers'
	 * here; the upper layers' on a thread that is joined before any rule
	 * of theirs runs (the libraries rules read what the frameworks need).
	 */
	for (int l = 0; l < LAYER_LIBRARIES && l <= top; l++) {
		t = child_now();
		steps[l].probe(ctx, inv);
		rep->layer_ms[l] = (child_now() - t) * 1000.0;
	}
	threaded = top >= LAYER_LIBRARIES && pthread_create(&thread, NULL, upper_scan_run, &scan) == 0;
	if (!threaded && top >= LAYER_LIBRARIES)
		upper_scan_run(&scan);
	for (int l = 0; l < LAYER_COUNT && l <= top; l++) {
		const struct layer_step *s = &steps[l];
		struct rules_in in = { .ctx = ctx, .inv = inv, .kb = kb };

		if (s->id == LAYER_LIBRARIES && threaded) {
			pthread_join(thread, NULL);
			threaded = 0;
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
			probe_cuda_live_start(ctx, inv);
		if (!in.live && s->id == LAYER_CUDA)
			probe_cuda_live_cancel(inv);
		if (in.live)
			s->probe_live(ctx, inv);
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
	/* Never leave a started CUDA child running (a no-op when it was finished). */
	probe_cuda_live_cancel(inv);
	report_finish(rep);
	rep->total_ms = (child_now() - t_all) * 1000.0;
	return 0;
}

int cmd_check(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "live", no_argument, NULL, 'L' },
		{ "deep", no_argument, NULL, 'D' },
		{ "format", required_argument, NULL, 'F' },
		{ "python", required_argument, NULL, 'P' },
		{ "site-packages", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct gd_ctx cctx = *ctx;
	const char **pys = xcalloc((size_t)argc + 1, sizeof(*pys));
	const char **sites = xcalloc((size_t)argc + 1, sizeof(*sites));
	struct inventory inv;
	struct report rep;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	struct kb *kb = NULL;
	int c, ret = 0, markdown = 0;

	cctx.python_paths = pys;
	cctx.site_dirs = sites;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			check_usage(stdout);
			ret = 0;
			goto out_opts;
		case 'F':
			if (!strcmp(optarg, "json")) {
				cctx.json = 1;
			} else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md")) {
				markdown = 1;
			} else if (strcmp(optarg, "text")) {
				fprintf(stderr, "gpudoctor check: --format must be text, json or markdown, not '%s'\n",
					optarg);
				ret = 2;
				goto out_opts;
			}
			break;
		case 'L':
			cctx.live = 1;
			break;
		case 'D':
			cctx.deep = 1;
			break;
		case 'P':
			pys[cctx.npython_paths++] = optarg;
			break;
		case 'S':
			sites[cctx.nsite_dirs++] = optarg;
			break;
		default:
			check_usage(stderr);
			ret = 2;
			goto out_opts;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpudoctor check: unexpected argument '%s'\n", argv[optind]);
		ret = 2;
		goto out_opts;
	}
	if (cctx.live && cctx.no_load) {
		fputs("gpudoctor check: --live runs interpreters, --no-load forbids it\n", stderr);
		ret = 2;
		goto out_opts;
	}
	ctx = &cctx;
	if (kb_open(ctx->kb_dir, &kb, &e) < 0) {
		fprintf(stderr, "gpudoctor: %s\n", e.msg);
		ret = 2;
		goto out_opts;
	}
	inventory_init(&inv);
	report_init(&rep);
	check_run(ctx, kb, &inv, &rep);
	if (markdown)
		render_markdown(ctx, &rep, &inv, &out);
	else if (ctx->json)
		render_json(ctx, kb, &rep, &inv, &out);
	else
		render_text(ctx, &rep, &inv, &out);
	fwrite(out.s, 1, out.len, stdout);
	ret = rep.status == STATUS_FAIL ? 1 : 0;
	buf_release(&out);
	report_release(&rep);
	inventory_release(&inv);
	kb_close(kb);
out_opts:
	free(pys);
	free(sites);
	return ret;
}
