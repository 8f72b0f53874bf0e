/*
 * fw_tf.c - TensorFlow in one site directory: the distribution and its
 * flavour (dist-info), build_info.py, and the libraries TF's DsoLoader would
 * dlopen for its CUDA major (sonames from the knowledge base, after
 * openxla/xla's dso_loader.cc),
 * resolved with TF's own library as the requester: its RPATH/RUNPATH lists
 * $ORIGIN/../nvidia/<x>/lib, which is how the [and-cuda] wheels are found.
 */
#include "probes/frameworks/fw_internal.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "python/pyfile.h"

#include <stdlib.h>
#include <string.h>

/* Distributions that install the `tensorflow` package, the real ones first. */
static const struct {
	const char *dist;
	const char *flavour;	/* NULL: from build_info.py */
} tf_dists[] = {
	{ "tensorflow", NULL },
	{ "tf-nightly", "nightly" },
	{ "tensorflow-cpu", "cpu" },
	{ "tf-nightly-cpu", "cpu" },
	{ "tensorflow-intel", "intel" },
	{ "tensorflow-macos", "macos" },
	{ "tensorflow-rocm", "rocm" },
	{ "tensorflow-aarch64", NULL },
	{ "tensorflow-cpu-aws", "cpu" },
	{ "tensorflow-gpu", NULL },
	{ NULL, NULL },
};

static const enum fw_role tf_cuda_libs[] = {
	FW_ROLE_CUDART, FW_ROLE_CUBLAS, FW_ROLE_CUBLASLT, FW_ROLE_CUFFT, FW_ROLE_CUSOLVER, FW_ROLE_CUSPARSE,
};

static void fw_tf_build_info(struct fw_site *s, struct fw_entry *fw)
{
	struct buf b = BUF_INIT;
	struct tf_build_info bi;
	struct err e = ERR_INIT;
	char *path = fw_site_file(s, "tensorflow/python/platform/build_info.py");

	if (!path) {
		fw->error = xstrdup("tensorflow/python/platform/build_info.py is missing");
		return;
	}
	fw->build_file = path;
	memset(&bi, 0, sizeof(bi));
	if (fs_read_file(s->root, path, 1 << 20, &b, &e) < 0 ||
	    pyfile_build_info_parse(b.s, b.len, &bi, &e) < 0) {
		fw->error = xasprintf("%s: %s", path, e.msg);
		buf_release(&b);
		tf_build_info_release(&bi);
		return;
	}
	buf_release(&b);
	fw->is_cuda_build = bi.is_cuda_build;
	if (bi.is_cuda_build < 0 && bi.cuda)
		fw->is_cuda_build = 1;
	if (bi.is_rocm_build == 1) {
		fw->is_cuda_build = 0;
		free(fw->flavour);
		fw->flavour = xstrdup("rocm");
	}
	fw->cuda_build = xstrdup_or_null(bi.cuda);
	fw->cuda_major = bi.cuda_major;
	if (bi.cuda)
		fw->cuda_version = kb_parse_cuda(bi.cuda);
	fw->cudnn_build = xstrdup_or_null(bi.cudnn_version);
	fw->cudnn_major = bi.cudnn_major;
	if (bi.ncaps) {
		fw->archs = bi.caps;
		fw->narchs = bi.ncaps;
		bi.caps = NULL;
		bi.ncaps = 0;
		fw->archs_source = "build_info.py";
		fw->archs_from = xstrdup(path);
	}
	tf_build_info_release(&bi);
}

