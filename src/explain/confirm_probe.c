/*
 * confirm_probe.c - explain's one probe of its own: where the loader finds
 * each soname a log says could not be opened, and which files with that
 * soname exist elsewhere (from the libraries inventory).  Reads files only
 * through the loader emulation (loader/ldso.h), inside ctx->root.
 */
#include "explain/confirm.h"

#include "core/ctx.h"
#include "core/xalloc.h"
#include "loader/ldso.h"
#include "inventory/inventory.h"

#include <stdlib.h>
#include <string.h>

static int sane_soname(const char *s)
{
	size_t n = strlen(s);

	if (n < 4 || n > 200 || strchr(s, '/') || strncmp(s, "lib", 3) || !strstr(s, ".so"))
		return 0;
	return 1;
}

void confirm_probe_sonames(const struct gd_ctx *ctx, const struct inventory *inv,
			   const struct logmatch *m, struct confirm_in *ci)
{
	struct ldso l;
	struct ldso_env env;
	struct err e = ERR_INIT;
	int ok;

	memset(&env, 0, sizeof(env));
	env.root = ctx->root;
	env.ld_library_path = getenv("LD_LIBRARY_PATH");
	env.preload = getenv("LD_PRELOAD");
	ok = ldso_init(&l, &env, &e) == 0;
	for (size_t i = 0; i < m->nhits; i++) {
		const struct logmatch_hit *h = &m->hits[i];

		for (size_t k = 0; k < h->rule->ncaps; k++) {
			const char *so = h->caps[k];
			struct confirm_soname *s;
			struct ldso_result r = LDSO_RESULT_INIT;
			int dup = 0;

			if (strcmp(h->rule->capnames[k], "soname") || !so || !sane_soname(so))
				continue;
			for (size_t j = 0; j < ci->nsonames; j++)
				dup |= !strcmp(ci->sonames[j].soname, so);
			if (dup || ci->nsonames >= 32)
				continue;
			ci->sonames = xrealloc(ci->sonames, (ci->nsonames + 1) * sizeof(*ci->sonames));
			s = &ci->sonames[ci->nsonames++];
			memset(s, 0, sizeof(*s));
			s->soname = xstrdup(so);
			if (!ok) {
				s->error = xstrdup(e.msg);
				continue;
			}
			if (ldso_resolve(&l, so, NULL, 0, &r, &e) < 0) {
				s->error = xstrdup(e.msg);
			} else if (r.path && !r.load_error) {
				s->path = xstrdup(r.path);
				s->how = ldso_source_name(r.source);
			}
			ldso_result_release(&r);
			for (size_t c = 0; inv && c < inv->libs.n && s->ncopies < 8; c++) {
				const struct lib_copy *cp = &inv->libs.copies[c];
				const char *base = cp->path ? strrchr(cp->path, '/') : NULL;

				if (!base || (strcmp(base + 1, so) && (!cp->soname || strcmp(cp->soname, so))))
					continue;
				s->copies = xrealloc(s->copies, (s->ncopies + 1) * sizeof(*s->copies));
				s->copies[s->ncopies++] = xstrdup(cp->path);
			}
		}
	}
	if (ok)
		ldso_release(&l);
}

void confirm_in_release(struct confirm_in *ci)
{
	for (size_t i = 0; i < ci->nsonames; i++) {
		struct confirm_soname *s = &ci->sonames[i];

		free(s->soname);
		free(s->path);
		free(s->error);
		for (size_t k = 0; k < s->ncopies; k++)
			free(s->copies[k]);
		free(s->copies);
	}
	free(ci->sonames);
	ci->sonames = NULL;
	ci->nsonames = 0;
}
