/*
 * commands.h - the subcommands and the hidden probe entry points.
 *
 * To add a command: write cmd_<name>.c with
 *	int cmd_<name>(int argc, char **argv, const struct gd_ctx *ctx);
 * (argv[0] is the command name; parse its own options with getopt_long,
 * answer -h/--help on stdout with exit 0, return 0/1/2 as main's exit
 * status), declare it here and add a row to the table in main.c.
 *
 * To add an isolated probe: write its child-side main
 *	int probe_main_<name>(int argc, char **argv);
 * (argv[0] is the probe name; print key=value lines with kv_emit(), then
 * kv_end()), declare it in probes/children.h and add a row to the table in
 * cmd_probe.c.
 */
#ifndef GD_COMMANDS_H
#define GD_COMMANDS_H

struct gd_ctx;

int cmd_check(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_matrix(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_which(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_bench(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_burn(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_health(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_plan(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_explain(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_watch(int argc, char **argv, const struct gd_ctx *ctx);
int cmd_probe(int argc, char **argv, const struct gd_ctx *ctx);	/* hidden: __probe */

/* Child-side entry points of isolated probes (gpudoctor __probe NAME ...). */

#endif
