/*
 * cli.h - one error style for every command, git's: a line "error: WHAT",
 * a "hint: did you mean 'X'?" when a close name exists (commands, options,
 * layer names, cause ids), and the command's short usage (its --help up to
 * the first blank line).  The full help is printed only for --help.  Every
 * usage error is exit status 2 (docs: README, "Exit status").
 *
 *	default:
 *		return cli_bad_option("check", check_usage, argc, argv, opts);
 *	...
 *	if (!layer_by_name(v))
 *		return cli_error_hint("check", check_usage, cli_suggest(v, layer_names, n),
 *				      "'%s' is not a layer", v);
 *
 * Commands set opterr = 0 so that getopt prints nothing of its own.
 */
#ifndef GD_CLI_H
#define GD_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

typedef void (*cli_usage_fn)(FILE *f);

/* The closest of n candidates to word (a small edit distance), or NULL. */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);
/* "error: ..." and the short usage on stderr; returns 2. */
int cli_error(const char *cmd, cli_usage_fn usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with "hint: did you mean 'suggestion'?" when suggestion is not NULL. */
int cli_error_hint(const char *cmd, cli_usage_fn usage, const char *suggestion, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* After getopt_long returned '?' or ':': name the bad option (argv[optind - 1]
 * or optopt), suggest the closest long option; returns 2. */
int cli_bad_option(const char *cmd, cli_usage_fn usage, int argc, char **argv, const struct option *opts);
/* --json and --format FMT together: an error unless FMT is json; returns 0 or 2. */
int cli_json_format(const char *cmd, cli_usage_fn usage, int json, const char *format);
/* The global options (main.c), valid before and after the command. */
extern const char *const cli_global_options[10];
/* The short usage of a usage function (its text up to the first blank line) on f. */
void cli_short_usage(FILE *f, cli_usage_fn usage);

#endif
