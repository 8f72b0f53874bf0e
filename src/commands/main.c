/*
 * main.c - global options, the command table, and the exit status.
 *
 * Global options may appear before or after the command name
 * ("gpudoctor --json check" and "gpudoctor check --json" mean the same);
 * everything else is passed to the command.  Output is flushed and checked
 * here, so a truncated report becomes exit status 2.
 */
#include "commit.h"
#include "commands/cli.h"
#include "commands/commands.h"
#include "core/ctx.h"
#include "core/err.h"
#include "core/termesc.h"
#include "knowledge/kb.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct gd_ctx *ctx);
	const char *summary;
	int hidden;
};

static const struct command commands[] = {
	{ "check", cmd_check, "verify the GPU stack, link by link, bottom-up", 0 },
	{ "matrix", cmd_matrix, "query the version contract (what runs with what)", 0 },
	{ "plan", cmd_plan, "the install steps for a framework release, each verified", 0 },
	{ "which", cmd_which, "which file the loader would load for a soname, and why", 0 },
	{ "explain", cmd_explain, "explain an error log: its causes, confirmed on this machine, and the fix", 0 },
	{ "bench", cmd_bench, "measure copy bandwidth and GEMM throughput against the hardware's limits", 0 },
	{ "burn", cmd_burn, "node acceptance: every GPU under sustained, verified load, judged", 0 },
	{ "health", cmd_health, "one-line verdict for Slurm and node-problem-detector (exit 0/1/2)", 0 },
	{ "watch", cmd_watch, "monitor the GPU stack: XIDs, NVML health, Prometheus metrics", 0 },
	{ "__probe", cmd_probe, "internal: isolated child probes", 1 },
};

static void usage(FILE *f)
{
	fputs("usage: gpudoctor [global options] <command> [options]\n"
	      "       gpudoctor help [<command>]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!commands[i].hidden)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\nglobal options:\n"
	      "  --root DIR        read /proc, /sys, /dev, /etc, /usr ... (and paths from\n"
	      "                    LD_LIBRARY_PATH, CUDA_HOME, VIRTUAL_ENV, CONDA_PREFIX) inside DIR\n"
	      "  --no-load         load and execute nothing from the machine: static facts only\n"
	      "                    (implied by --root DIR other than /: a tree's libraries are\n"
	      "                    not dlopen()ed, their constructors would run as you)\n"
	      "  --load-from-root  with --root: load the tree's libraries anyway, in isolated\n"
	      "                    children (only for a tree you trust)\n"
	      "  --timeout SEC     limit for each isolated probe (default 10)\n"
	      "  --json            machine-readable output\n"
	      "  --color=WHEN      auto (default), always or never; NO_COLOR is honoured\n"
	      "  --kb DIR          use the knowledge-base files in DIR instead of the embedded ones\n"
	      "  -v, --verbose     show evidence for passing checks too\n"
	      "  -h, --help        this help (after a command: that command's help)\n"
	      "  --version         print the version\n"
	      "WHEN: auto, always, never.\n"
	      "\nRun 'gpudoctor check' first.  'gpudoctor help COMMAND' is 'gpudoctor COMMAND --help'.\n"
	      "\nexit status (every command):\n"
	      "  0  nothing failed\n"
	      "  1  a check failed (warnings alone are 0)\n"
	      "  2  usage error (\"error: ...\" and the usage line) or internal error\n"
	      "  3  explain only: no rule matched the log\n"
	      "  health keeps node-problem-detector's contract instead: 0 OK, 1 NonOK\n"
	      "  (drain), 2 Unknown (cannot tell, usage errors included); explain --run\n"
	      "  ends with the command's own status.\n", f);
}

