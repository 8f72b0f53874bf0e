/*
 * condameta.h - the CUDA packages of a conda environment, read from its
 * conda-meta/PKG.json (one file per installed package, written by conda and
 * mamba: "name", "version", "build", "channel" or "url", "files").
 *
 * Only packages that ship CUDA libraries (cudatoolkit, cudnn, nccl,
 * cutensor, cuda-*, libcublas, libcufft, libcurand, libcusolver,
 * libcusparse, libnvjitlink, ...) and the frameworks' own conda packages
 * (pytorch, tensorflow, jaxlib, cupy) are read; the rest are skipped by
 * file name without being opened.  Every file is hostile: bounded size,
 * bounded counts, names checked.
 *
 *	struct conda_env ce;
 *	if (condameta_read(root, "/opt/conda/envs/tf", &ce, &e) == 0) {
 *		const struct conda_pkg *p = condameta_owner(&ce, "libcudnn.so.8");
 *		...
 *		condameta_release(&ce);
 *	}
 */
#ifndef GD_CONDAMETA_H
#define GD_CONDAMETA_H

#include <stddef.h>

#include "core/err.h"

/* At most this many packages and library files per package are kept. */
#define CONDAMETA_MAX_PKGS 256
#define CONDAMETA_MAX_LIBS 512

struct conda_pkg {
	char *name;		/* "cudnn" */
	char *version;		/* "8.9.7.29" */
	char *build;		/* "hcdd5f01_2", or NULL */
	char *channel;		/* "conda-forge", "nvidia", "pkgs/main", or NULL */
	int framework;		/* 1: a framework's package (pytorch, tensorflow, ...), 0: CUDA libraries */
	char **libs;		/* base names of its lib/libNAME.so files ("libcudnn.so.8") */
	size_t nlibs, libs_cap;
};

struct conda_env {
	char *prefix;		/* machine path */
	struct conda_pkg *pkgs;
	size_t n, cap;
	size_t skipped;		/* files that could not be read or parsed */
};

/* Reads prefix/conda-meta; 0 (possibly with no package), -1 when it cannot be listed. */
int condameta_read(const char *root, const char *prefix, struct conda_env *out, struct err *e);
void condameta_release(struct conda_env *ce);
/* One record's text into out (a package of interest is added); -1 when it is no JSON object. */
int condameta_parse_record(const char *text, size_t len, struct conda_env *out);
/* The package that installed lib/<name> (a base name), or NULL. */
const struct conda_pkg *condameta_owner(const struct conda_env *ce, const char *name);
/* Does this package name ship CUDA libraries (the filter condameta_read applies)? */
int condameta_is_cuda_pkg(const char *name);
/* Deep copy (dst's old contents are not freed). */
void condameta_copy(struct conda_env *dst, const struct conda_env *src);

#endif
