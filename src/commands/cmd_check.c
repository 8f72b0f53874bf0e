/*
 * cmd_check.c - gpudoctor check: verify the chain bottom-up.
 *
 * The options, --upto/--layer and the output; the layers themselves are
 * probed and judged by the engine (engine/engine.h).
 */
#include "commands/cli.h"
#include "commands/commands.h"
#include "engine/engine.h"
#include "core/ctx.h"
#include "core/termesc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "render/render.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_usage(FILE *f)
{
	fputs("usage: gpudoctor check [--json] [--no-load] [--root DIR] [--timeout SEC] [-v]\n"
	      "                       [--live] [--deep] [--python PATH]... [--site-packages DIR]...\n"
	      "                       [--format text|json|markdown] [--upto LAYER | --layer LAYER]\n"
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
	      "  --site-packages DIR    also inspect this site-packages directory\n"
	      "  --upto LAYER           check the layers up to LAYER only (the step of an install\n"
	      "                         that just set LAYER up: gpudoctor plan prints these)\n"
	      "  --layer LAYER          report one layer (the layers below it are checked, as it\n"
	      "                         stands on them; exit status 1 when it fails or is blocked)\n"
	      "LAYER: hardware, kernel, containers, devices, driver, cuda, libraries, frameworks.\n"
	      "FORMAT: text, json, markdown.\n", f);
}


/*
 * --python and --site-packages name paths of the machine.  Relative ones
 * were silently ignored: on the host (--root /) they are taken from the
 * working directory, as a shell would; inside another --root a relative
 * path means nothing, and is an error.  Made-up strings are kept in *owned.
 */
static int absolute_paths(const struct gd_ctx *ctx, const char **v, size_t n, const char *opt,
			  char **owned, size_t *nowned)
{
	for (size_t i = 0; i < n; i++) {
		char *cwd;

		if (v[i][0] == '/')
			continue;
		if (strcmp(ctx->root, "/") != 0 || !(cwd = getcwd(NULL, 0))) {
			fprintf(stderr, "error: %s '%s': give an absolute path (inside --root's tree)\n",
				opt, tesc(v[i]));
			return -1;
		}
		owned[*nowned] = fs_join(cwd, v[i]);
		v[i] = owned[(*nowned)++];
		free(cwd);
	}
	return 0;
}

/* --upto/--layer: the layers above `top` were neither probed nor judged; say so. */
static void mark_not_checked(struct report *rep, int top)
{
	for (int l = top + 1; l < LAYER_COUNT; l++)
		report_skip(rep, (enum layer_id)l, "check.not-checked", "not checked: the check stopped at the %s "
			    "layer (--upto/--layer)", layer_name((enum layer_id)top));
	report_finish(rep);
}

/*
 * --layer: the layers below were checked because the one asked about stands
 * on them; their findings are not its answer, so they leave the report (a
 * failure below still shows, as the reason this layer is blocked).
 */
