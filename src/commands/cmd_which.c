/*
 * cmd_which.c - gpudoctor which: the file the dynamic loader would load for
 * a soname, the step of the search that found it, and every candidate it
 * passed over; with --from FILE --all, the whole dependency tree of FILE.
 */
#include "commands/cli.h"
#include "commands/commands.h"
#include "core/ctx.h"
#include "core/json.h"
#include "core/termesc.h"
#include "loader/ldcache.h"
#include "loader/ldso.h"
#include "loader/ldso_tree.h"
#include "render/json_preloads.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: gpudoctor which SONAME [--from FILE]\n"
	      "       gpudoctor which --from FILE --all\n\n"
	      "Which file the dynamic loader (glibc ld.so) would load for SONAME, and why:\n"
	      "the step of the search that found it (RPATH, LD_LIBRARY_PATH, RUNPATH,\n"
	      "ld.so.cache, default directories) and every candidate passed over.\n\n"
	      "  --from FILE   the object that asks for SONAME (its RPATH/RUNPATH and $ORIGIN\n"
	      "                count); without it, a program with neither (like python's dlopen)\n"
	      "  --all         resolve every NEEDED entry of FILE, breadth first, like ld.so\n"
	      "  --secure      emulate a set-uid program (LD_LIBRARY_PATH ignored)\n"
	      "  -v            also show the directories searched and the bytes read per library\n"
	      "  --json        machine-readable output\n\n"
	      "LD_LIBRARY_PATH and LD_PRELOAD are taken from the environment, and\n"
	      "/etc/ld.so.preload from the machine.  Exit status: 0 found,\n"
	      "1 not found (or the loader would fail on the file it finds), 2 usage error.\n", f);
}

