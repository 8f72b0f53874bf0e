/*
 * cmd_explain.c - gpudoctor explain: from the error a user already has to
 * its cause, confirmed (or not) on this machine, and the fix.
 *
 *	gpudoctor explain [FILE | -]		a log: a file, or stdin
 *	gpudoctor explain --run -- CMD ARGS...	run CMD, pass its output through,
 *						explain it if CMD fails
 *	gpudoctor explain CAUSE-ID		the catalogue entry of a cause id
 *
 * The log is normalised and matched against the rules of the knowledge
 * base (explain/); then, unless --no-live, check runs on the layers the
 * matched causes live in and each cause is said to be confirmed, not
 * reproduced, or impossible to tell here.  Exit status: 0 something was
 * explained, 3 no rule matched, 2 usage or error; with --run, the
 * command's own status.
 */
#include "commands/cli.h"
#include "engine/engine.h"
#include "commands/commands.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/termesc.h"
#include "core/xalloc.h"
#include "explain/confirm.h"
#include "explain/explain.h"
#include "explain/logjoin.h"
#include "explain/logtable.h"
#include "explain/logmatch.h"
#include "explain/lognorm.h"
#include "explain/logrules.h"
#include "explain/logrun.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPLAIN_CAP ((size_t)1 << 30)	/* keep at most the last 1 GiB of a log */

static void explain_usage(FILE *f)
{
	fputs("usage: gpudoctor explain [--no-live] [--json] [FILE | -]\n"
	      "       gpudoctor explain [--no-live] [--json] --run -- CMD [ARGS...]\n"
	      "       gpudoctor explain [--json] CAUSE-ID\n"
	      "\n"
	      "Reads a log (a file, or stdin: pasted text, a dmesg or journal capture),\n"
	      "finds the messages of the GPU stack in it, and names their causes, lowest\n"
	      "layer first.  Unless --no-live, the layers of 'check' those causes live in\n"
	      "run here and each cause is confirmed (with evidence and this machine's fix),\n"
	      "not reproduced, or cannot be told.  With --root DIR the confirmation is made\n"
	      "against the tree at DIR.\n"
	      "\n"
	      "  --run -- CMD ARGS   run CMD, pass its output through unchanged, explain it\n"
	      "                      on stderr if CMD fails; exit with CMD's status\n"
	      "  --no-live           do not look at this machine: explain the log only\n"
	      "  --cause ID          print the catalogue entry of a cause id\n"
	      "  --list-causes       list the cause ids of the catalogue, with layer and title\n"
	      "\n"
	      "Exit status: 0 something was explained, 3 no rule matched (explain never\n"
	      "guesses), 2 usage or error; with --run, the command's status (SIGINT,\n"
	      "SIGTERM and SIGHUP are forwarded to the command's process group).\n", f);
}

/* The highest layer any matched cause lives in, or -1; sonames need the libraries layer. */
static int top_layer(const struct logmatch *m)
{
	int top = -1;

	for (size_t i = 0; i < m->nhits; i++) {
		const struct logrule *r = m->hits[i].rule;

		if (r->cls != LR_CAUSE)
			continue;
		for (size_t c = 0; c < r->ncauses; c++) {
			const struct cause *cat = cause_get(r->causes[c]);
			int l = cat ? (int)cat->layer : r->layer;

			if (l > top)
				top = l;
		}
		for (size_t k = 0; k < r->ncaps; k++)
			if (!strcmp(r->capnames[k], "soname") && top < LAYER_LIBRARIES)
				top = LAYER_LIBRARIES;
	}
	/* the frameworks rules report library causes too (a framework's cuDNN, its CUDA wheels) */
	if (top >= LAYER_LIBRARIES)
		top = LAYER_COUNT - 1;
	return top;
}

