/* ldconf.c - parse ld.so.conf with include globs inside a root; see ldconf.h. */
#include "loader/ldconf.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <glob.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#define LDCONF_MAX_DEPTH 16	/* include loops end here */

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

static void ldconf_include(const char *root, const char *from, const char *pattern,
			   struct ldconf *c, int depth)
{
	struct buf full = BUF_INIT, host = BUF_INIT;
	size_t rootlen;
	glob_t g;

	if (pattern[0] == '/') {
		buf_puts(&full, pattern);
	} else {
		char *d = xstrdup(from);

		buf_printf(&full, "%s/%s", dirname(d), pattern);
		free(d);
	}
	fs_path(root, full.s, &host);
	rootlen = host.len - full.len;
	if (glob(host.s, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (strlen(g.gl_pathv[i]) > rootlen)
				ldconf_parse(root, g.gl_pathv[i] + rootlen, c, depth + 1, NULL);
		globfree(&g);
	}
	buf_release(&full);
	buf_release(&host);
}

static int ldconf_parse(const char *root, const char *abs, struct ldconf *c, int depth,
			struct err *e)
{
	struct buf b = BUF_INIT;
	char *line, *save = NULL;

	if (depth > LDCONF_MAX_DEPTH)
		return 0;
	if (fs_read_file(root, abs, 1u << 20, &b, e) < 0) {
		buf_release(&b);
		return -1;
	}
	XGROW(c->files, c->nfiles, c->files_cap);
	c->files[c->nfiles++] = xstrdup(abs);
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
	buf_release(&b);
	return 0;
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
	memset(c, 0, sizeof(*c));
}
