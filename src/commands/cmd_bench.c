/*
 * cmd_bench.c - gpudoctor bench: measured copy bandwidth and GEMM throughput
 * of each GPU against the hardware's own limits, and a CPU baseline.
 *
 * Options here; the measuring runs in isolated children (bench/bench_run.c,
 * bench/bench_gpu.c), the printing in bench/bench_text.c and bench_json.c.
 * Exit status: 0 measured (findings may be warnings), 1 refused (no GPU,
 * memory held by another process, out of memory) or a GEMM gave wrong
 * results, 2 usage or internal error.
 */
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
	fputs("usage: gpudoctor bench [--quick] [--gpu N] [--json] [--no-cpu] [--cublas PATH]...\n"
	      "\n"
	      "Measures each GPU: host<->device copy bandwidth (pinned and pageable),\n"
	      "device-to-device copy bandwidth (bytes read plus written), and GEMM\n"
	      "throughput through cuBLAS in FP32, TF32, FP16 and BF16, each checked against\n"
	      "a CPU reference; then a CPU SGEMM baseline.  Each figure is shown against its\n"
	      "ceiling: the PCIe link (generation x width from sysfs) or the datasheet peak\n"
	      "from the knowledge base.  All GPU work runs in an isolated child process.\n"
	      "About 10 s; --quick about 3 s.  Needs the GPU to itself.\n"
	      "\n"
	      "  --quick          smaller sizes and fewer repetitions\n"
	      "  --gpu N          only GPU N (CUDA ordinal); default all\n"
	      "  --json           machine-readable output (schema gpudoctor.bench/1)\n"
	      "  --no-cpu         skip the CPU baseline\n"
	      "  --cublas PATH    try this libcublas first (repeatable)\n"
	      "\n"
	      "Exit status: 0 measured, 1 refused (no GPU, memory held by another process,\n"
	      "out of memory) or wrong GEMM results, 2 usage error.\n", f);
}

int cmd_bench(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-cpu", no_argument, NULL, 'n' },
		{ "cublas", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { .gpu = -1, .progress_fd = -1 };
	struct bench_run run;
	struct buf out = BUF_INIT;
	int json = ctx->json, c, ret;
	char *end;

	o.cublas = xcalloc((size_t)argc + 1, sizeof(*o.cublas));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.quick = 1;
			break;
		case 'g':
			o.gpu = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg || o.gpu < 0 || o.gpu > 1023) {
				fprintf(stderr, "gpudoctor bench: --gpu '%s' is not a GPU index (0, 1, ...)\n", tesc(optarg));
				free(o.cublas);
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
		case 'h':
			bench_usage(stdout);
			free(o.cublas);
			return 0;
		default:
			fprintf(stderr, "gpudoctor bench: unknown option or missing value '%s'\n",
				tesc(argv[optind - 1]));
			bench_usage(stderr);
			free(o.cublas);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpudoctor bench: unexpected argument '%s'\n", tesc(argv[optind]));
		free(o.cublas);
		return 2;
	}
	if (ctx->no_load) {
		fputs("gpudoctor bench: --no-load forbids loading the driver, and bench must load it to measure\n", stderr);
		free(o.cublas);
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
	if (run.refused)
		fprintf(stderr, "gpudoctor bench: %s\n", tesc(run.refused_msg ? run.refused_msg : run.refused));
	ret = strcmp(bench_run_status(&run), "refused") && strcmp(bench_run_status(&run), "fail") ? 0 : 1;
	buf_release(&out);
	bench_run_release(&run);
	free(o.cublas);
	return ret;
}
