/*
 * ldso_tree.h - the whole dependency tree of an object, loaded the way ld.so
 * loads it (elf/dl-deps.c _dl_map_object_deps): breadth first, NEEDED
 * entries in order, each requested with its requester's loader chain for
 * RPATH, and a name that an already loaded object answers to (its soname,
 * a name it was requested by, or the same file) is not searched again.
 *
 *	struct ldso_tree t;
 *	ldso_tree_build(&l, "/usr/local/cuda/lib64/libcublas.so.13", &t, &e);
 *	for (size_t i = 0; i < t.n; i++)
 *		printf("%s => %s\n", t.nodes[i].name, t.nodes[i].res.path);
 *	ldso_tree_release(&t);
 */
#ifndef GD_LDSO_TREE_H
#define GD_LDSO_TREE_H

#include <stddef.h>

#include "loader/ldso.h"

#define LDSO_NO_PARENT ((size_t)-1)

struct ldso_node {
	char *name;		/* the NEEDED string (the top object: its path) */
	size_t parent;		/* index of the requester, LDSO_NO_PARENT for the top */
	size_t depth;
	size_t same_as;		/* ALREADY_LOADED: index of the node that loaded it, else LDSO_NO_PARENT */
	struct ldso_result res;	/* res.source == LDSO_ALREADY_LOADED for short-circuits */
};

struct ldso_tree {
	struct ldso_node *nodes;
	size_t n, cap;
	double seconds;		/* wall time of the build */
	size_t bytes_read;	/* sum over every file looked at */
};

/* 0 (missing libraries are nodes with res.path NULL), -1 when path itself cannot be read. */
int ldso_tree_build(struct ldso *l, const char *path, struct ldso_tree *t, struct err *e);
void ldso_tree_release(struct ldso_tree *t);

#endif