static int explain_log(const struct gd_ctx *ctx, const char *name, const char *log, size_t log_len,
		       long dropped_lines, int no_live, FILE *out_f, int *exit_out)
{
	struct logrules rules;
	struct logmatch m;
	struct lognorm n;
	struct logjoin join;
	struct logtable table;
	struct explanation x;
	struct err e = ERR_INIT;
	struct kb *kb = NULL;
	struct inventory inv;
	struct report rep;
	struct confirm_in ci;
	struct buf out = BUF_INIT;
	char note[512];
	int top, live;

	if (kb_open(ctx->kb_dir, &kb, &e) < 0 || logrules_load(ctx->kb_dir, &rules, &e) < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		kb_close(kb);
		return -1;
	}
	logmatch_init(&m, &rules);
	logjoin_init(&join, &m);
	logtable_init(&table, logjoin_line_cb, &join);
	lognorm_init(&n, logtable_line_cb, &table);
	lognorm_feed(&n, log ? log : "", log_len);
	lognorm_finish(&n);
	m.newest_first = lognorm_newest_first(&n);
	logtable_finish(&table);
	logtable_release(&table);
	logjoin_finish(&join);
	logjoin_release(&join);
	lognorm_release(&n);
	if (dropped_lines) {
		/* line numbers count from the start of the whole output */
		for (size_t i = 0; i < m.nhits; i++) {
			struct logmatch_hit *h = &m.hits[i];

			h->first += dropped_lines;
			h->last += dropped_lines;
			for (size_t k = 0; k < h->nlines; k++)
				h->lines[k] += dropped_lines;
		}
		m.input_lines += dropped_lines;
	}
	memset(&x, 0, sizeof(x));
	memset(&ci, 0, sizeof(ci));
	inventory_init(&inv);
	report_init(&rep);
	top = top_layer(&m);
	live = !no_live && top >= 0;
	if (live) {
		check_run_upto(ctx, kb, &inv, &rep, top);
		ci.rep = &rep;
		ci.inv = &inv;
		ci.top = top;
		if (strcmp(ctx->root, "/")) {
			snprintf(note, sizeof(note), "the tree at %s", ctx->root);
			ci.against = note;
		} else {
			ci.against = "this machine";
		}
		confirm_probe_sonames(ctx, &inv, &m, &ci);
	}
	explanation_build(&x, &m, kb, live ? &ci : NULL);
	x.input = name;
	if (live) {
		static char lnote[700];

		snprintf(lnote, sizeof(lnote), "check ran on %s, layers hardware to %s%s", ci.against,
			 layer_name((enum layer_id)top), ctx->no_load ? " (--no-load: static facts only)" : "");
		x.live_note = lnote;
	} else if (no_live) {
		x.live_note = "not asked (--no-live): nothing here was checked";
	}
	if (ctx->json)
		explain_render_json(&x, &out);
	else
		explain_render_text(&x, out_f == stdout ? ctx->use_color : isatty(2), &out);
	fwrite(out.s, 1, out.len, out_f);
	*exit_out = explanation_exit(&x);
	buf_release(&out);
	explanation_release(&x);
	confirm_in_release(&ci);
	report_release(&rep);
	inventory_release(&inv);
	logmatch_release(&m);
	logrules_release(&rules);
	kb_close(kb);
	return 0;
}

static int explain_cause(const struct gd_ctx *ctx, const char *id)
{
	struct buf out = BUF_INIT;

	if (explain_render_cause(id, ctx->json, &out) < 0) {
		size_t n;
		const struct cause *c = cause_all(&n);
		const char **ids = xcalloc(n + 1, sizeof(*ids));
		int r;

		for (size_t i = 0; i < n; i++)
			ids[i] = c[i].id;
		r = cli_error_hint("explain", explain_usage, cli_suggest(id, ids, n),
				   "'%s' is neither a file nor a cause id (gpudoctor explain --list-causes lists them)",
				   id);
		free(ids);
		buf_release(&out);
		return r;
	}
	fwrite(out.s, 1, out.len, stdout);
	buf_release(&out);
	return 0;
}

