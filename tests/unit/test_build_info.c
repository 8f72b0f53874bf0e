/* test_build_info.c - TF build_info.py and torch/version.py parsing, every historical form. */
#include "tap.h"

#include "python/pyfile.h"

#include <string.h>

/* TF 2.20 Linux wheel (facts.md §1.3): hermetic X.Y.Z, OrderedDict. */
static const char tf220[] =
	"# Copyright 2020 The TensorFlow Authors. All Rights Reserved.\n"
	"\"\"\"Auto-generated module providing information about the build.\"\"\"\n"
	"import collections\n\n"
	"build_info = collections.OrderedDict([('cpu_compiler', 'clang 18'), "
	"('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), "
	"('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), "
	"('is_rocm_build', False), ('is_tensorrt_build', False)])\n";

/* TF 2.14-like, multi-line OrderedDict, X.Y. */
static const char tf214[] =
	"import collections\n"
	"build_info = collections.OrderedDict(\n"
	"    [\n"
	"        (\"cpu_compiler\", \"/usr/lib/llvm-16/bin/clang\"),  # compiler\n"
	"        (\"cuda_compute_capabilities\", [\"sm_35\", \"sm_50\", \"sm_60\", \"sm_70\",\n"
	"                                       \"sm_75\", \"compute_80\"]),\n"
	"        (\"cuda_version\", \"11.8\"),\n"
	"        (\"cudnn_version\", \"8\"),\n"
	"        (\"is_cuda_build\", True),\n"
	"        (\"is_rocm_build\", False),\n"
	"        (\"is_tensorrt_build\", True),\n"
	"    ]\n)\n";

/* Windows 2.9 wheel: dict form, 64_XYZ. */
static const char tfwin[] =
	"from __future__ import absolute_import\n"
	"from __future__ import division\n"
	"build_info = {'cuda_version': '64_112', 'cudnn_version': '64_8', "
	"'cudart_dll_name': 'cudart64_112.dll', 'cudnn_dll_name': 'cudnn64_8.dll', "
	"'is_cuda_build': True, 'is_rocm_build': False, 'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', "
	"'nvcuda_dll_name': 'nvcuda.dll'}\n";

/* CPU-only build (tensorflow-cpu): no CUDA keys. */
static const char tfcpu[] =
	"import collections\n"
	"build_info = collections.OrderedDict([('cpu_compiler', 'clang 18'), ('is_cuda_build', False), "
	"('is_rocm_build', False), ('is_tensorrt_build', False)])\n";

/* Oldest form: module-level assignments. */
static const char tfold[] =
	"is_rocm_build = False\n"
	"is_cuda_build = True\n"
	"cuda_version_number = '10.0'\n"
	"cudnn_version_number = '7'\n";

static void test_ordereddict_hermetic(void)
{
	struct tf_build_info b;

	CHECK_INT(pyfile_build_info_parse(tf220, sizeof(tf220) - 1, &b, NULL), 0);
	CHECK_STR(b.form, "OrderedDict");
	CHECK_STR(b.cuda_version, "12.5.1");
	CHECK_STR(b.cuda, "12.5.1");
	CHECK_INT(b.cuda_major, 12);
	CHECK_INT(b.cuda_minor, 5);
	CHECK_INT(b.cudnn_major, 9);
	CHECK_INT(b.ncaps, 5);
	if (b.ncaps == 5) {
		CHECK_STR(b.caps[0], "sm_60");
		CHECK_STR(b.caps[4], "compute_90");
	}
	CHECK_INT(b.is_cuda_build, 1);
	CHECK_INT(b.is_rocm_build, 0);
	CHECK_INT(b.is_tensorrt_build, 0);
	CHECK_STR(b.cpu_compiler, "clang 18");
	tf_build_info_release(&b);
}

static void test_ordereddict_multiline(void)
{
	struct tf_build_info b;

	CHECK_INT(pyfile_build_info_parse(tf214, sizeof(tf214) - 1, &b, NULL), 0);
	CHECK_STR(b.cuda, "11.8");
	CHECK_INT(b.cuda_major, 11);
	CHECK_INT(b.cuda_minor, 8);
	CHECK_INT(b.cudnn_major, 8);
	CHECK_INT(b.ncaps, 6);
	CHECK_INT(b.is_tensorrt_build, 1);
	CHECK_STR(b.cpu_compiler, "/usr/lib/llvm-16/bin/clang");
	tf_build_info_release(&b);
}