void fw_probe_tensorflow(struct fw_site *s, struct frameworks_inventory *inv,
			 const struct pyenv_list *envs, size_t env)
{
	const struct distinfo_dist *d = NULL;
	const char *flavour = NULL;
	struct fw_entry *fw;
	char *pkg = fw_site_file(s, "tensorflow/__init__.py");
	char *req;
	const char *chain[1];

	for (size_t i = 0; tf_dists[i].dist && !d; i++) {
		d = distinfo_find(&s->idx, tf_dists[i].dist);
		flavour = tf_dists[i].flavour;
	}
	if (!d && !pkg)
		return;
	fw = fw_entry_new(inv, envs, env, s->idx.dir, FW_TENSORFLOW);
	fw->dist = d ? xstrdup(d->norm) : NULL;
	fw->version = d ? xstrdup_or_null(d->version) : NULL;
	fw->flavour = xstrdup_or_null(flavour);
	fw_note_wheels(s, fw);
	if (d && !strcmp(d->norm, "tensorflow-gpu") && d->version &&
	    version_cmp_str(d->version, "2.12") >= 0 && !pkg) {
		/* from 2.12 tensorflow-gpu is an empty stub (tensorflow/tensorflow
		 * tensorflow/tools/pip_package/redundant_tensorflow_gpu) */
		free(fw->flavour);
		fw->flavour = xstrdup("stub");
		fw->is_cuda_build = 0;
		fw->stub_why = xasprintf("tensorflow-gpu %s is an empty stub that installs no TensorFlow",
					 d->version);
		free(pkg);
		return;
	}
	free(pkg);
	if (s->kb && fw->version) {
		const struct kb_tf *row = kb_tf_release(s->kb, fw->version);

		if (row) {
			fw->python_range = xstrdup_or_null(row->python);
			fw->cudnn_required = xstrdup_or_null(row->cudnn);
			fw->cudnn_required_source = "TensorFlow's tested build configurations";
		}
	}
	fw_tf_build_info(s, fw);
	if (!fw->flavour && fw->is_cuda_build >= 0)
		fw->flavour = xstrdup(fw->is_cuda_build ? "cuda" : "cpu");
	if (fw->is_cuda_build != 1) {
		fw->needed_fatal = 0;
		return;
	}

	/* TF's DsoLoader lives in libtensorflow_framework; older trees in the pywrap library */
	fw->main_lib = fw_site_file(s, "tensorflow/libtensorflow_framework.so.2");
	if (!fw->main_lib)
		fw->main_lib = fw_site_file(s, "tensorflow/python/_pywrap_tensorflow_internal.so");
	if (fw->main_lib)
		fw_elf_dyn(s->root, fw->main_lib, &fw->main_rpath, &fw->main_runpath, NULL, NULL);
	chain[0] = fw->main_lib;

	fw_resolve_lib(s, fw, "libcuda.so.1", FW_ROLE_DRIVER, 1, 1, chain, fw->main_lib ? 1 : 0);
	for (size_t i = 0; i < sizeof(tf_cuda_libs) / sizeof(tf_cuda_libs[0]) && fw->cuda_major > 0; i++) {
		const char *so = s->kb ? kb_soname(s->kb, fw->cuda_major, fw_role_id(tf_cuda_libs[i])) : NULL;

		if (!so) {
			if (!fw->error)
				fw->error = xasprintf("the knowledge base has no soname for %s of CUDA %d",
						      fw_role_id(tf_cuda_libs[i]), fw->cuda_major);
			continue;
		}
		fw_resolve_lib(s, fw, so, tf_cuda_libs[i], 1, 1, chain, fw->main_lib ? 1 : 0);
	}
	if (fw->cudnn_major > 0) {
		const char *so = s->kb ? kb_soname(s->kb, fw->cudnn_major, "cudnn") : NULL;

		if (so) {
			const struct fw_lib *l = fw_resolve_lib(s, fw, so, FW_ROLE_CUDNN, 1, 1, chain,
								fw->main_lib ? 1 : 0);

			fw_resolve_cudnn_subs(s, fw, l, fw->cudnn_major);
		}
	}
	{
		const char *so = s->kb ? kb_soname(s->kb, fw->cuda_major, "nccl") : NULL;

		if (so)
			fw_resolve_lib(s, fw, so, FW_ROLE_NCCL, 0, 1, chain, fw->main_lib ? 1 : 0);
	}
	/* the [and-cuda] pin of cuDNN names the release the wheel was tested with */
	req = fw_requirement(s, d, fw->cuda_major == 12 ? "nvidia-cudnn-cu12" : "nvidia-cudnn-cu11",
			     "and-cuda");
	if (req && !strncmp(req, "==", 2) && !fw->cudnn_required) {
		fw->cudnn_required = xstrdup(req + 2);
		fw->cudnn_required_source = "the [and-cuda] Requires-Dist pin";
	}
	free(req);
	fw_note_other_cudart(s, fw);
	fw->needed_fatal = 0;
}
