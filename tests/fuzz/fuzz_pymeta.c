/* fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers) */
/*
 * fuzz_pymeta.c - libFuzzer target for the Python metadata parsers: the same
 * input as dist-info METADATA (and a Requires-Dist query), RECORD,
 * TensorFlow's build_info.py and torch/version.py.  The input is copied into
 * an exact-size buffer without a NUL, so reads past `size` are caught.
 */
#include "python/distinfo.h"
#include "python/pyfile.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct distinfo_meta m = DISTINFO_META_INIT;
	struct distinfo_record r = { NULL, 0, 0 };
	struct tf_build_info b;
	struct torch_version_py v;
	size_t n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	distinfo_parse_metadata(text, size, &m, NULL);
	(void)distinfo_requirement(&m, "nvidia-cudnn-cu12", "and-cuda", &n);
	(void)distinfo_requirement(&m, "torch", NULL, &n);
	distinfo_meta_release(&m);
	distinfo_parse_record(text, size, &r, NULL);
	distinfo_record_release(&r);
	pyfile_build_info_parse(text, size, &b, NULL);
	tf_build_info_release(&b);
	pyfile_torch_version_parse(text, size, &v, NULL);
	torch_version_py_release(&v);
	free(text);
	return 0;
}
