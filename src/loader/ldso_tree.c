/* ldso_tree.c - breadth-first dependency resolution as ld.so does it; see ldso_tree.h. */
#include "loader/ldso_tree.h"
#include "loader/elf.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A loaded object answers to its path, its soname and every name it was requested by. */
struct loaded {
	size_t node;
	char *path, *real, *soname;
	char **names;
	size_t nnames;
};

static void loaded_add_name(struct loaded *o, const char *name)
{
	if (!name)
		return;
	for (size_t i = 0; i < o->nnames; i++)
		if (!strcmp(o->names[i], name))
			return;
	o->names = xrealloc(o->names, (o->nnames + 1) * sizeof(*o->names));
	o->names[o->nnames++] = xstrdup(name);
}

static long find_loaded(struct loaded *objs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if ((objs[i].soname && !strcmp(objs[i].soname, name)) || !strcmp(objs[i].path, name))
			return (long)i;
		for (size_t k = 0; k < objs[i].nnames; k++)
			if (!strcmp(objs[i].names[k], name))
				return (long)i;
	}
	return -1;
}

static long find_file(struct loaded *objs, size_t n, const char *real)
{
	for (size_t i = 0; real && i < n; i++)
		if (objs[i].real && !strcmp(objs[i].real, real))
			return (long)i;
	return -1;
}

static struct ldso_node *new_node(struct ldso_tree *t, const char *name, size_t parent, size_t depth)
{
	struct ldso_node *nd;

	XGROW(t->nodes, t->n, t->cap);
	nd = &t->nodes[t->n++];
	memset(nd, 0, sizeof(*nd));
	nd->name = xstrdup(name);
	nd->parent = parent;
	nd->depth = depth;
	nd->same_as = LDSO_NO_PARENT;
	return nd;
}

static void read_needed(struct ldso *l, const char *path, char ***needed, size_t *n, size_t *bytes)
{
	struct buf host = BUF_INIT;
	struct elf_file ef;

	*needed = NULL;
	*n = 0;
	fs_path(l->env.root, path, &host);
	if (elf_open(host.s, &ef, NULL) == 0) {
		*needed = ef.needed;
		*n = ef.nneeded;
		ef.needed = NULL;
		ef.nneeded = 0;
		*bytes += ef.bytes_touched;
	}
	elf_close(&ef);
	buf_release(&host);
}

int ldso_tree_build(struct ldso *l, const char *path, struct ldso_tree *t, struct err *e)
{
	struct loaded *objs = NULL;
	size_t nobjs = 0, objs_cap = 0, q;
	struct timespec t0, t1;
	struct buf host = BUF_INIT, rp = BUF_INIT;
	struct elf_file top;
	const char *rtld_name, *rtld_path;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fs_path(l->env.root, path, &host);
	if (elf_open(host.s, &top, e) < 0) {
		elf_close(&top);
		buf_release(&host);
		return -1;
	}
	{
		struct ldso_node *nd = new_node(t, path, LDSO_NO_PARENT, 0);

		nd->res.path = xstrdup(path);
		nd->res.source = LDSO_PATH;
		nd->res.soname = xstrdup_or_null(top.soname);
		nd->res.bytes_read = top.bytes_touched;
		if (fs_resolve(l->env.root, path, &rp, NULL) == 0)
			nd->res.realpath = xstrdup(rp.s);
		t->bytes_read += top.bytes_touched;
	}
	/* The dynamic loader is loaded before anything else and answers to its soname. */
	rtld_name = l->machine == EM_AARCH64 ? "ld-linux-aarch64.so.1" : "ld-linux-x86-64.so.2";
	rtld_path = top.interp ? top.interp
		    : l->machine == EM_AARCH64 ? "/lib/ld-linux-aarch64.so.1" : "/lib64/ld-linux-x86-64.so.2";
	XGROW(objs, nobjs, objs_cap);
	memset(&objs[nobjs], 0, sizeof(*objs));
	objs[nobjs].node = 0;
	objs[nobjs].path = xstrdup(path);
	objs[nobjs].real = t->nodes[0].res.realpath ? xstrdup(t->nodes[0].res.realpath) : NULL;
	objs[nobjs].soname = xstrdup_or_null(top.soname);
	nobjs++;
	XGROW(objs, nobjs, objs_cap);
	memset(&objs[nobjs], 0, sizeof(*objs));
	objs[nobjs].node = LDSO_NO_PARENT;
	objs[nobjs].path = xstrdup(rtld_path);
	objs[nobjs].soname = xstrdup(rtld_name);
	if (fs_resolve(l->env.root, rtld_path, &rp, NULL) == 0)
		objs[nobjs].real = xstrdup(rp.s);
	nobjs++;
	elf_close(&top);

	for (q = 0; q < t->n; q++) {
		char **needed;
		size_t nneeded, nchain = 0;
		const char **chain;
		size_t depth = t->nodes[q].depth;

		if (!t->nodes[q].res.path || t->nodes[q].res.load_error ||
		    t->nodes[q].res.source == LDSO_ALREADY_LOADED)
			continue;
		read_needed(l, t->nodes[q].res.path, &needed, &nneeded, &t->bytes_read);
		/* The loader chain: this object, the one that loaded it, ... up to the top. */
		chain = xcalloc(depth + 1, sizeof(*chain));
		for (size_t p = q; p != LDSO_NO_PARENT; p = t->nodes[p].parent)
			chain[nchain++] = t->nodes[p].res.path;
		for (size_t i = 0; i < nneeded; i++) {
			long hit = find_loaded(objs, nobjs, needed[i]);
			struct ldso_node *nd = new_node(t, needed[i], q, depth + 1);

			if (hit >= 0) {
				nd->res.source = LDSO_ALREADY_LOADED;
				nd->res.path = xstrdup(objs[hit].path);
				nd->res.realpath = xstrdup_or_null(objs[hit].real);
				nd->same_as = objs[hit].node;
				loaded_add_name(&objs[hit], needed[i]);
				continue;
			}
			ldso_resolve(l, needed[i], chain, nchain, &nd->res, NULL);
			t->bytes_read += nd->res.bytes_read;
			if (!nd->res.path || nd->res.load_error)
				continue;
			hit = find_file(objs, nobjs, nd->res.realpath);
			if (hit >= 0) {
				/* The same file under another name: ld.so compares device and inode. */
				nd->same_as = objs[hit].node;
				loaded_add_name(&objs[hit], needed[i]);
				nd->res.source = LDSO_ALREADY_LOADED;
				continue;
			}
			XGROW(objs, nobjs, objs_cap);
			memset(&objs[nobjs], 0, sizeof(*objs));
			objs[nobjs].node = t->n - 1;
			objs[nobjs].path = xstrdup(nd->res.path);
			objs[nobjs].real = xstrdup_or_null(nd->res.realpath);
			objs[nobjs].soname = xstrdup_or_null(nd->res.soname);
			loaded_add_name(&objs[nobjs], needed[i]);
			nobjs++;
		}
		free(chain);
		fs_names_free(needed, nneeded);
	}
	for (size_t i = 0; i < nobjs; i++) {
		free(objs[i].path);
		free(objs[i].real);
		free(objs[i].soname);
		fs_names_free(objs[i].names, objs[i].nnames);
	}
	free(objs);
	buf_release(&host);
	buf_release(&rp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	t->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return ret;
}

void ldso_tree_release(struct ldso_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->nodes[i].name);
		ldso_result_release(&t->nodes[i].res);
	}
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}
