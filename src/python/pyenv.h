/*
 * pyenv.h - the Python environments on a machine, found without running
 * any interpreter.
 *
 * Sources: the active environment (VIRTUAL_ENV, CONDA_PREFIX), interpreters
 * on PATH, /usr/lib/python3*\/{site,dist}-packages, /usr/local/lib/python3*,
 * ~/.local/lib/python3*\/site-packages, conda installs and their envs
 * (/opt/conda, ~/miniconda3, ~/anaconda3, .../envs/\*), and --python /
 * --site-packages from the command line.  Each environment is listed once
 * (by resolved prefix).  All paths are machine paths (inside ctx->root).
 *
 *	struct pyenv_list envs = PYENV_LIST_INIT;
 *	pyenv_discover(ctx, &envs, &e);
 *	for (size_t i = 0; i < envs.n; i++)
 *		for (size_t k = 0; k < envs.envs[i].nsite; k++)
 *			look_in(envs.envs[i].site_dirs[k]);
 *	pyenv_list_release(&envs);
 */
#ifndef GD_PYENV_H
#define GD_PYENV_H

#include <stddef.h>

#include "core/err.h"

struct gd_ctx;

struct pyenv {
	char *prefix;		/* the environment's prefix (venv dir, conda env, /usr, /usr/local, ~/.local) */
	const char *kind;	/* "venv", "conda", "system", "user", "given" */
	char *python;		/* an interpreter of this environment, or NULL */
	char *python_version;	/* "3.11", or NULL */
	char **site_dirs;	/* site-packages / dist-packages directories */
	size_t nsite, site_cap;
	int active;		/* it is VIRTUAL_ENV or CONDA_PREFIX */
	char *base_python;	/* a venv's base interpreter: pyvenv.cfg's `home` joined with
				 * python3.X (the venv's version) or python3, when that file
				 * exists; its version is python_version.  NULL otherwise */
};

struct pyenv_list {
	struct pyenv *envs;
	size_t n, cap;
};

#define PYENV_LIST_INIT { NULL, 0, 0 }

int pyenv_discover(const struct gd_ctx *ctx, struct pyenv_list *out, struct err *e);
void pyenv_list_release(struct pyenv_list *l);
/* A deep copy of src into dst (dst's old contents are not freed). */
void pyenv_list_copy(struct pyenv_list *dst, const struct pyenv_list *src);

#endif