static int list_causes(void)
{
	size_t n;
	const struct cause *c = cause_all(&n);

	for (size_t i = 0; i < n; i++)
		printf("%-34s %-10s %s\n", c[i].id, layer_name(c[i].layer), c[i].title);
	return 0;
}

int cmd_explain(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-live", no_argument, NULL, 'N' },
		{ "run", no_argument, NULL, 'R' },
		{ "cause", required_argument, NULL, 'C' },
		{ "list-causes", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int c, no_live = 0, run = 0, ret = 0;
	const char *name = "-";
	struct buf log = BUF_INIT;
	struct err e = ERR_INIT;
	long dropped = 0;
	const char *mapped = NULL;
	size_t mapped_len = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			explain_usage(stdout);
			return 0;
		case 'N':
			no_live = 1;
			break;
		case 'R':
			run = 1;
			break;
		case 'C':
			return explain_cause(ctx, optarg);
		case 'L':
			return list_causes();
		default:
			return cli_bad_option("explain", explain_usage, argc, argv, opts);
		}
	}
	if (run) {
		int status = 0, ex;

		if (optind < argc && !strcmp(argv[optind], "--"))
			optind++;
		if (optind >= argc) {
			return cli_error("explain", explain_usage, "--run needs a command after --");
		}
		fflush(stdout);
		if (logrun_command(argv + optind, EXPLAIN_CAP, &log, &dropped, &status, &e) < 0) {
			fprintf(stderr, "error: cannot run '%s': %s\n", tesc(argv[optind]), tesc(e.msg));
			buf_release(&log);
			return 2;
		}
		/* stopped by a signal forwarded to it: the user asked to stop, not for an explanation */
		if (status != 0 && logrun_forwarded() && status != 127) {
			fprintf(stderr, "\ngpudoctor explain: '%s' ended with status %d after signal %d\n",
				tesc(argv[optind]), status, logrun_forwarded());
		} else if (status != 0) {
			fprintf(stderr, "\ngpudoctor explain: '%s' exited with status %d\n", tesc(argv[optind]),
				status);
			if (explain_log(ctx, argv[optind], log.s, log.len, dropped, no_live, stderr, &ex) < 0)
				fputs("gpudoctor explain: could not explain the output\n", stderr);
		}
		buf_release(&log);
		return status;
	}
	if (optind + 1 < argc) {
		return cli_error("explain", explain_usage, "one log at a time ('%s' is extra)", argv[optind + 1]);
	}
	if (optind < argc)
		name = argv[optind];
	if (strcmp(name, "-")) {
		int fd = open(name, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			if (errno == ENOENT)
				return explain_cause(ctx, name);
			fprintf(stderr, "error: cannot open '%s': %s\n", tesc(name), strerror(errno));
			return 2;
		}
		if (logrun_map(fd, &mapped, &mapped_len) == 0) {
			close(fd);
			if (explain_log(ctx, name, mapped, mapped_len, 0, no_live, stdout, &ret) < 0)
				ret = 2;
			logrun_unmap(mapped, mapped_len);
			return ret;
		}
		if (logrun_read(fd, EXPLAIN_CAP, &log, &dropped, &e) < 0) {
			fprintf(stderr, "error: cannot read '%s': %s\n", tesc(name), tesc(e.msg));
			close(fd);
			buf_release(&log);
			return 2;
		}
		close(fd);
	} else {
		if (optind >= argc && isatty(0))
			return cli_error("explain", explain_usage,
					 "no log: name a FILE, pipe one in, give a cause id or --run -- CMD");
		if (logrun_read(0, EXPLAIN_CAP, &log, &dropped, &e) < 0) {
			fprintf(stderr, "error: cannot read stdin: %s\n", tesc(e.msg));
			buf_release(&log);
			return 2;
		}
	}
	if (explain_log(ctx, name, log.s, log.len, dropped, no_live, stdout, &ret) < 0)
		ret = 2;
	buf_release(&log);
	return ret;
}
