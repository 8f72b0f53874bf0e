/*
 * cmd_plan.c - gpudoctor plan: the install pipeline for a framework release
 * on this machine (or --root's), each step followed by its verification.
 * Reads the machine with the static probes (nothing is loaded or run), then
 * src/plan/ decides and renders.  Never executes anything.  Exit status:
 * 0 a plan (steps may remain), 1 the plan stops at a step this machine cannot
 * take, 2 usage or data error.
 */
#include "commands/cli.h"
#include "commands/commands.h"
#include "engine/engine.h"
#include "core/ctx.h"
#include "core/termesc.h"
#include "knowledge/kb.h"
#include "plan/plan.h"
#include "inventory/inventory.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: gpudoctor plan [--tf V | --torch V | --jax V] [--system-cuda] [--venv DIR]\n"
	      "                      [--root DIR] [--json | --format text|json|sh]\n"
	      "\n"
	      "The install pipeline for one framework release on this machine, in the order it\n"
	      "must follow: what interferes, the GPU, Secure Boot signing, the driver (NVIDIA's\n"
	      "apt/dnf repository), the CUDA runtime and cuDNN (pip wheels unless --system-cuda),\n"
	      "a virtualenv, the framework.  Each step is followed by its verification\n"
	      "(gpudoctor check --upto LAYER); steps already satisfied are shown as done with\n"
	      "their evidence.  Nothing is run.\n"
	      "\n"
	      "  --tf V / --torch V / --jax V   the release (torch: 2.7 or 2.7+cu126); default:\n"
	      "                 the newest PyTorch with a build for this GPU\n"
	      "  --system-cuda  install CUDA and cuDNN system-wide instead of pip wheels\n"
	      "  --venv DIR     the virtualenv (default $HOME/venvs/FRAMEWORK-VERSION)\n"
	      "  --format sh    a script: set -eu, each step verified, stops at the first failure\n"
	      "Exit status: 0 a plan, 1 it stops at a step this machine cannot take, 2 error.\n", f);
}

int cmd_plan(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "tf", required_argument, NULL, 't' },
		{ "torch", required_argument, NULL, 'p' },
		{ "jax", required_argument, NULL, 'j' },
		{ "system-cuda", no_argument, NULL, 's' },
		{ "venv", required_argument, NULL, 'v' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan_request req;
	struct gd_ctx pctx = *ctx;
	const char *format = NULL;
	struct inventory inv;
	struct report rep;
	struct plan_machine m;
	struct plan *p;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	struct kb *kb;
	int c, nreq = 0, ret;

	memset(&req, 0, sizeof(req));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': req.tf = optarg; nreq++; break;
		case 'p': req.torch = optarg; nreq++; break;
		case 'j': req.jax = optarg; nreq++; break;
		case 's': req.system_cuda = 1; break;
		case 'v': req.venv = optarg; break;
		case 'f': format = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			return cli_bad_option("plan", usage, argc, argv, opts);
		}
	}
	if (optind < argc)
		return cli_error("plan", usage, "unexpected argument '%s'", argv[optind]);
	if (nreq > 1)
		return cli_error("plan", usage, "give one of --tf, --torch, --jax");
	if (cli_json_format("plan", usage, ctx->json, format))
		return 2;
	if (!format)
		format = ctx->json ? "json" : "text";
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "sh")) {
		static const char *const formats[] = { "text", "json", "sh" };

		return cli_error_hint("plan", usage, cli_suggest(format, formats, 3),
				      "--format must be text, json or sh, not '%s'", format);
	}
	if (kb_open(ctx->kb_dir, &kb, &e) < 0) {
		fprintf(stderr, "error: knowledge base: %s\n", tesc(e.msg));
		return 2;
	}
	/* the static facts of every layer: nothing is loaded or run */
	pctx.no_load = 1;
	pctx.live = 0;
	inventory_init(&inv);
	report_init(&rep);
	check_run_upto(&pctx, kb, &inv, &rep, LAYER_COUNT - 1);
	plan_machine_read(&pctx, &inv, &m);
	p = plan_new();
	if (plan_build(kb, &m, &req, p, &e) < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		ret = 2;
	} else {
		if (!strcmp(format, "sh"))
			plan_render_sh(p, &out);
		else if (!strcmp(format, "json"))
			plan_render_json(p, &out);
		else
			plan_render_text(p, &out);
		fwrite(out.s, 1, out.len, stdout);
		ret = p->stopped ? 1 : 0;
	}
	buf_release(&out);
	plan_free(p);
	plan_machine_release(&m);
	report_release(&rep);
	inventory_release(&inv);
	kb_close(kb);
	return ret;
}