static void keep_one_layer(struct report *rep, int only)
{
	size_t kept = 0;
	int by = rep->layers[only].status == STATUS_BLOCKED ? rep->layers[only].blocked_by : -1;

	for (size_t i = 0; i < rep->n; i++) {
		/* the layer's own findings, and the failures of the layer that blocks it */
		if ((int)rep->findings[i].layer == only ||
		    ((int)rep->findings[i].layer == by && rep->findings[i].status == STATUS_FAIL)) {
			rep->findings[kept++] = rep->findings[i];
			continue;
		}
		free(rep->findings[i].id);
		free(rep->findings[i].title);
		for (size_t k = 0; k < rep->findings[i].nevidence; k++)
			free(rep->findings[i].evidence[k]);
		free(rep->findings[i].evidence);
		free(rep->findings[i].fix);
	}
	rep->n = kept;
	for (int l = 0; l < only; l++)
		if (l != by) {
			report_skip(rep, (enum layer_id)l, "check.not-shown", "not shown: --layer %s",
				    layer_name((enum layer_id)only));
			rep->layers[l].status = STATUS_SKIPPED;
			rep->layers[l].blocked_by = -1;
		}
	report_finish(rep);
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
		{ "upto", required_argument, NULL, 'U' },
		{ "layer", required_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	int top = LAYER_COUNT - 1, only = -1;
	struct gd_ctx cctx = *ctx;
	const char **pys = xcalloc((size_t)argc + 1, sizeof(*pys));
	const char **sites = xcalloc((size_t)argc + 1, sizeof(*sites));
	struct probe_in pin;
	char **owned = xcalloc((size_t)argc + 1, sizeof(*owned));
	size_t nowned = 0;
	struct inventory inv;
	struct report rep;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	struct kb *kb = NULL;
	int c, ret = 0, markdown = 0;
	const char *format = NULL;

	cctx.python_paths = pys;
	cctx.site_dirs = sites;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			check_usage(stdout);
			ret = 0;
			goto out_opts;
		case 'F':
			format = optarg;
			if (!strcmp(optarg, "json")) {
				cctx.json = 1;
			} else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md")) {
				markdown = 1;
			} else if (strcmp(optarg, "text")) {
				static const char *const formats[] = { "text", "json", "markdown" };

				ret = cli_error_hint("check", check_usage, cli_suggest(optarg, formats, 3),
						     "--format must be text, json or markdown, not '%s'", optarg);
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
		case 'U':
		case 'Y':
			if (layer_from_name(optarg) < 0) {
				const char *layers[LAYER_COUNT];

				for (int l = 0; l < LAYER_COUNT; l++)
					layers[l] = layer_name((enum layer_id)l);
				ret = cli_error_hint("check", check_usage, cli_suggest(optarg, layers, LAYER_COUNT),
						     "--%s '%s' is not a layer: hardware, kernel, containers, devices, "
						     "driver, cuda, libraries or frameworks", c == 'U' ? "upto" : "layer",
						     optarg);
				goto out_opts;
			}
			if (c == 'U' ? only >= 0 : top != LAYER_COUNT - 1) {
				ret = cli_error("check", check_usage, "give one of --upto and --layer");
				goto out_opts;
			}
			top = layer_from_name(optarg);
			if (c == 'Y')
				only = top;
			break;
		default:
			ret = cli_bad_option("check", check_usage, argc, argv, opts);
			goto out_opts;
		}
	}
	if (optind < argc) {
		ret = cli_error("check", check_usage, "unexpected argument '%s'", argv[optind]);
		goto out_opts;
	}
	/* --json with --format text (or markdown) asks for two outputs */
	if (cli_json_format("check", check_usage, ctx->json, format)) {
		ret = 2;
		goto out_opts;
	}
	if (absolute_paths(&cctx, pys, cctx.npython_paths, "--python", owned, &nowned) < 0 ||
	    absolute_paths(&cctx, sites, cctx.nsite_dirs, "--site-packages", owned, &nowned) < 0) {
		ret = 2;
		goto out_opts;
	}
	if (cctx.live && cctx.no_load) {
		fputs(cctx.no_load_implied
		      ? "error: --live runs the tree's interpreters: give --load-from-root\n"
		      : "error: --live runs interpreters, --no-load forbids it\n", stderr);
		ret = 2;
		goto out_opts;
	}
	ctx = &cctx;
	if (kb_open(ctx->kb_dir, &kb, &e) < 0) {
		fprintf(stderr, "gpudoctor: %s\n", tesc(e.msg));
		ret = 2;
		goto out_opts;
	}
	probe_in_init(&pin, ctx, kb);
	inventory_init(&inv);
	report_init(&rep);
	snprintf(rep.kb_as_of, sizeof(rep.kb_as_of), "%s", kb_as_of(kb) ? kb_as_of(kb) : "");
	check_run_in(&pin, &inv, &rep, top);
	if (top < LAYER_COUNT - 1)
		mark_not_checked(&rep, top);
	if (only >= 0)
		keep_one_layer(&rep, only);
	if (markdown)
		render_markdown(ctx, &rep, &inv, &out);
	else if (ctx->json)
		render_json(ctx, kb, &rep, &inv, &out);
	else
		render_text(ctx, &rep, &inv, &out);
	fwrite(out.s, 1, out.len, stdout);
	ret = rep.status == STATUS_FAIL ? 1 : 0;
	if (only >= 0 && rep.layers[only].status == STATUS_BLOCKED)
		ret = 1;	/* the layer asked about cannot work yet */
	buf_release(&out);
	report_release(&rep);
	inventory_release(&inv);
	probe_in_release(&pin);
	kb_close(kb);
out_opts:
	free(pys);
	free(sites);
	fs_names_free(owned, nowned);
	return ret;
}
