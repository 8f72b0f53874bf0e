/*
 * cmd_watch.c - gpudoctor watch: the health monitor (src/watch/).
 *
 *	gpudoctor watch [--interval 30s] [--listen 127.0.0.1:9835] [--textfile DIR]
 *	                [--state-dir DIR] [--policy nvidia|conservative|FILE]
 *	                [--kmsg-file FILE] [--static-every N] [--sample-nvml LIB] [--once]
 *	gpudoctor watch --ack GPU [--state-dir DIR]
 *
 * Also the child side of the daemon's static check (--static-sweep, hidden):
 * check's pipeline with --no-load, printed as key=value lines.
 */
#include "engine/engine.h"
#include "commands/cli.h"
#include "commands/commands.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/termesc.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "report/finding_record.h"
#include "report/report.h"
#include "watch/run.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void watch_usage(FILE *f)
{
	fputs("usage: gpudoctor watch [--interval 30s] [--listen 127.0.0.1:9835] [--textfile DIR]\n"
	      "                       [--state-dir DIR] [--policy nvidia|conservative|FILE]\n"
	      "                       [--kmsg-file FILE] [--static-every N] [--sample-nvml LIB]\n"
	      "                       [--once]\n"
	      "       gpudoctor watch --ack GPU [--state-dir DIR]\n"
	      "\n"
	      "Watches the GPU stack: XIDs from the kernel log as they happen, NVML health\n"
	      "facts every interval (from a child with a deadline, so a hung driver never\n"
	      "hangs watch), and check's static layers every N intervals and whenever the\n"
	      "driver changes.  Serves /metrics (Prometheus), /healthz (200 or 503) and /\n"
	      "(the report); keeps its state in --state-dir; speaks systemd's notify protocol.\n"
	      "\n"
	      "  --interval T      seconds between sweeps (\"30s\", \"1s\", \"2m\"; default 30s)\n"
	      "  --listen H:P      HTTP address (default 127.0.0.1:9835; \"none\": no HTTP)\n"
	      "  --textfile DIR    also write DIR/gpudoctor.prom for node_exporter\n"
	      "  --state-dir DIR   default /var/lib/gpudoctor (file 'state': docs/watch-state.md)\n"
	      "  --policy P        XID policy: nvidia (default), conservative, or a file\n"
	      "  --kmsg-file FILE  read kernel records from FILE instead of /dev/kmsg (a file,\n"
	      "                    a FIFO, or a character device such as /dev/kmsg)\n"
	      "  --static-every N  re-run the static check every N sweeps (default: 5 minutes' worth)\n"
	      "  --sample-nvml LIB sample NVML from LIB, an absolute path in this process's own\n"
	      "                    root, even with --root (which otherwise implies --no-load):\n"
	      "                    in a container, the libnvidia-ml.so.1 the NVIDIA container\n"
	      "                    toolkit injected; the --root tree's libraries are never loaded\n"
	      "  --once            one sweep, print the report, exit 1 if something failed\n"
	      "  --ack GPU         clear unacknowledged fatal XIDs of GPU (index, PCI address, all)\n", f);
}

static void log_line(const char *line)
{
	char ts[32];
	time_t t = time(NULL);
	struct tm tm;

	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* Lines quote the machine (kernel log text, NVML names): escaped for the terminal. */
	fprintf(stderr, "%s %s\n", ts, tesc(line));
	fflush(stderr);
}

static void print_text(const char *text, size_t len)
{
	fwrite(text, 1, len, stdout);
}

static int parse_interval(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (!strcmp(end, "m"))
		v *= 60;
	else if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (!(v >= 0.05 && v <= 86400))
		return -1;
	*out = v;
	return 0;
}