static void json_result(struct json *j, const struct ldso_result *r)
{
	json_str(j, "path", r->path);
	json_str(j, "realpath", r->realpath);
	json_str(j, "soname", r->soname);
	json_str(j, "source", r->path ? ldso_source_id(r->source) : NULL);
	json_str(j, "from", r->from);
	json_str(j, "load_error", r->load_error);
	json_int_nonneg(j, "bytes_read", r->path ? (long long)r->bytes_read : -1);
	json_arr_begin(j, "candidates");
	for (size_t i = 0; i < r->ncands; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", r->cands[i].path);
		json_str(j, "source", ldso_source_id(r->cands[i].source));
		json_str(j, "from", r->cands[i].from);
		json_str(j, "rejected", r->cands[i].rejected);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "searched");
	for (size_t i = 0; i < r->ndirs; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "dir", r->dirs[i].dir);
		json_str(j, "source", ldso_source_id(r->dirs[i].source));
		json_str(j, "from", r->dirs[i].from);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_loader(struct json *j, const struct ldso *l)
{
	json_obj_begin(j, "loader");
	json_str(j, "cache", l->env.cache_path ? l->env.cache_path : "/etc/ld.so.cache");
	json_str(j, "cache_format", l->cache ? ldcache_format_name(l->cache->format) : NULL);
	json_str(j, "cache_error", l->cache_error);
	json_bool(j, "cache_stale", l->cache_stale);
	json_str(j, "cache_stale_reason", l->cache_stale_reason);
	json_str(j, "ld_library_path", l->env.ld_library_path);
	json_str_array(j, "default_dirs", l->default_dirs, l->ndefault_dirs);
	json_str_array(j, "conf_dirs", l->conf_dirs, l->nconf_dirs);
	json_str_array(j, "hwcaps", l->hwcaps, l->nhwcaps);
	json_preloads(j, "preloads", l->preloads, l->npreloads);
	if (l->glibc_major >= 0) {
		char v[32];

		snprintf(v, sizeof(v), "%d.%d", l->glibc_major, l->glibc_minor);
		json_str(j, "glibc", v);
	} else {
		json_null(j, "glibc");
	}
	json_obj_end(j);
}

static void text_result(const struct ldso_result *r, const char *name, int indent, int verbose)
{
	printf("%*s%s => ", indent, "", tesc(name));
	if (!r->path) {
		puts("not found");
	} else {
		printf("%s", tesc(r->path));
		if (r->realpath && strcmp(r->realpath, r->path))
			printf(" (-> %s)", tesc(r->realpath));
		if (r->source == LDSO_ALREADY_LOADED)
			printf("  [already loaded]\n");
		else if (r->source == LDSO_PRELOAD)
			printf("  [preloaded by %s]\n", r->from ? tesc(r->from) : "LD_PRELOAD");
		else if (r->from)
			printf("  [%s of %s]\n", ldso_source_name(r->source), tesc(r->from));
		else
			printf("  [%s]\n", ldso_source_name(r->source));
	}
	if (r->load_error)
		printf("%*s  ld.so would fail here: %s\n", indent, "", tesc(r->load_error));
	for (size_t i = 0; i < r->ncands; i++)
		if (r->cands[i].rejected)
			printf("%*s  passed over %s (%s): %s\n", indent, "", tesc(r->cands[i].path),
			       ldso_source_name(r->cands[i].source), tesc(r->cands[i].rejected));
	if (verbose) {
		for (size_t i = 0; i < r->ndirs; i++)
			printf("%*s  searched %s (%s%s%s)\n", indent, "", tesc(r->dirs[i].dir),
			       ldso_source_name(r->dirs[i].source), r->dirs[i].from ? " of " : "",
			       r->dirs[i].from ? tesc(r->dirs[i].from) : "");
		if (r->path && r->source != LDSO_ALREADY_LOADED)
			printf("%*s  read %zu bytes of the file\n", indent, "", r->bytes_read);
	}
}

/* What ld.so loads before anything else, and what it refuses with a message. */
static void text_preloads(const struct ldso *l)
{
	for (size_t i = 0; i < l->npreloads; i++) {
		const struct ldso_preload *p = &l->preloads[i];

		if (p->path)
			printf("preloaded by %s: %s => %s\n", tesc(p->via), tesc(p->name), tesc(p->path));
		else
			printf("ld.so prints: ERROR: ld.so: object '%s' from %s cannot be preloaded (%s): ignored.\n",
			       tesc(p->name), tesc(p->via), p->error ? tesc(p->error) : "?");
	}
}

static int which_all(struct ldso *l, const char *from, const struct gd_ctx *ctx)
{
	struct ldso_tree t;
	struct err e = ERR_INIT;
	int missing = 0;

	if (ldso_tree_build(l, from, &t, &e) < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		return 2;
	}
	for (size_t i = 1; i < t.n; i++)
		if (!t.nodes[i].res.path || t.nodes[i].res.load_error)
			missing++;
	if (ctx->json) {
		struct json j;

		json_init(&j, 1);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpudoctor.which/1");
		json_str(&j, "from", from);
		json_int(&j, "missing", missing);
		json_num(&j, "seconds", t.seconds);
		json_int(&j, "bytes_read", (long long)t.bytes_read);
		json_loader(&j, l);
		json_arr_begin(&j, "libraries");
		for (size_t i = 0; i < t.n; i++) {
			json_obj_begin(&j, NULL);
			json_str(&j, "name", t.nodes[i].name);
			json_int(&j, "depth", (long long)t.nodes[i].depth);
			json_str(&j, "needed_by", t.nodes[i].parent == LDSO_NO_PARENT ? NULL
				 : t.nodes[t.nodes[i].parent].res.path);
			json_result(&j, &t.nodes[i].res);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		fputs(j.out.s, stdout);
		json_release(&j);
	} else {
		text_preloads(l);
		printf("%s", tesc(from));
		if (t.nodes[0].res.soname)
			printf(" (soname %s)", tesc(t.nodes[0].res.soname));
		putchar('\n');
		for (size_t i = 1; i < t.n; i++)
			if (ctx->verbose || t.nodes[i].res.source != LDSO_ALREADY_LOADED)
				text_result(&t.nodes[i].res, t.nodes[i].name, 2 * (int)t.nodes[i].depth,
				    ctx->verbose);
		if (l->cache_stale)
			printf("warning: ld.so.cache is stale: %s\n", tesc(l->cache_stale_reason));
		if (ctx->verbose)
			printf("%zu objects, %zu bytes read, %.2f ms\n", t.n, t.bytes_read, t.seconds * 1e3);
		if (missing)
			printf("%d dependenc%s not loadable\n", missing, missing == 1 ? "y" : "ies");
	}
	ldso_tree_release(&t);
	return missing ? 1 : 0;
}

int cmd_which(int argc, char **argv, const struct gd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "secure", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *from = NULL, *soname;
	int all = 0, secure = 0, c, ret;
	struct ldso l;
	struct ldso_env env = { 0 };
	struct err e = ERR_INIT;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'f': from = optarg; break;
		case 'a': all = 1; break;
		case 's': secure = 1; break;
		case 'h': usage(stdout); return 0;
		default: return cli_bad_option("which", usage, argc, argv, opts);
		}
	}
	soname = optind < argc ? argv[optind] : NULL;
	if ((all && (!from || soname)) || (!all && !soname) || optind + 1 < argc)
		return cli_error("which", usage, optind + 1 < argc ? "one SONAME at a time ('%s' is extra)" :
				 all ? "--all goes with --from FILE and no SONAME%s" : "give a SONAME%s",
				 optind + 1 < argc ? argv[optind + 1] : "");
	env.root = ctx->root;
	env.ld_library_path = getenv("LD_LIBRARY_PATH");
	env.preload = getenv("LD_PRELOAD");
	env.secure = secure;
	env.legacy_hwcaps = LDSO_LEGACY_AUTO;
	if (ldso_init(&l, &env, &e) < 0) {
		fprintf(stderr, "error: %s\n", tesc(e.msg));
		return 2;
	}
	if (all) {
		ret = which_all(&l, from, ctx);
	} else {
		struct ldso_result r = LDSO_RESULT_INIT;
		const char *chain[1] = { from };

		ldso_resolve(&l, soname, chain, from ? 1 : 0, &r, &e);
		if (ctx->json) {
			struct json j;

			json_init(&j, 1);
			json_obj_begin(&j, NULL);
			json_str(&j, "schema", "gpudoctor.which/1");
			json_str(&j, "name", soname);
			json_str(&j, "requested_by", from);
			json_result(&j, &r);
			json_loader(&j, &l);
			json_obj_end(&j);
			fputs(j.out.s, stdout);
			json_release(&j);
		} else {
			text_preloads(&l);
			text_result(&r, soname, 0, ctx->verbose);
			if (!r.path && l.cache_error)
				printf("note: no usable ld.so.cache: %s\n", tesc(l.cache_error));
			if (l.cache_stale)
				printf("warning: ld.so.cache is stale: %s\n", tesc(l.cache_stale_reason));
		}
		ret = r.path && !r.load_error ? 0 : 1;
		ldso_result_release(&r);
	}
	ldso_release(&l);
	return ret;
}
