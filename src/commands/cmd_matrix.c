/*
 * cmd_matrix.c - gpudoctor matrix: query the version contract.  Parses the
 * options, opens the knowledge base, and hands the query to matrix_answer.c;
 * --solve reads this machine (matrix_machine.c).  Exit status: 0 answered,
 * 1 the given combination does not work, 2 usage or data error.
 */
#include "commands/cli.h"
#include "commands/commands.h"
#include "commands/matrix.h"
#include "core/ctx.h"
#include "core/termesc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: gpudoctor matrix [options]\n"
	      "\n"
	      "What runs with what, from the embedded knowledge base (sources cited).\n"
	      "Options combine to narrow the answer; a combination that cannot work is\n"
	      "explained and exits with status 1.\n"
	      "\n"
	      "  --tf V          TensorFlow release (2.15, 2.16.1): what it needs\n"
	      "  --torch V       PyTorch release (2.7, or 2.7+cu126 for one variant)\n"
	      "  --jax V         JAX release (0.7.2)\n"
	      "  --cuda V        CUDA toolkit/runtime version (12.4)\n"
	      "  --driver V      NVIDIA driver version (535.104.05)\n"
	      "  --gpu NAME      GPU by name (\"RTX 4090\", \"H100 PCIe\")\n"
	      "  --cc X.Y        compute capability (8.9)\n"
	      "  --pci VEN:DEV   GPU by PCI id (10de:2684)\n"
	      "  --cupy V        CuPy release (14, 13): its wheels per CUDA major\n"
	      "  --nccl          where NCCL comes from (pip wheel or the distribution's libnccl2)\n"
	      "  --solve         read this machine's GPUs and driver (or --root's) and answer\n"
	      "                  the newest TensorFlow, PyTorch and JAX that run, with the\n"
	      "                  install commands, and what a driver upgrade would unlock\n"
	      "  --kb-info       which knowledge-base data is in use, row counts, as-of dates\n"
	      "  -h, --help      this help\n"
	      "\n"
	      "Global --json gives machine-readable output; --kb DIR loads data files from DIR.\n"
	      "\n"
	      "examples:\n"
	      "  gpudoctor matrix --tf 2.15\n"
	      "  gpudoctor matrix --tf 2.21 --driver 470.256.02\n"
	      "  gpudoctor matrix --gpu \"RTX 4090\" --driver 535.104.05\n"
	      "  gpudoctor matrix --solve\n", f);
}

int cmd_matrix(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "tf", required_argument, NULL, 't' },
		{ "torch", required_argument, NULL, 'p' },
		{ "jax", required_argument, NULL, 'j' },
		{ "cuda", required_argument, NULL, 'c' },
		{ "driver", required_argument, NULL, 'd' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "cc", required_argument, NULL, 'C' },
		{ "pci", required_argument, NULL, 'P' },
		{ "solve", no_argument, NULL, 's' },
		{ "cupy", required_argument, NULL, 'u' },
		{ "nccl", no_argument, NULL, 'n' },
		{ "kb-info", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct matrix_query q;
	struct matrix_machine m;
	struct matrix_result *r;
	struct err e = ERR_INIT;
	struct kb *kb;
	int c, info = 0, ret;

	memset(&q, 0, sizeof(q));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': q.tf = optarg; break;
		case 'p': q.torch = optarg; break;
		case 'j': q.jax = optarg; break;
		case 'c': q.cuda = optarg; break;
		case 'd': q.driver = optarg; break;
		case 'g': q.gpu = optarg; break;
		case 'C': q.cc = optarg; break;
		case 'P': q.pci = optarg; break;
		case 's': q.solve = 1; break;
		case 'u': q.cupy = optarg; break;
		case 'n': q.nccl = 1; break;
		case 'i': info = 1; break;
		case 'h': usage(stdout); return 0;
		default:
			return cli_bad_option("matrix", usage, argc, argv, opts);
		}
	}
	if (optind < argc) {
		return cli_error("matrix", usage, "unexpected argument '%s'", argv[optind]);
	}
	if (kb_open(ctx->kb_dir, &kb, &e) < 0) {
		fprintf(stderr, "error: knowledge base: %s\n", tesc(e.msg));
		return 2;
	}
	if (info) {
		matrix_kb_info(kb, ctx->kb_dir, ctx->json);
		kb_close(kb);
		return 0;
	}
	if (q.solve)
		matrix_machine_read(ctx, &m);
	r = calloc(1, sizeof(*r));
	if (!r) {
		kb_close(kb);
		return 2;
	}
	if (matrix_answer(kb, &q, q.solve ? &m : NULL, r, &e) < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		ret = 2;
	} else {
		if (ctx->json)
			matrix_render_json(kb, &q, r);
		else
			matrix_render_text(kb, r);
		ret = r->verdict == 0 ? 1 : 0;
	}
	free(r);
	kb_close(kb);
	return ret;
}