/* The child side of the static check: findings of check --no-load as key=value lines. */
static int static_sweep(const struct gd_ctx *ctx)
{
	struct gd_ctx c = *ctx;
	struct inventory inv;
	struct report rep;
	struct err e = ERR_INIT;
	struct kb *kb = NULL;
	char key[64];

	c.no_load = 1;
	/* watch's own child: the same trust as the daemon's tables. */
	if (kb_open_trusted(c.kb_dir, &kb, &e) < 0) {
		kv_emit("error", "%s", e.msg);
		kv_end();
		return 0;
	}
	inventory_init(&inv);
	report_init(&rep);
	check_run(&c, kb, &inv, &rep);
	for (int l = 0; l < LAYER_COUNT; l++) {
		snprintf(key, sizeof(key), "layer.%d.status", l);
		kv_emit(key, "%s", status_name(rep.layers[l].status));
	}
	/* The findings that are not ok, as report/finding_record.h records. */
	for (size_t i = 0, n = 0; i < rep.n; i++) {
		const struct finding *f = &rep.findings[i];
		struct buf rec = BUF_INIT;

		if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
			continue;
		finding_record_write(&rec, f);
		snprintf(key, sizeof(key), "finding.%zu", n++);
		kv_emit(key, "%s", rec.s);
		buf_release(&rec);
	}
	if (inv.driver.nvml.path) {
		struct buf host = BUF_INIT;

		fs_path(ctx->root, inv.driver.nvml.realpath ? inv.driver.nvml.realpath :
			inv.driver.nvml.path, &host);
		kv_emit("nvml_lib", "%s", host.s);
		buf_release(&host);
	}
	kv_end();
	report_release(&rep);
	inventory_release(&inv);
	kb_close(kb);
	return 0;
}

int cmd_watch(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, 'i' },
		{ "listen", required_argument, NULL, 'l' },
		{ "textfile", required_argument, NULL, 't' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "kmsg-file", required_argument, NULL, 'k' },
		{ "static-every", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, 'o' },
		{ "ack", required_argument, NULL, 'a' },
		{ "static-sweep", no_argument, NULL, 'S' },
		{ "sample-nvml", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct watch_opts o = WATCH_OPTS_INIT;
	struct err e = ERR_INIT;
	const char *ack = NULL;
	int c, static_only = 0, ret;

	o.ctx = ctx;
	o.log = log_line;
	o.print = print_text;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			watch_usage(stdout);
			return 0;
		case 'i':
			if (parse_interval(optarg, &o.interval) < 0) {
				fprintf(stderr, "error: --interval '%s' is not a duration like 30s\n", tesc(optarg));
				return 2;
			}
			break;
		case 'l':
			o.listen = optarg;
			break;
		case 't':
			o.textfile_dir = optarg;
			break;
		case 's':
			o.state_dir = optarg;
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'k':
			o.kmsg_file = optarg;
			break;
		case 'n':
			o.static_every = atoi(optarg);
			if (o.static_every < 1) {
				fputs("error: --static-every needs a number of sweeps >= 1\n", stderr);
				return 2;
			}
			break;
		case 'o':
			o.once = 1;
			break;
		case 'a':
			ack = optarg;
			break;
		case 'S':
			static_only = 1;
			break;
		case 'N':
			/* Absolute: a relative name would go through the loader's search,
			 * and this one is loaded as given, never inside --root. */
			if (optarg[0] != '/')
				return cli_error("watch", watch_usage, "--sample-nvml '%s': give an absolute path "
						 "(such as /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1)", optarg);
			o.sample_nvml = optarg;
			break;
		default:
			return cli_bad_option("watch", watch_usage, argc, argv, opts);
		}
	}
	/* refused, not ignored: nothing here would print JSON */
	if (ctx->json)
		return cli_error("watch", watch_usage, "watch has no --json output: its machine-readable outputs "
				 "are /metrics and the state file; for one JSON verdict run 'gpudoctor health --json' "
				 "or 'gpudoctor check --json'");
	if (optind < argc) {
		return cli_error("watch", watch_usage, "unexpected argument '%s'", argv[optind]);
	}
	if (o.sample_nvml && ctx->no_load && !ctx->no_load_implied)
		return cli_error("watch", watch_usage, "--sample-nvml loads NVML, --no-load forbids it: give one");
	if (static_only)
		return static_sweep(ctx);
	if (ack) {
		struct buf said = BUF_INIT;

		ret = watch_ack(o.state_dir, ack, &said, &e);
		if (ret < 0)
			fprintf(stderr, "error: %s\n", tesc(e.msg));
		else
			fputs(said.s ? said.s : "", stdout);
		buf_release(&said);
		return ret < 0 ? 2 : 0;
	}
	if (!o.static_every)
		o.static_every = o.interval >= 300 ? 1 : (int)(300 / o.interval);
	if (o.once)
		o.listen = "none";
	ret = watch_run(&o, &e);
	if (ret < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		return 2;
	}
	return ret;
}
