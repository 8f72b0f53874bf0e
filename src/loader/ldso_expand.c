/*
 * ldso_expand.c - dynamic string tokens in RPATH/RUNPATH/LD_LIBRARY_PATH
 * elements, and $ORIGIN itself (glibc elf/dl-load.c is_dst,
 * _dl_dst_substitute; elf/dl-object.c for l_origin).
 */
#include "loader/ldso.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Length of the token at in (after '$') when it is ref or {ref}, else 0. */
static size_t ldso_is_dst(const char *in, const char *ref)
{
	size_t n = strlen(ref);
	int curly = in[0] == '{';
	char c;

	if (curly)
		in++;
	if (strncmp(in, ref, n) != 0)
		return 0;
	c = in[n];
	if (curly)
		return c == '}' ? n + 2 : 0;
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
		return 0;
	return n;
}

char *ldso_expand(const struct ldso *l, const char *elem, const char *origin)
{
	struct buf b = BUF_INIT;
	const char *in = elem;

	while (*in) {
		const char *repl = NULL;
		size_t len = 0;
		int known = 0;

		if (*in != '$') {
			buf_addc(&b, *in++);
			continue;
		}
		in++;
		if ((len = ldso_is_dst(in, "ORIGIN")) != 0) {
			known = 1;
			/* Set-uid programs take $ORIGIN only as the first thing in an element. */
			if (!l->env.secure || (in == elem + 1 && (in[len] == '\0' || in[len] == '/')))
				repl = origin;
		} else if ((len = ldso_is_dst(in, "PLATFORM")) != 0) {
			known = 1;
			repl = l->env.platform;
		} else if ((len = ldso_is_dst(in, "LIB")) != 0) {
			known = 1;
			repl = l->env.lib;
		}
		if (repl) {
			buf_puts(&b, repl);
			in += len;
		} else if (known) {
			/* A token we know but cannot replace: the whole element is dropped. */
			buf_release(&b);
			return NULL;
		} else {
			buf_addc(&b, '$');
		}
	}
	return buf_detach(&b);
}

char *ldso_origin(const char *path, const char *cwd)
{
	const char *slash = strrchr(path, '/');
	char *abs, *r;

	if (path[0] != '/') {
		if (!cwd)
			return NULL;
		abs = xasprintf("%s/%s", cwd, path);
	} else {
		abs = xstrdup(path);
	}
	slash = strrchr(abs, '/');
	/* "/foo" keeps its only slash. */
	r = xstrndup(abs, slash == abs ? 1 : (size_t)(slash - abs));
	free(abs);
	return r;
}
