/*
 * cmd_bench.c - gpudoctor bench: measured copy bandwidth and GEMM throughput
 * of each GPU against the hardware's own limits, and a CPU baseline.
 *
 * Options here; the measuring runs in isolated children (bench/bench_run.c,
 * bench/bench_gpu.c), the printing in bench/bench_text.c and bench_json.c.
 * Exit status: 0 measured (findings may be warnings or notes: no cuDNN or
 * NCCL installed is a note), 1 refused (no GPU, memory held by another
 * process, out of memory), a GEMM or convolution gave wrong results, or
 * cuDNN or NCCL failed, 2 usage or internal error.
 */
#include "commands/cli.h"
#include "bench/bench_conv.h"
#include "bench/bench_render.h"
#include "bench/bench_run.h"
#include "commands/commands.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/termesc.h"
#include "core/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bench_usage(FILE *f)
{
	fputs("usage: gpudoctor bench [--quick] [--gpu N] [--json] [--no-cpu] [--no-conv] [--no-nccl]\n"
	      "                       [--conv-shape N,C,H,W,K[,R,S[,pad[,stride]]]]\n"
	      "                       [--cublas PATH]... [--cudnn PATH]... [--nccl PATH]...\n"
	      "\n"
	      "Measures each GPU: host<->device copy bandwidth (pinned and pageable),\n"
	      "device-to-device copy bandwidth (bytes read plus written), and GEMM\n"
	      "throughput through cuBLAS in FP32, TF32, FP16 and BF16, each checked against\n"
	      "a CPU reference; cuDNN convolutions (a ResNet layer, N=32 C=K=256 56x56 3x3,\n"
	      "forward, backward data and backward filter in FP32/TF32, FP16 and BF16, the\n"
	      "algorithm cudnnFind picks, outputs checked); NCCL all-reduce, all-gather and\n"
	      "reduce-scatter over all GPUs from 8 B to 1 GiB (busbw as nccl-tests); then a\n"
	      "CPU SGEMM baseline and the same CNN layer on the CPU.  Each figure is shown against its\n"
	      "ceiling: the PCIe link (generation x width from sysfs) or the datasheet peak\n"
	      "from the knowledge base.  All GPU work runs in an isolated child process.\n"
	      "About 20 s on one GPU; --quick about 6 s.  Needs the GPUs to itself.\n"
	      "\n"
	      "  --quick          smaller sizes and fewer repetitions\n"
	      "  --gpu N          only GPU N (CUDA ordinal); default all\n"
	      "  --json           machine-readable output (schema gpudoctor.bench/1)\n"
	      "  --no-cpu         skip the CPU baseline\n"
	      "  --cublas PATH    try this libcublas first (repeatable)\n"
	      "  --cudnn PATH     measure this libcudnn (repeatable: the first that loads);\n"
	      "                   default: the libcudnn.so.9 (or .8) the loader gives\n"
	      "  --nccl PATH      measure this libnccl (repeatable); default: libnccl.so.2\n"
	      "  --no-conv        skip the cuDNN convolutions\n"
	      "  --conv-shape N,C,H,W,K[,R,S[,pad[,stride]]]\n"
	      "                   measure this convolution instead of the ResNet layer\n"
	      "  --no-nccl        skip the NCCL collectives\n"
	      "\n"
	      "Exit status: 0 measured, 1 refused (no GPU, memory held by another process,\n"
	      "out of memory), wrong GEMM or convolution results, or a cuDNN or NCCL\n"
	      "failure, 2 usage error.\n", f);
}

static void bench_opts_free(struct bench_opts *o)
{
	free(o->cublas);
	free(o->cudnn);
	free(o->nccl);
}

int cmd_bench(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-cpu", no_argument, NULL, 'n' },
		{ "cublas", required_argument, NULL, 'c' },
		{ "cudnn", required_argument, NULL, 'd' },
		{ "nccl", required_argument, NULL, 'N' },
		{ "no-conv", no_argument, NULL, 'C' },
		{ "conv-shape", required_argument, NULL, 'S' },
		{ "no-nccl", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { .gpu = -1, .progress_fd = -1 };
	struct bench_run run;
	struct buf out = BUF_INIT;
	int json = ctx->json, c, ret;
	char *end;

	o.cublas = xcalloc((size_t)argc + 1, sizeof(*o.cublas));
	o.cudnn = xcalloc((size_t)argc + 1, sizeof(*o.cudnn));
	o.nccl = xcalloc((size_t)argc + 1, sizeof(*o.nccl));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.quick = 1;
			break;
		case 'g':
			o.gpu = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg || o.gpu < 0 || o.gpu > 1023) {
				fprintf(stderr, "error: --gpu '%s' is not a GPU index (0, 1, ...)\n", tesc(optarg));
				bench_opts_free(&o);
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			o.no_cpu = 1;
			break;
		case 'c':
			o.cublas[o.ncublas++] = optarg;
			break;
		case 'd':
			o.cudnn[o.ncudnn++] = optarg;
			break;
		case 'N':
			o.nccl[o.nnccl++] = optarg;
			break;
		case 'C':
			o.no_conv = 1;
			break;
		case 'S': {
			struct bench_conv_shape sh;

			if (bench_conv_shape_parse(optarg, &sh) < 0) {
				fprintf(stderr, "error: --conv-shape '%s' is not N,C,H,W,K[,R,S[,pad[,stride]]] with a non-empty output\n", optarg);
				bench_opts_free(&o);
				return 2;
			}
			o.conv_shape = optarg;
			break;
		}
		case 'X':
			o.no_nccl = 1;
			break;
		case 'h':
			bench_usage(stdout);
			bench_opts_free(&o);
			return 0;
		default:
			bench_opts_free(&o);
			return cli_bad_option("bench", bench_usage, argc, argv, longopts);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", tesc(argv[optind]));
		bench_opts_free(&o);
		return 2;
	}
	if (ctx->no_load) {
		fputs("error: --no-load forbids loading the driver, and bench must load it to measure\n", stderr);
		bench_opts_free(&o);
		return 2;
	}
	/* The live line goes to a duplicate of stderr that the children inherit. */
	if (isatty(STDERR_FILENO))
		o.progress_fd = dup(STDERR_FILENO);
	bench_run_init(&run);
	bench_run_all(ctx, &o, &run);
	if (o.progress_fd >= 0)
		close(o.progress_fd);
	if (json)
		bench_render_json(&run, &out);
	else
		bench_render_text(&run, &out);
	fputs(out.s, stdout);
	if (run.refused != CAUSE_NONE)
		fprintf(stderr, "gpudoctor bench: %s\n", run.refused_msg ? tesc(run.refused_msg) : cause_id_str(run.refused));
	ret = strcmp(bench_run_status(&run), "refused") && strcmp(bench_run_status(&run), "fail") ? 0 : 1;
	buf_release(&out);
	bench_run_release(&run);
	bench_opts_free(&o);
	return ret;
}