/* Value of "--opt VALUE" or "--opt=VALUE"; advances *i.  NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static char self_exe[PATH_MAX];
static char root_buf[PATH_MAX];

static int resolve_color(enum color_mode mode)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	if (mode == COLOR_ALWAYS)
		return 1;
	if (mode == COLOR_NEVER)
		return 0;
	if (no_color && *no_color)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(STDOUT_FILENO);
}

int main(int argc, char **argv)
{
	struct gd_ctx ctx = { .root = "/", .timeout = 10.0, .color = COLOR_AUTO };
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, ret, want_help = 0, load_from_root = 0;
	struct stat st;
	const struct command *cmd = NULL;
	ssize_t n;

	if (!rest)
		return 2;
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n > 0) {
		self_exe[n] = '\0';
		ctx.self_exe = self_exe;
	} else {
		ctx.self_exe = argv[0];
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "--")) {
			while (i < argc)
				rest[nrest++] = argv[i++];
			break;
		}
		if (is_opt(a, "--root")) {
			if (!(v = opt_value(argc, argv, &i, "--root")) || !*v) {
				ret = cli_error(NULL, usage, "--root needs a directory");
				goto out;
			}
			if (!realpath(v, root_buf)) {
				ret = cli_error(NULL, usage, "--root '%s': %s", tesc(v), strerror(errno));
				goto out;
			}
			if (stat(root_buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
				ret = cli_error(NULL, usage, "--root '%s': not a directory", tesc(v));
				goto out;
			}
			ctx.root = root_buf;
		} else if (is_opt(a, "--timeout")) {
			char *end;

			if (!(v = opt_value(argc, argv, &i, "--timeout"))) {
				ret = cli_error(NULL, usage, "--timeout needs a number of seconds");
				goto out;
			}
			ctx.timeout = strtod(v, &end);
			/* written so that NaN fails too */
			if (end == v || *end || !(ctx.timeout > 0 && ctx.timeout <= 3600)) {
				ret = cli_error(NULL, usage, "--timeout '%s' is not a number of seconds in (0, 3600]", tesc(v));
				goto out;
			}
		} else if (is_opt(a, "--kb")) {
			if (!(v = opt_value(argc, argv, &i, "--kb"))) {
				ret = cli_error(NULL, usage, "--kb needs a directory");
				goto out;
			}
			ctx.kb_dir = v;
		} else if (!strcmp(a, "--no-load")) {
			ctx.no_load = 1;
		} else if (!strcmp(a, "--load-from-root")) {
			load_from_root = 1;
		} else if (!strcmp(a, "--json")) {
			ctx.json = 1;
		} else if (!strcmp(a, "--color") || !strncmp(a, "--color=", 8)) {
			v = a[7] == '=' ? a + 8 : "always";
			if (!strcmp(v, "auto"))
				ctx.color = COLOR_AUTO;
			else if (!strcmp(v, "always"))
				ctx.color = COLOR_ALWAYS;
			else if (!strcmp(v, "never"))
				ctx.color = COLOR_NEVER;
			else {
				ret = cli_error(NULL, usage, "--color must be auto, always or never, not '%s'", tesc(v));
				goto out;
			}
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			ctx.verbose++;
		} else if (!strcmp(a, "-vv")) {
			ctx.verbose += 2;
		} else if (!strcmp(a, "--version")) {
			struct kb *vkb = NULL;
			struct err ve;

			/* the knowledge's date: answers about releases after it are the kb's guesses */
			if (kb_open(ctx.kb_dir, &vkb, &ve) == 0 && kb_as_of(vkb))
				printf("gpudoctor %s (commit %s, knowledge as of %s)\n", GD_VERSION, GD_COMMIT,
				       kb_as_of(vkb));
			else
				printf("gpudoctor %s (commit %s)\n", GD_VERSION, GD_COMMIT);
			kb_close(vkb);
			ret = fflush(stdout) || ferror(stdout) ? 2 : 0;
			goto out;
		} else if (!cmd && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			want_help = 1;
		} else {
			if (!cmd && a[0] == '-') {
				/* before the command only global options are known */
				char name[64];

				snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, "="), a);
				ret = cli_error_hint(NULL, usage, cli_suggest(name, cli_global_options, 10),
						     "unknown option '%s' (before the command only global options are known)", a);
				goto out;
			}
			if (!cmd && !strcmp(a, "help")) {
				/* gpudoctor help [CMD]: CMD --help, or this help */
				want_help = 1;
				continue;
			}
			if (!cmd) {
				const char *names[sizeof(commands) / sizeof(commands[0])];
				size_t nn = 0;

				for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
					if (!strcmp(commands[k].name, a))
						cmd = &commands[k];
					if (!commands[k].hidden)
						names[nn++] = commands[k].name;
				}
				if (!cmd) {
					ret = cli_error_hint(NULL, usage, cli_suggest(a, names, nn),
							     "'%s' is not a gpudoctor command", a);
					goto out;
				}
			}
			rest[nrest++] = argv[i];
		}
	}
	ctx.use_color = resolve_color(ctx.color);
	/* A tree's libraries run their constructors when dlopen()ed, as the
	 * user running gpudoctor (often root): only with --load-from-root. */
	if (strcmp(ctx.root, "/") != 0 && !load_from_root && !ctx.no_load) {
		ctx.no_load = 1;
		ctx.no_load_implied = 1;
	}
	if (!cmd && !want_help) {
		ret = cli_error(NULL, usage, "no command given");
		goto out;
	}
	if (!cmd) {
		usage(stdout);
		ret = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "error: could not write the output: %s\n", strerror(errno));
			ret = 2;
		}
		goto out;
	}
	if (want_help)
		rest[nrest++] = "--help";
	rest[nrest] = NULL;
	/* getopt in the command starts fresh. */
	optind = 1;
	ret = cmd->fn(nrest, rest, &ctx);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "error: could not write the output: %s\n", strerror(errno));
		ret = 2;
	}
out:
	free(rest);
	return ret;
}
