/* ldconf.c - parse ld.so.conf with include globs inside a root; see ldconf.h. */
#include "loader/ldconf.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#define LDCONF_MAX_DEPTH 16	/* nested includes end here (loops end at the read set) */

static void ldconf_add_dir(struct ldconf *c, const char *line)
{
	char *p = xstrdup(line), *eq = strchr(p, '=');
	size_t n;

	if (eq)
		*eq = '\0';
	n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		p[--n] = '\0';
	while (n > 0 && p[n - 1] == '/')
		p[--n] = '\0';
	if (n == 0) {
		free(p);
		return;
	}
	for (size_t i = 0; i < c->ndirs; i++)
		if (!strcmp(c->dirs[i], p)) {
			free(p);
			return;
		}
	XGROW(c->dirs, c->ndirs, c->dirs_cap);
	c->dirs[c->ndirs++] = p;
}

static int ldconf_parse(const char *root, const char *abs, struct ldconf *c, int depth,
			struct err *e);
static void ldconf_parse_lines(const char *root, const char *abs, char *text, struct ldconf *c,
			       int depth);

static int ldconf_has_magic(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return 1;
	return 0;
}

/*
 * glob(3) inside the root, one component at a time: a component with
 * wildcards matches the names of the directory (resolved inside the root,
 * links to directories of any name included; names starting with '.' only
 * by a pattern that starts with '.'), any other component is appended as it
 * is.  Matches are machine paths; a missing part matches nothing.
 */
static void ldconf_glob(const char *root, const char *dir, const char *rest,
			char ***out, size_t *n, size_t *cap, int depth)
{
	const char *slash;
	size_t len;
	char *comp, *next;

	while (*rest == '/')
		rest++;
	if (!*rest) {
		if (fs_exists(root, dir)) {
			XGROW(*out, *n, *cap);
			(*out)[(*n)++] = xstrdup(dir);
		}
		return;
	}
	if (depth > 64)
		return;
	slash = strchr(rest, '/');
	len = slash ? (size_t)(slash - rest) : strlen(rest);
	comp = xstrndup(rest, len);
	if (!ldconf_has_magic(comp, len)) {
		next = fs_join(dir, comp);
		ldconf_glob(root, next, rest + len, out, n, cap, depth + 1);
		free(next);
	} else {
		char **names;
		size_t nn;

		if (fs_list_dir(root, dir, &names, &nn, NULL) == 0) {
			for (size_t i = 0; i < nn; i++) {
				if (names[i][0] == '.' && comp[0] != '.')
					continue;
				if (fnmatch(comp, names[i], FNM_PERIOD) != 0)
					continue;
				/* more components follow: only directories can match */
				if (slash && !fs_is_dir(root, (next = fs_join(dir, names[i])))) {
					free(next);
					continue;
				}
				next = fs_join(dir, names[i]);
				ldconf_glob(root, next, rest + len, out, n, cap, depth + 1);
				free(next);
			}
			fs_names_free(names, nn);
		}
	}
	free(comp);
}

static int ldconf_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ldconf_include(const char *root, const char *from, const char *pattern,
			   struct ldconf *c, int depth)
{
	struct buf full = BUF_INIT;
	char **paths = NULL;
	size_t n = 0, cap = 0;

	if (pattern[0] == '/') {
		buf_puts(&full, pattern);
	} else {
		char *d = xstrdup(from);

		buf_printf(&full, "%s/%s", dirname(d), pattern);
		free(d);
	}
	ldconf_glob(root, "/", full.s, &paths, &n, &cap, 0);
	if (n)
		qsort(paths, n, sizeof(*paths), ldconf_cmp);	/* glob(3) sorts its matches */
	for (size_t i = 0; i < n; i++)
		ldconf_parse(root, paths[i], c, depth + 1, NULL);
	fs_names_free(paths, n);
	buf_release(&full);
}

/* A file already read (by its path resolved inside the root): read once. */
static int ldconf_seen(const char *root, const char *abs, struct ldconf *c)
{
	struct buf r = BUF_INIT;
	const char *key;
	int seen = 0;

	key = fs_resolve(root, abs, &r, NULL) == 0 ? r.s : abs;
	for (size_t i = 0; i < c->nread && !seen; i++)
		seen = !strcmp(c->read[i], key);
	if (!seen) {
		XGROW(c->read, c->nread, c->read_cap);
		c->read[c->nread++] = xstrdup(key);
	}
	buf_release(&r);
	return seen;
}

static int ldconf_parse(const char *root, const char *abs, struct ldconf *c, int depth,
			struct err *e)
{
	struct buf b = BUF_INIT;

	if (depth > LDCONF_MAX_DEPTH || ldconf_seen(root, abs, c))
		return 0;
	if (fs_read_file(root, abs, 1u << 20, &b, e) < 0) {
		buf_release(&b);
		return -1;
	}
	XGROW(c->files, c->nfiles, c->files_cap);
	c->files[c->nfiles++] = xstrdup(abs);
	ldconf_parse_lines(root, abs, b.s, c, depth);
	buf_release(&b);
	return 0;
}

/* The lines of one file (text is modified); includes are read through fs. */
static void ldconf_parse_lines(const char *root, const char *abs, char *text, struct ldconf *c,
			       int depth)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cp = line, *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*cp))
			cp++;
		if (!*cp)
			continue;
		if (!strncmp(cp, "include", 7) && (cp[7] == ' ' || cp[7] == '\t')) {
			char *w, *ws = NULL;

			for (w = strtok_r(cp + 8, " \t", &ws); w; w = strtok_r(NULL, " \t", &ws))
				ldconf_include(root, abs, w, c, depth);
		} else if (!strncasecmp(cp, "hwcap", 5) && (cp[5] == ' ' || cp[5] == '\t')) {
			continue;
		} else {
			ldconf_add_dir(c, cp);
		}
	}
}

void ldconf_parse_text(const char *root, const char *abs, const char *text, size_t len,
		       struct ldconf *c)
{
	char *copy = xstrndup(text, len);

	memset(c, 0, sizeof(*c));
	ldconf_parse_lines(root, abs, copy, c, 0);
	free(copy);
}

int ldconf_load(const char *root, const char *abs, struct ldconf *c, struct err *e)
{
	memset(c, 0, sizeof(*c));
	return ldconf_parse(root, abs, c, 0, e);
}

void ldconf_release(struct ldconf *c)
{
	fs_names_free(c->dirs, c->ndirs);
	fs_names_free(c->files, c->nfiles);
	fs_names_free(c->read, c->nread);
	memset(c, 0, sizeof(*c));
}