static void test_dict_windows(void)
{
	struct tf_build_info b;

	CHECK_INT(pyfile_build_info_parse(tfwin, sizeof(tfwin) - 1, &b, NULL), 0);
	CHECK_STR(b.form, "dict");
	CHECK_STR(b.cuda_version, "64_112");
	CHECK_STR(b.cuda, "11.2");
	CHECK_INT(b.cuda_major, 11);
	CHECK_INT(b.cuda_minor, 2);
	CHECK_INT(b.cudnn_major, 8);
	CHECK_INT(b.ncaps, 0);
	CHECK_INT(b.is_cuda_build, 1);
	CHECK_INT(b.is_tensorrt_build, -1);
	tf_build_info_release(&b);
}

static void test_cpu_build(void)
{
	struct tf_build_info b;

	CHECK_INT(pyfile_build_info_parse(tfcpu, sizeof(tfcpu) - 1, &b, NULL), 0);
	CHECK_INT(b.is_cuda_build, 0);
	CHECK(b.cuda == NULL);
	CHECK_INT(b.cuda_major, -1);
	CHECK_INT(b.cudnn_major, -1);
	tf_build_info_release(&b);
}

static void test_assignments(void)
{
	struct tf_build_info b;

	CHECK_INT(pyfile_build_info_parse(tfold, sizeof(tfold) - 1, &b, NULL), 0);
	CHECK_STR(b.form, "assignments");
	CHECK_STR(b.cuda, "10.0");
	CHECK_INT(b.cuda_major, 10);
	CHECK_INT(b.cudnn_major, 7);
	tf_build_info_release(&b);
}

static void test_garbage(void)
{
	struct tf_build_info b;
	struct err e = ERR_INIT;
	static const char junk[] = "('cuda_version', \n ('x'  [ \"unterminated";

	CHECK_INT(pyfile_build_info_parse("", 0, &b, &e), -1);
	CHECK(e.msg[0] != 0);
	tf_build_info_release(&b);
	CHECK_INT(pyfile_build_info_parse(junk, sizeof(junk) - 1, &b, NULL), -1);
	tf_build_info_release(&b);
	/* not NUL-terminated: parse only a prefix */
	CHECK_INT(pyfile_build_info_parse(tf220, 40, &b, NULL), -1);
	tf_build_info_release(&b);
}

/* torch 2.7.1+cu126 (facts.md §5.3), verbatim shape. */
static const char tv_annot[] =
	"from typing import Optional\n\n"
	"__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
	"__version__ = '2.7.1+cu126'\n"
	"debug = False\n"
	"cuda: Optional[str] = '12.6'\n"
	"git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\n"
	"hip: Optional[str] = None\n"
	"xpu: Optional[str] = None\n";

static const char tv_cpu[] =
	"__version__ = '2.3.1+cpu'\n"
	"debug = False\n"
	"cuda = None\n"
	"git_version = '63d5e9221bedd1546b7d364b5ce4171547db12a9'\n"
	"hip = None\n";

static const char tv_old[] =
	"__version__ = '1.13.1+cu117'\n"
	"debug = False\n"
	"cuda = '11.7'\n";

static void test_torch_version(void)
{
	struct torch_version_py v;

	CHECK_INT(pyfile_torch_version_parse(tv_annot, sizeof(tv_annot) - 1, &v, NULL), 0);
	CHECK_STR(v.version, "2.7.1+cu126");
	CHECK_STR(v.cuda, "12.6");
	CHECK_INT(v.cuda_known, 1);
	CHECK(v.hip == NULL);
	CHECK_INT(v.debug, 0);
	CHECK_STR(v.git_version, "e2d141dbde55c2a4370fac5165b0561b6af4798b");
	torch_version_py_release(&v);

	CHECK_INT(pyfile_torch_version_parse(tv_cpu, sizeof(tv_cpu) - 1, &v, NULL), 0);
	CHECK_STR(v.version, "2.3.1+cpu");
	CHECK(v.cuda == NULL);
	CHECK_INT(v.cuda_known, 1);
	torch_version_py_release(&v);

	CHECK_INT(pyfile_torch_version_parse(tv_old, sizeof(tv_old) - 1, &v, NULL), 0);
	CHECK_STR(v.cuda, "11.7");
	torch_version_py_release(&v);

	CHECK_INT(pyfile_torch_version_parse("x = 1\n", 6, &v, NULL), -1);
	torch_version_py_release(&v);
}

int main(void)
{
	RUN(test_ordereddict_hermetic);
	RUN(test_ordereddict_multiline);
	RUN(test_dict_windows);
	RUN(test_cpu_build);
	RUN(test_assignments);
	RUN(test_garbage);
	RUN(test_torch_version);
	return tap_done();
}
