/*
 * pyfile_build_info.c - TensorFlow's tensorflow/python/platform/build_info.py.
 *
 * The file is generated at build time (tensorflow/tensorflow
 * tensorflow/tools/build_info/gen_build_info.py): an OrderedDict in current wheels, a plain dict in old ones, and
 * module-level assignments (is_cuda_build = True, cuda_version_number =
 * '10.0') in the oldest.  Linux writes cuda_version as 'X.Y' or, in hermetic
 * builds, 'X.Y.Z'; Windows wheels write '64_XYZ' (cudart64_112.dll).
 * cudnn_version holds the major only ('8', '64_8').
 */
#include "python/pyfile.h"

#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *bi_str(const struct pyfile_pairs *p, const char *k1, const char *k2)
{
	const struct pyval *v = pyfile_get(p, k1);

	if (!v && k2)
		v = pyfile_get(p, k2);
	return v && (v->type == PYVAL_STR || v->type == PYVAL_NUM) ? v->str : NULL;
}

static int bi_bool(const struct pyfile_pairs *p, const char *key)
{
	const struct pyval *v = pyfile_get(p, key);

	return v && v->type == PYVAL_BOOL ? v->b : -1;
}

/* "64_112" -> "11.2", "64_80" -> "8.0"; other forms are copied. */
static char *bi_norm_cuda(const char *raw)
{
	const char *d = raw;
	size_t n;

	if (strncmp(raw, "64_", 3) != 0)
		return xstrdup(raw);
	d = raw + 3;
	for (n = 0; d[n]; n++)
		if (!isdigit((unsigned char)d[n]))
			return NULL;
	if (n == 3)
		return xasprintf("%c%c.%c", d[0], d[1], d[2]);
	if (n == 2)
		return xasprintf("%c.%c", d[0], d[1]);
	return NULL;
}

static int bi_major(const char *s, int *minor)
{
	char *end;
	long v;

	if (minor)
		*minor = -1;
	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	v = strtol(s, &end, 10);
	if (v < 0 || v > 1000)
		return -1;
	if (minor && *end == '.' && isdigit((unsigned char)end[1])) {
		long m = strtol(end + 1, NULL, 10);

		*minor = m >= 0 && m < 1000 ? (int)m : -1;
	}
	return (int)v;
}

int pyfile_build_info_parse(const char *text, size_t len, struct tf_build_info *b,
			    struct err *e)
{
	struct pyfile_pairs p = { NULL, NULL, 0, 0 };
	const char *cuda, *cudnn, *comp;
	const struct pyval *caps;

	memset(b, 0, sizeof(*b));
	b->cuda_major = b->cuda_minor = b->cudnn_major = -1;
	b->is_cuda_build = b->is_rocm_build = b->is_tensorrt_build = -1;
	pyfile_scan(text, len, &p);

	cuda = bi_str(&p, "cuda_version", "cuda_version_number");
	cudnn = bi_str(&p, "cudnn_version", "cudnn_version_number");
	comp = bi_str(&p, "cpu_compiler", NULL);
	b->is_cuda_build = bi_bool(&p, "is_cuda_build");
	b->is_rocm_build = bi_bool(&p, "is_rocm_build");
	b->is_tensorrt_build = bi_bool(&p, "is_tensorrt_build");
	caps = pyfile_get(&p, "cuda_compute_capabilities");

	if (cuda && *cuda) {
		b->cuda_version = xstrdup(cuda);
		b->cuda = bi_norm_cuda(cuda);
		b->cuda_major = bi_major(b->cuda, &b->cuda_minor);
	}
	if (cudnn && *cudnn) {
		b->cudnn_version = xstrdup(cudnn);
		b->cudnn_major = bi_major(strncmp(cudnn, "64_", 3) == 0 ? cudnn + 3 : cudnn, NULL);
	}
	b->cpu_compiler = xstrdup_or_null(comp);
	if (caps && caps->type == PYVAL_LIST) {
		b->caps = xcalloc(caps->nitems + 1, sizeof(*b->caps));
		for (size_t i = 0; i < caps->nitems; i++)
			b->caps[b->ncaps++] = xstrdup(caps->items[i]);
	} else if (caps && caps->type == PYVAL_STR) {
		/* "3.5,5.2" in some builds: split on commas */
		char *copy = xstrdup(caps->str), *save = NULL;
		size_t cap = 0;

		for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
			XGROW(b->caps, b->ncaps + 1, cap);
			b->caps[b->ncaps++] = xstrdup(t);
		}
		free(copy);
	}

	if (pyfile_get(&p, "is_cuda_build") || cuda || caps) {
		if (memmem(text, len, "OrderedDict", 11))
			b->form = "OrderedDict";
		else if (pyfile_get(&p, "cuda_version_number") ||
			 (pyfile_get(&p, "is_cuda_build") && !memmem(text, len, "{", 1)))
			b->form = "assignments";
		else
			b->form = "dict";
	}
	pyfile_pairs_release(&p);
	if (!b->form)
		return err_set(e, "no build facts (is_cuda_build, cuda_version) in the file");
	return 0;
}

void tf_build_info_release(struct tf_build_info *b)
{
	free(b->cuda_version);
	free(b->cuda);
	free(b->cudnn_version);
	for (size_t i = 0; i < b->ncaps; i++)
		free(b->caps[i]);
	free(b->caps);
	free(b->cpu_compiler);
	memset(b, 0, sizeof(*b));
}
