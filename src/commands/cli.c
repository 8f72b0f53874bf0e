/* cli.c - git's error style and "did you mean" for every command; see cli.h. */
#include "commands/cli.h"

#include "core/termesc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Optimal string alignment distance (a swap of two neighbours costs 1), capped. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d;
	size_t r;

	if (la > 64 || lb > 64)
		return (size_t)-1;
	d = calloc((la + 1) * (lb + 1), sizeof(*d));
	if (!d)
		return (size_t)-1;
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = word ? strlen(word) : 0;
	/* git's threshold is about a third of the word: "chek" -> check, not "x" -> "which" */
	size_t limit = len < 4 ? 1 : len / 3 + 1;

	if (!word || !*word)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cands[i])
			continue;
		d = distance(word, cands[i]);
		/* a prefix of a long name counts as close: "--upt" -> "--upto" */
		if (d > limit && len >= 3 && !strncmp(cands[i], word, len))
			d = limit;
		if (d <= limit && d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

void cli_short_usage(FILE *f, cli_usage_fn usage)
{
	char *text = NULL, *blank;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	usage(m);
	fclose(m);
	if (!text)
		return;
	blank = strstr(text, "\n\n");
	fwrite(text, 1, blank ? (size_t)(blank - text) + 1 : len, f);
	free(text);
}

const char *const cli_global_options[10] = { "--root", "--no-load", "--load-from-root", "--timeout", "--json",
					    "--color", "--kb", "--verbose", "--help", "--version" };

static int verror(const char *cmd, cli_usage_fn usage, const char *suggestion, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fprintf(stderr, "error: %s\n", msg ? tesc(msg) : fmt);
	free(msg);
	if (suggestion)
		fprintf(stderr, "hint: did you mean '%s'?\n", tesc(suggestion));
	if (usage) {
		cli_short_usage(stderr, usage);
		fprintf(stderr, "see 'gpudoctor %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
	}
	return 2;
}

int cli_error(const char *cmd, cli_usage_fn usage, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror(cmd, usage, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int cli_error_hint(const char *cmd, cli_usage_fn usage, const char *suggestion, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror(cmd, usage, suggestion, fmt, ap);
	va_end(ap);
	return r;
}

int cli_bad_option(const char *cmd, cli_usage_fn usage, int argc, char **argv, const struct option *opts)
{
	const char *bad = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
	char name[128];
	size_t n = 0, nlen;
	const char *cands[128];
	char bufs[128][64];
	const char *best;

	if (optopt && optopt != '?' && !(bad[0] == '-' && bad[1] == '-')) {
		for (const struct option *o = opts; o && o->name; o++)
			if (o->val == optopt && o->has_arg == required_argument)
				return cli_error(cmd, usage, "option '-%c' needs a value", optopt);
		return cli_error(cmd, usage, "unknown option '-%c'", optopt);
	}
	nlen = strcspn(bad, "=");
	snprintf(name, sizeof(name), "%.*s", (int)(nlen < sizeof(name) - 1 ? nlen : sizeof(name) - 1), bad);
	for (const struct option *o = opts; o && o->name && n < 128; o++) {
		snprintf(bufs[n], sizeof(bufs[n]), "--%s", o->name);
		if (!strcmp(bufs[n], name)) {
			if (o->has_arg == required_argument)
				return cli_error(cmd, usage, "option '%s' needs a value", name);
			if (o->has_arg == no_argument && bad[nlen] == '=')
				return cli_error(cmd, usage, "option '%s' takes no value", name);
			/* getopt_long found it ambiguous or otherwise wrong */
			return cli_error(cmd, usage, "option '%s' is not valid here", name);
		}
		cands[n] = bufs[n];
		n++;
	}
	{
		/* getopt_long takes a unique prefix: "--upt" is --upto without its value */
		const struct option *hit = NULL;
		int nhits = 0;

		for (const struct option *o = opts; o && o->name; o++)
			if (strlen(name) > 2 && !strncmp(o->name, name + 2, strlen(name) - 2)) {
				hit = o;
				nhits++;
			}
		if (nhits == 1 && hit->has_arg == required_argument && bad[nlen] != '=')
			return cli_error(cmd, usage, "option '--%s' needs a value", hit->name);
		if (nhits > 1)
			return cli_error(cmd, usage, "option '%s' is ambiguous: give the whole name", name);
	}
	/* the global options are valid after the command too */
	for (size_t g = 0; g < sizeof(cli_global_options) / sizeof(cli_global_options[0]) && n < 128; g++)
		cands[n++] = cli_global_options[g];
	best = cli_suggest(name, cands, n);
	/* an abbreviation getopt_long refused because it fits two options */
	return cli_error_hint(cmd, usage, best, "unknown option '%s'", name);
}

int cli_json_format(const char *cmd, cli_usage_fn usage, int json, const char *format)
{
	if (json && format && strcmp(format, "json"))
		return cli_error(cmd, usage, "--json and --format %s ask for two outputs; give one", format);
	return 0;
}
