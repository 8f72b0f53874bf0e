/*
 * cmd_burn.c - gpudoctor burn: node acceptance under sustained, verified
 * load, every GPU at once, each judged (src/burn/).
 *
 * Options here; the load runs in one isolated child per GPU with a deadline
 * (burn/burn_child.c), NVML is sampled by watch's sampler child, the
 * verdict is burn/burn_judge.c.  Exit status: 0 every GPU passed (warnings
 * allowed), 1 a GPU failed or could not be burned, 2 usage or internal
 * error.  Ctrl-C stops the run and prints the partial verdict.
 */
#include "burn/burn.h"
#include "commands/commands.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/termesc.h"
#include "core/xalloc.h"
#include "report/report.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void burn_usage(FILE *f)
{
	fputs("usage: gpudoctor burn [--minutes N | --quick] [--gpu N] [--json] [--cublas PATH]...\n"
	      "\n"
	      "Loads every GPU at once, the node's power and thermal worst case, and\n"
	      "judges each: bf16 GEMMs through cuBLAS at full power, each product checked\n"
	      "against a CPU reference and bit for bit against the first product (silent\n"
	      "data corruption); a memory test over nearly all free memory (address-derived\n"
	      "data, moving inversions, walking ones and zeros); host<->device copies\n"
	      "compared byte for byte.  NVML is sampled once a second: clocks, clock event\n"
	      "reasons, temperature, power, ECC, row remapping, other processes.  The\n"
	      "verdict names data corruption, bad memory, hangs, throttling, throughput\n"
	      "that falls under sustained load and the slowest GPU of the node, each with\n"
	      "its evidence and a fix.  All GPU work runs in child processes with\n"
	      "deadlines; nothing changes a GPU setting.  Needs the GPUs to itself.\n"
	      "\n"
	      "  --minutes N      how long to load the GPUs (default 5)\n"
	      "  --quick          about one minute\n"
	      "  --gpu N          only GPU N (CUDA ordinal); default all, at once\n"
	      "  --json           machine-readable output (schema gpudoctor.burn/1)\n"
	      "  --cublas PATH    try this libcublas first (repeatable)\n"
	      "  --gemm-n N       the GEMM size (default 8192)\n"
	      "  --mem-mib M      cap the memory test at M MiB (default: all free memory)\n"
	      "  --tick SEC       seconds per verified round (default 1)\n"
	      "  --stall SEC      no progress for this long means the GPU hangs (default 60)\n"
	      "\n"
	      "Exit status: 0 every GPU passed, 1 a GPU failed or was not burned, 2 usage\n"
	      "error.  Ctrl-C stops the run and prints the partial verdict.\n", f);
}

int cmd_burn(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "minutes", required_argument, NULL, 'm' },
		{ "quick", no_argument, NULL, 'q' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "cublas", required_argument, NULL, 'c' },
		{ "gemm-n", required_argument, NULL, 'n' },
		{ "mem-mib", required_argument, NULL, 'M' },
		{ "tick", required_argument, NULL, 't' },
		{ "stall", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct burn_opts o = { .seconds = 300, .gpu = -1, .progress_fd = -1, .n = 8192, .tick = 1.0 };
	struct burn_run run;
	struct report rep;
	struct buf out = BUF_INIT;
	int json = ctx->json, c, ret;
	char *end;

	o.cublas = xcalloc((size_t)argc + 1, sizeof(*o.cublas));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		double v;

		switch (c) {
		case 'm':
		case 'M':
		case 't':
		case 's':
			v = strtod(optarg, &end);
			if (*end || !*optarg || !(v > 0) || v > 1e6) {
				fprintf(stderr, "error: --%s '%s' is not a positive number\n",
					c == 'm' ? "minutes" : c == 'M' ? "mem-mib" : c == 's' ? "stall" : "tick",
					tesc(optarg));
				free(o.cublas);
				return 2;
			}
			if (c == 'm')
				o.seconds = v * 60.0;
			else if (c == 'M')
				o.mem_mib = v;
			else if (c == 's')
				o.stall = v;
			else
				o.tick = v;
			break;
		case 'q':
			o.seconds = 60;
			break;
		case 'g':
		case 'n': {
			long n = strtol(optarg, &end, 10);

			if (*end || !*optarg || n < (c == 'g' ? 0 : 16) || n > (c == 'g' ? 1023 : 32768)) {
				fprintf(stderr, "error: --%s '%s' is out of range\n", c == 'g' ? "gpu" : "gemm-n",
					tesc(optarg));
				free(o.cublas);
				return 2;
			}
			if (c == 'g')
				o.gpu = (int)n;
			else
				o.n = (int)n;
			break;
		}
		case 'j':
			json = 1;
			break;
		case 'c':
			o.cublas[o.ncublas++] = optarg;
			break;
		case 'h':
			burn_usage(stdout);
			free(o.cublas);
			return 0;
		default:
			fprintf(stderr, "error: unknown option or missing value '%s'\n"
				"usage: gpudoctor burn [--minutes N | --quick] [--gpu N] [--json] [--cublas PATH]...\n",
				tesc(argv[optind - 1]));
			free(o.cublas);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", tesc(argv[optind]));
		free(o.cublas);
		return 2;
	}
	if (ctx->no_load) {
		fputs("error: burn must load the driver to load the GPUs; --no-load (or --root) forbids it\n", stderr);
		free(o.cublas);
		return 2;
	}
	if (!json && isatty(STDERR_FILENO))
		o.progress_fd = dup(STDERR_FILENO);
	burn_run_init(&run);
	report_init(&rep);
	if (burn_run_all(ctx, &o, &run) < 0) {
		fprintf(stderr, "error: %s\n", tesc(run.error));
		ret = 2;
		goto out;
	}
	burn_judge(&run, &o, &rep);
	if (json)
		burn_render_json(&run, &rep, &out);
	else
		burn_render_text(&run, &rep, ctx->use_color, &out);
	fputs(out.s, stdout);
	/* A GPU that was not burned has not passed acceptance, whatever the
	 * severity of the reason (memory held by another process is a warning
	 * in check, where nothing is running yet). */
	ret = rep.status == STATUS_FAIL ? 1 : 0;
	for (size_t i = 0; i < run.ngpus; i++)
		if (run.gpus[i].refuse != CAUSE_NONE || !run.gpus[i].gemms)
			ret = 1;
out:
	if (o.progress_fd >= 0)
		close(o.progress_fd);
	buf_release(&out);
	report_release(&rep);
	burn_run_release(&run);
	free(o.cublas);
	return ret;
}
