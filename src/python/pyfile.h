/*
 * pyfile.h - facts from generated Python source files, read as text.
 *
 * Frameworks record how they were built in small generated modules:
 * TensorFlow's tensorflow/python/platform/build_info.py and PyTorch's
 * torch/version.py.  Importing them means importing the framework, so they
 * are parsed here instead.  pyfile_scan() understands the three shapes these
 * files have had: `collections.OrderedDict([('key', value), ...])`, a dict
 * literal `{'key': value, ...}`, and module-level assignments
 * `key = value` / `key: Optional[str] = value`.  Values are Python literals:
 * strings, True/False/None, numbers and lists/tuples of strings.
 *
 *	struct tf_build_info bi;
 *	pyfile_build_info_parse(text, len, &bi, &e);
 *	if (bi.is_cuda_build == 1) use(bi.cuda_major, bi.caps, bi.ncaps);
 *	tf_build_info_release(&bi);
 */
#ifndef GD_PYFILE_H
#define GD_PYFILE_H

#include <stddef.h>

#include "core/err.h"

enum pyval_type { PYVAL_NONE, PYVAL_STR, PYVAL_BOOL, PYVAL_NUM, PYVAL_LIST, PYVAL_OTHER };

struct pyval {
	enum pyval_type type;
	char *str;		/* PYVAL_STR text, PYVAL_NUM digits, PYVAL_OTHER raw token */
	int b;			/* PYVAL_BOOL */
	char **items;		/* PYVAL_LIST: the string items (others skipped) */
	size_t nitems, items_cap;
};

struct pyfile_pairs {
	char **keys;
	struct pyval *vals;
	size_t n, cap;
};

/* Every key/value pair in the three shapes above, in file order. */
void pyfile_scan(const char *text, size_t len, struct pyfile_pairs *p);
void pyfile_pairs_release(struct pyfile_pairs *p);
/* The last value of key, or NULL. */
const struct pyval *pyfile_get(const struct pyfile_pairs *p, const char *key);

/* TensorFlow's build_info.py. */
struct tf_build_info {
	const char *form;	/* "OrderedDict", "dict", "assignments" or NULL when nothing was found */
	char *cuda_version;	/* as written: "12.2", "12.5.1", "64_112", or NULL */
	char *cuda;		/* normalised "12.2" / "12.5.1" / "11.2" (from 64_112), or NULL */
	int cuda_major, cuda_minor;	/* -1 unknown */
	char *cudnn_version;	/* as written: "8", "9.3", "64_8" */
	int cudnn_major;	/* -1 unknown */
	char **caps;		/* cuda_compute_capabilities: "sm_60", "compute_90", "3.5" */
	size_t ncaps;
	int is_cuda_build, is_rocm_build, is_tensorrt_build;	/* 1/0, -1 unknown */
	char *cpu_compiler;
};

int pyfile_build_info_parse(const char *text, size_t len, struct tf_build_info *b,
			    struct err *e);
void tf_build_info_release(struct tf_build_info *b);

/* PyTorch's torch/version.py. */
struct torch_version_py {
	char *version;		/* __version__ "2.7.1+cu126" */
	char *cuda;		/* "12.6", NULL for CPU builds (cuda = None) */
	int cuda_known;		/* the cuda line was present (NULL then means a CPU build) */
	char *hip;		/* ROCm builds */
	char *git_version;
	int debug;		/* -1 unknown */
};

int pyfile_torch_version_parse(const char *text, size_t len, struct torch_version_py *v,
			       struct err *e);
void torch_version_py_release(struct torch_version_py *v);

#endif
