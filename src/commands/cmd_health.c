/*
 * cmd_health.c - gpudoctor health: a verdict for schedulers within 10 s.
 *
 * The node's layers of check run in a child (gpudoctor re-executed with
 * the hidden --layers-kv option, a clean environment and a deadline), while
 * the parent reads the watch daemon's state file; the two lists of problems
 * make one verdict (health/health.h), printed as one line of at most 80
 * characters, exit status 0 healthy, 1 unhealthy, 2 unknown (the
 * node-problem-detector custom-plugin protocol).  With --slurm the node is
 * then drained, resumed or rebooted through scontrol (health/health_slurm.h).
 * Every child has a deadline inside the hard one, so the whole command
 * returns in time even when the driver hangs.
 */
#include "commands/cli.h"
#include "engine/engine.h"
#include "commands/commands.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/json.h"
#include "core/termesc.h"
#include "core/kv.h"
#include "health/health.h"
#include "health/health_layers.h"
#include "health/health_reboot.h"
#include "health/health_slurm.h"
#include "health/health_state.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct health_opts {
	int slurm, reboot, hardware_only, layers_kv;
	const char *node, *state_dir, *scontrol;
	double deadline;
	long long max_age;
};

static void health_usage(FILE *f)
{
	fputs("usage: gpudoctor health [--slurm [--node NAME] [--reboot]] [--hardware]\n"
	      "                        [--state-dir DIR] [--max-age SEC] [--deadline SEC] [--json]\n"
	      "\n"
	      "A verdict for schedulers: runs the node's layers of check (hardware, kernel,\n"
	      "devices, driver, CUDA driver API) within a hard deadline, adds the findings\n"
	      "of the watch daemon's state file, and prints one line of at most 80\n"
	      "characters: 'gpudoctor: <cause-id> <gpu> <reason>'.  Exit status follows\n"
	      "node-problem-detector's custom plugins: 0 healthy, 1 unhealthy, 2 unknown.\n"
	      "\n"
	      "  --slurm              drain this node in Slurm when unhealthy and resume it\n"
	      "                       when healthy again, only if gpudoctor drained it\n"
	      "  --node NAME          Slurm node name (default $SLURMD_NODENAME, else the\n"
	      "                       short host name)\n"
	      "  --reboot             with --slurm: when only a reboot clears the cause, ask\n"
	      "                       Slurm to reboot the node once it is idle\n"
	      "  --scontrol PATH      the scontrol to run (default: found on PATH)\n"
	      "  --hardware           judge the hardware only: the PCI layer and the watch\n"
	      "                       daemon's findings\n"
	      "  --state-dir DIR      the watch daemon's state directory (default\n"
	      "                       /var/lib/gpudoctor)\n"
	      "  --max-age SEC        watch warnings count while the state is younger than\n"
	      "                       this (default 300); its failures count for this boot\n"
	      "  --deadline SEC       hard limit for the whole command (default 10)\n", f);
}

/* ---- the child side: the layers, as key=value lines ---- */

static int health_layers_child(const struct gd_ctx *ctx, int hardware_only)
{
	struct inventory inv;
	struct report rep;
	struct err e = ERR_INIT;
	struct kb *kb = NULL;

	/* The parent checked --kb by name; this reads it by descriptor. */
	if (kb_open_trusted(ctx->kb_dir, &kb, &e) < 0) {
		fprintf(stderr, "gpudoctor: %s\n", tesc(e.msg));
		return 2;
	}
	inventory_init(&inv);
	report_init(&rep);
	check_run_upto(ctx, kb, &inv, &rep, hardware_only ? LAYER_HARDWARE : LAYER_CUDA);
	health_layers_emit(&rep);
	kv_end();
	report_release(&rep);
	inventory_release(&inv);
	kb_close(kb);
	return 0;
}

/* ---- the parent side ---- */

/* The environment a fresh job would see: no caller's CUDA_VISIBLE_DEVICES,
 * LD_LIBRARY_PATH or debug switches decide a node's health. */
