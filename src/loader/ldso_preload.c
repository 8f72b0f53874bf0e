/*
 * ldso_preload.c - the objects ld.so loads before a program's own
 * libraries (LD_PRELOAD, /etc/ld.so.preload), and how their lists are read.
 * ldso_resolve answers a name one of them answers to with that object.
 */
#include "loader/ldso.h"
#include "loader/ldso_priv.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

char **ldso_preload_split(const char *text, size_t len, int file, size_t *n)
{
	const char *seps = file ? " \t\n:" : " :";
	char **v = NULL;
	size_t cap = 0, i = 0;

	*n = 0;
	while (text && i < len && text[i]) {
		size_t j = i;

		if (file && text[i] == '#') {
			while (i < len && text[i] && text[i] != '\n')
				i++;
			continue;
		}
		while (j < len && text[j] && !strchr(seps, text[j]) && !(file && text[j] == '#'))
			j++;
		if (j > i) {
			XGROW(v, *n, cap);
			v[(*n)++] = xstrndup(text + i, j - i);
		}
		i = j;
		if (i < len && text[i] && strchr(seps, text[i]))
			i++;
	}
	return v;
}

/*
 * One entry: searched like a dependency of the program (we do not know the
 * program, so no RPATH/RUNPATH takes part) unless it has a '/'.  Earlier
 * entries answer later ones, as in ld.so.
 */
static void preload_one(struct ldso *l, const char *name, const char *via)
{
	struct ldso_preload *p;
	struct ldso_result r = LDSO_RESULT_INIT;

	ldso_resolve(l, name, NULL, 0, &r, NULL);
	l->preloads = xrealloc(l->preloads, (l->npreloads + 1) * sizeof(*l->preloads));
	p = &l->preloads[l->npreloads++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->via = via;
	if (r.path && !r.load_error) {
		p->path = xstrdup(r.path);
		p->realpath = xstrdup_or_null(r.realpath);
		p->soname = xstrdup_or_null(r.soname);
	} else {
		/* the words ld.so puts in "cannot be preloaded (...): ignored." */
		p->error = xstrdup(r.load_error ? r.load_error : "cannot open shared object file");
	}
	ldso_result_release(&r);
}

static void preload_text(struct ldso *l, const char *text, size_t len, int file, const char *via)
{
	size_t n;
	char **v = ldso_preload_split(text, len, file, &n);

	for (size_t i = 0; i < n; i++)
		preload_one(l, v[i], via);
	fs_names_free(v, n);
}

/* Set-uid programs take only trusted LD_PRELOAD entries; gpudoctor takes none then. */
void ldso_preloads_load(struct ldso *l)
{
	const char *file = l->env.preload_file ? l->env.preload_file : "/etc/ld.so.preload";
	struct buf b = BUF_INIT;

	if (l->env.preload && !l->env.secure)
		preload_text(l, l->env.preload, strlen(l->env.preload), 0, "LD_PRELOAD");
	if (fs_read_file(l->env.root, file, 1 << 20, &b, NULL) == 0)
		preload_text(l, b.s, b.len, 1, file);
	buf_release(&b);
}

struct ldso_preload *ldso_preloads_copy(const struct ldso *l, size_t *n)
{
	struct ldso_preload *v = l->npreloads ? xcalloc(l->npreloads, sizeof(*v)) : NULL;

	*n = l->npreloads;
	for (size_t i = 0; i < l->npreloads; i++) {
		const struct ldso_preload *p = &l->preloads[i];

		v[i].name = xstrdup(p->name);
		v[i].via = p->via;	/* a string constant or l->env's preload_file */
		v[i].path = xstrdup_or_null(p->path);
		v[i].realpath = xstrdup_or_null(p->realpath);
		v[i].soname = xstrdup_or_null(p->soname);
		v[i].error = xstrdup_or_null(p->error);
	}
	return v;
}

void ldso_preloads_free(struct ldso_preload *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].path);
		free(p[i].realpath);
		free(p[i].soname);
		free(p[i].error);
	}
	free(p);
}
