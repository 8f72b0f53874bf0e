/*
 * pyfile_torch_version.c - PyTorch's torch/version.py (pytorch/pytorch
 * tools/generate_torch_version.py writes it).
 *
 * Written by tools/generate_torch_version.py: `__version__ = '2.7.1+cu126'`
 * and `cuda: Optional[str] = '12.6'` (no annotation in older files; None in
 * CPU builds), `hip` for ROCm builds, `git_version`, `debug`.
 */
#include "python/pyfile.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

static char *tv_str(const struct pyfile_pairs *p, const char *key, int *present)
{
	const struct pyval *v = pyfile_get(p, key);

	if (present)
		*present = v != NULL;
	return v && v->type == PYVAL_STR ? xstrdup(v->str) : NULL;
}

int pyfile_torch_version_parse(const char *text, size_t len, struct torch_version_py *v,
			       struct err *e)
{
	struct pyfile_pairs p = { NULL, NULL, 0, 0 };
	const struct pyval *dbg;

	memset(v, 0, sizeof(*v));
	v->debug = -1;
	pyfile_scan(text, len, &p);
	v->version = tv_str(&p, "__version__", NULL);
	v->cuda = tv_str(&p, "cuda", &v->cuda_known);
	v->hip = tv_str(&p, "hip", NULL);
	v->git_version = tv_str(&p, "git_version", NULL);
	dbg = pyfile_get(&p, "debug");
	if (dbg && dbg->type == PYVAL_BOOL)
		v->debug = dbg->b;
	pyfile_pairs_release(&p);
	if (!v->version)
		return err_set(e, "no __version__ in the file");
	return 0;
}

void torch_version_py_release(struct torch_version_py *v)
{
	free(v->version);
	free(v->cuda);
	free(v->hip);
	free(v->git_version);
	memset(v, 0, sizeof(*v));
}