static char **clean_env(struct buf *store)
{
	static const char *const keep[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS" };
	char **env = calloc(8, sizeof(*env));
	size_t n = 0;

	if (!env)
		return NULL;
	env[n++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	env[n++] = "LC_ALL=C";
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		const char *v = getenv(keep[i]);

		if (v) {
			buf_reset(&store[i]);
			buf_printf(&store[i], "%s=%s", keep[i], v);
			env[n++] = store[i].s;
		}
	}
	env[n] = NULL;
	return env;
}

static void run_layers(const struct gd_ctx *ctx, const struct health_opts *o, double budget,
		       struct health *h)
{
	char tbuf[32];
	const char *argv[16];
	struct buf store[3] = { BUF_INIT, BUF_INIT, BUF_INIT };
	char **env = clean_env(store);
	struct child c;
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	double inner = budget - 1.0;
	int n = 0, bad = 0;

	/* Each isolated probe of the child must end before the child's deadline. */
	if (inner > ctx->timeout)
		inner = ctx->timeout;
	if (inner < 0.5)
		inner = 0.5;
	snprintf(tbuf, sizeof(tbuf), "%.1f", inner);
	argv[n++] = ctx->self_exe;
	argv[n++] = "--root";
	argv[n++] = ctx->root;
	argv[n++] = "--timeout";
	argv[n++] = tbuf;
	if (ctx->no_load)
		argv[n++] = "--no-load";
	else if (strcmp(ctx->root, "/") != 0)
		argv[n++] = "--load-from-root";	/* the parent was allowed to */
	if (ctx->kb_dir) {
		argv[n++] = "--kb";
		argv[n++] = ctx->kb_dir;
	}
	argv[n++] = "health";
	argv[n++] = "--layers-kv";
	if (o->hardware_only)
		argv[n++] = "--hardware";
	argv[n] = NULL;
	if (!env || child_start_argv(argv, env, budget, &c, &e) < 0) {
		health_set_unknown(h, "could not start the checks");
	} else {
		child_finish(&c, &r);
		if (r.outcome == CHILD_TIMEOUT) {
			char why[64];

			snprintf(why, sizeof(why), "checks did not finish within %g s", budget);
			health_set_unknown(h, why);
		} else if (r.outcome != CHILD_OK || health_layers_from_kv(&r.kv, h, &bad) < 0) {
			struct buf d = BUF_INIT;

			char why[160];

			snprintf(why, sizeof(why), "the checks failed: %s",
				 child_outcome_describe(&r, &d));
			health_set_unknown(h, why);
			buf_release(&d);
		}
	}
	if (bad > 0) {
		char why[96];

		/* A finding this build cannot read is not a healthy node. */
		snprintf(why, sizeof(why), "%d finding%s of the checks could not be read", bad,
			 bad == 1 ? "" : "s");
		health_set_unknown(h, why);
	}
	child_result_release(&r);
	for (int i = 0; i < 3; i++)
		buf_release(&store[i]);
	free(env);
}

/* argv[0] for scontrol: a path, else searched on PATH and in the usual places. */
static int find_scontrol(const char *want, struct buf *out)
{
	const char *path = getenv("PATH");
	struct buf dirs = BUF_INIT;
	char *save = NULL, *d;
	int found = 0;

	if (strchr(want, '/')) {
		buf_puts(out, want);
		return access(want, X_OK) == 0 ? 0 : -1;
	}
	buf_printf(&dirs, "%s:/usr/bin:/usr/local/bin:/usr/sbin:/opt/slurm/bin", path ? path : "");
	for (d = strtok_r(dirs.s, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (!*d)
			continue;
		buf_reset(out);
		buf_printf(out, "%s/%s", d, want);
		found = access(out->s, X_OK) == 0;
	}
	buf_release(&dirs);
	return found ? 0 : -1;
}

/*
 * A Slurm node name as a host name: letters, digits, '-', '_' and '.',
 * starting with a letter or digit.  A leading '-' would be an option to
 * scontrol (--node=-Mx picks another cluster, SLURMD_NODENAME=--help);
 * '[', ',' and spaces would make a host list or more words, acting on
 * other nodes.
 */
static int valid_node_name(const char *s)
{
	if (!s || !*s || strlen(s) > 255 ||
	    !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

struct slurm_result {
	int ran;		/* the query ran */
	struct slurm_node node;
	struct slurm_plan plan;
	int applied;		/* -1 not attempted, 0 failed, 1 done */
	char error[200];
	char node_name[256];
};

static double time_left(double t0, double deadline)
{
	return deadline - (child_now() - t0);
}

static void run_slurm(const struct gd_ctx *ctx, const struct health_opts *o,
		      const struct health *h, double t0, struct slurm_result *s)
{
	struct buf sc = BUF_INIT;
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[10];
	char bufs[4][320], nodearg[300];
	const char *node = o->node ? o->node : getenv("SLURMD_NODENAME");
	char host[256], boot[64] = "";
	double left;
	int tried = 0;

	memset(s, 0, sizeof(*s));
	s->applied = -1;
	if (!node || !*node) {
		if (gethostname(host, sizeof(host)) < 0) {
			snprintf(s->error, sizeof(s->error), "no node name: gethostname failed");
			goto out;
		}
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		node = host;
	}
	if (!valid_node_name(node)) {
		snprintf(s->error, sizeof(s->error), "the node name is not a Slurm node name");
		goto out;
	}
	snprintf(s->node_name, sizeof(s->node_name), "%s", node);
	if (find_scontrol(o->scontrol, &sc) < 0) {
		snprintf(s->error, sizeof(s->error), "scontrol not found");
		goto out;
	}
	/* The query and the change share what is left, each with its own limit. */
	left = time_left(t0, o->deadline) - 0.2;
	if (left < 0.5) {
		snprintf(s->error, sizeof(s->error), "no time left for scontrol");
		goto out;
	}
	snprintf(nodearg, sizeof(nodearg), "%s", node);
	argv[0] = sc.s;
	argv[1] = "-o";
	argv[2] = "show";
	argv[3] = "node";
	argv[4] = "--";		/* scontrol's getopt permutes: end its options */
	argv[5] = nodearg;
	argv[6] = NULL;
	if (child_run_argv(argv, NULL, left / 2, &r, &e) < 0) {
		snprintf(s->error, sizeof(s->error), "scontrol: %.180s", e.msg);
		goto out;
	}
	/* scontrol prints its record and exits 0; a node it does not know is exit 1. */
	if (r.outcome == CHILD_TIMEOUT) {
		snprintf(s->error, sizeof(s->error), "scontrol show node timed out");
		goto out;
	}
	s->ran = 1;
	slurm_node_parse(r.out.s ? r.out.s : "", r.out.len, &s->node);
	if (o->reboot && h->action == HEALTH_ACT_REBOOT) {
		health_boot_id(ctx->root, boot, sizeof(boot));
		tried = health_reboot_tried(ctx->root, o->state_dir, boot, health_cause(h->worst),
					    h->worst->gpu);
	}
	slurm_plan(&s->node, h, o->reboot, tried, &s->plan);
	if (s->plan.step == SLURM_REBOOT &&
	    health_reboot_record(ctx->root, o->state_dir, boot, health_cause(h->worst), h->worst->gpu,
				 &e) < 0) {
		/* Without the record a reboot could loop: drain instead. */
		s->plan.step = SLURM_DRAIN;
		snprintf(s->plan.why, sizeof(s->plan.why), "no reboot: %.140s", e.msg);
	}
	if (o->reboot && h->verdict == HEALTH_OK && s->node.found && !s->node.unregistered)
		health_reboot_forget(ctx->root, o->state_dir);
	if (slurm_plan_argv(&s->plan, sc.s, node, h, argv, bufs) < 0)
		goto out;
	left = time_left(t0, o->deadline) - 0.1;
	if (left < 0.3) {
		snprintf(s->error, sizeof(s->error), "no time left for scontrol %s",
			 slurm_step_name(s->plan.step));
		s->applied = 0;
		goto out;
	}
	child_result_release(&r);
	if (child_run_argv(argv, NULL, left, &r, &e) < 0) {
		snprintf(s->error, sizeof(s->error), "scontrol: %.180s", e.msg);
		s->applied = 0;
		goto out;
	}
	s->applied = r.outcome == CHILD_OK || r.outcome == CHILD_INCOMPLETE;
	if (!s->applied) {
		struct buf d = BUF_INIT;
		char clean[120];

		health_clean(clean, sizeof(clean), r.err.s ? r.err.s : "");
		child_outcome_describe(&r, &d);
		snprintf(s->error, sizeof(s->error), "scontrol %s: %.60s %.100s",
			 slurm_step_name(s->plan.step), d.s ? d.s : "", clean);
		buf_release(&d);
	}
out:
	child_result_release(&r);
	buf_release(&sc);
}

static void render_json(const struct health *h, const struct health_state *st,
			const struct health_opts *o, const struct slurm_result *s, double ms)
{
	static const char *const verdicts[] = { "healthy", "unhealthy", "unknown" };
	static const char *const actions[] = { "none", "drain", "reboot" };
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.health/1");
	json_str(&j, "verdict", verdicts[h->verdict]);
	json_int(&j, "exit_status", (long long)h->verdict);
	json_str(&j, "line", h->line);
	json_str(&j, "action", actions[h->action]);
	json_str(&j, "cause", h->worst ? health_cause(h->worst) : NULL);
	json_str(&j, "gpu", h->worst ? h->worst->gpu : NULL);
	json_str(&j, "unknown_reason", h->unknown_reason);
	json_str(&j, "scope", o->hardware_only ? "hardware" : "node");
	json_arr_begin(&j, "problems");
	for (size_t i = 0; i < h->n; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "cause", health_cause(&h->items[i]));
		json_str(&j, "gpu", h->items[i].gpu);
		json_str(&j, "severity", h->items[i].status == STATUS_FAIL ? "fail" : "warn");
		json_str(&j, "reason", h->items[i].reason);
		json_str(&j, "source", h->items[i].from_watch ? "watch" : "check");
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_begin(&j, "watch_state");
	json_bool(&j, "present", st->present);
	json_bool(&j, "used", st->used);
	json_bool(&j, "fresh", st->fresh);
	json_int_known(&j, "age_s", st->age, st->age >= 0);
	json_str(&j, "status", st->status[0] ? st->status : NULL);
	json_int(&j, "active", st->active);
	json_int(&j, "taken", st->taken);
	json_int(&j, "malformed", st->malformed);
	json_str(&j, "note", st->note[0] ? st->note : NULL);
	json_obj_end(&j);
	if (o->slurm) {
		json_obj_begin(&j, "slurm");
		json_str(&j, "node", s->node_name[0] ? s->node_name : NULL);
		json_str(&j, "state", s->node.found ? s->node.state : NULL);
		json_str(&j, "reason", s->node.found && s->node.reason[0] ? s->node.reason : NULL);
		json_str(&j, "step", s->ran ? slurm_step_name(s->plan.step) : NULL);
		json_str(&j, "why", s->ran ? s->plan.why : NULL);
		if (s->applied >= 0)
			json_bool(&j, "applied", s->applied);
		else
			json_null(&j, "applied");
		json_str(&j, "error", s->error[0] ? s->error : NULL);
		json_obj_end(&j);
	}
	json_num(&j, "duration_ms", ms);
	json_obj_end(&j);
	fputs(j.out.s, stdout);
	json_release(&j);
}

static int parse_seconds_opt(const char *name, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "error: %s '%s' is not a number of seconds in [%g, %g]\n",
			name, tesc(v), lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

int cmd_health(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "slurm", no_argument, NULL, 'S' },
		{ "node", required_argument, NULL, 'N' },
		{ "reboot", no_argument, NULL, 'R' },
		{ "scontrol", required_argument, NULL, 'C' },
		{ "hardware", no_argument, NULL, 'H' },
		{ "state-dir", required_argument, NULL, 'D' },
		{ "max-age", required_argument, NULL, 'A' },
		{ "deadline", required_argument, NULL, 'T' },
		{ "layers-kv", no_argument, NULL, 'K' },	/* hidden: the child side */
		{ NULL, 0, NULL, 0 },
	};
	struct health_opts o = { .state_dir = "/var/lib/gpudoctor", .scontrol = "scontrol",
				 .deadline = 10.0, .max_age = HEALTH_STATE_MAX_AGE };
	struct health h;
	struct health_state st;
	struct slurm_result sr;
	struct err e = ERR_INIT;
	double t0 = child_now(), x, budget;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			health_usage(stdout);
			return 0;
		case 'S': o.slurm = 1; break;
		case 'N': o.node = optarg; break;
		case 'R': o.reboot = 1; break;
		case 'C': o.scontrol = optarg; break;
		case 'H': o.hardware_only = 1; break;
		case 'K': o.layers_kv = 1; break;
		case 'D':
			if (optarg[0] != '/') {
				fprintf(stderr, "error: --state-dir needs an absolute path, not '%s'\n",
					tesc(optarg));
				return 2;
			}
			o.state_dir = optarg;
			break;
		case 'A':
			if (parse_seconds_opt("--max-age", optarg, 0, 1e9, &x) < 0)
				return 2;
			o.max_age = (long long)x;
			break;
		case 'T':
			if (parse_seconds_opt("--deadline", optarg, 1, 55, &o.deadline) < 0)
				return 2;
			break;
		default:
			return cli_bad_option("health", health_usage, argc, argv, opts);
		}
	}
	if (optind < argc) {
		return cli_error("health", health_usage, "unexpected argument '%s'", argv[optind]);
	}
	if (o.layers_kv)
		return health_layers_child(ctx, o.hardware_only);
	if ((o.node || o.reboot) && !o.slurm) {
		return cli_error("health", health_usage, "--node and --reboot go with --slurm");
	}
	/* Its tables set severities, and so what drains or reboots a node. */
	if (ctx->kb_dir && kb_check_trusted(ctx->kb_dir, &e) < 0) {
		fprintf(stderr, "gpudoctor health: %s\n", tesc(e.msg));
		return 2;
	}
	health_init(&h);
	/* Leave scontrol a third of the deadline (two calls), else half a second. */
	budget = o.slurm ? o.deadline * 2.0 / 3.0 : o.deadline - 0.5;
	run_layers(ctx, &o, budget, &h);
	if (health_state_read(ctx->root, o.state_dir, (long long)time(NULL), o.max_age, &st, &h,
			      &e) < 0) {
		/* A trusted state file that cannot be read: what watch saw is not
		   known, so neither is the verdict (a known failure still wins).
		   Read as empty, it made a drained node healthy, and resumed it. */
		snprintf(st.note, sizeof(st.note), "%.150s", e.msg);
		health_set_unknown(&h, "the watch state could not be read");
	}
	health_verdict(&h);
	memset(&sr, 0, sizeof(sr));
	if (o.slurm)
		run_slurm(ctx, &o, &h, t0, &sr);
	if (ctx->json) {
		render_json(&h, &st, &o, &sr, (child_now() - t0) * 1000.0);
	} else {
		puts(h.line);
		if (o.slurm && sr.error[0])
			fprintf(stderr, "gpudoctor health: slurm: %s\n", tesc(sr.error));
	}
	c = (int)h.verdict;
	health_release(&h);
	return c;
}
