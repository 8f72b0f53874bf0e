/*
 * libscan_family.c - the libraries the libraries layer inventories, and how
 * their file names read.
 *
 * Sonames asked of the loader come from TensorFlow's DSO loader
 * (openxla/xla xla/tsl/platform/default/dso_loader.cc, GetDsoHandle) and
 * PyTorch's build_cuda.sh, per CUDA major, and from NVIDIA's cuDNN 9
 * support matrix (the sub-libraries the cuDNN 9 shim loads).  Asking for a soname that exists nowhere costs
 * one failed search and finds nothing, so the older majors are listed too.
 */
#include "probes/libraries/libscan.h"
#include "core/version.h"

#include <ctype.h>
#include <string.h>

static const struct lib_family families[] = {
	{ "cudart", "cuda_runtime", "cuda_cudart",
	  { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so.10.1", NULL } },
	{ "cublas", "cublas", "libcublas",
	  { "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", NULL } },
	{ "cublasLt", "cublas", "libcublas",
	  { "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", NULL } },
	{ "cufft", "cufft", "libcufft",
	  { "libcufft.so.12", "libcufft.so.11", "libcufft.so.10", NULL } },
	{ "cusolver", "cusolver", "libcusolver",
	  { "libcusolver.so.12", "libcusolver.so.11", NULL } },
	{ "cusparse", "cusparse", "libcusparse",
	  { "libcusparse.so.12", "libcusparse.so.11", NULL } },
	{ "curand", "curand", "libcurand", { "libcurand.so.10", NULL } },
	{ "nvrtc", "cuda_nvrtc", "cuda_nvrtc",
	  { "libnvrtc.so.13", "libnvrtc.so.12", NULL } },
	{ "nvJitLink", "nvjitlink", "libnvjitlink",
	  { "libnvJitLink.so.13", "libnvJitLink.so.12", NULL } },
	{ "cudnn", "cudnn", NULL, { "libcudnn.so.9", "libcudnn.so.8", NULL } },
	/* cuDNN 9: the shim dlopens these (NVIDIA's cuDNN 9 support matrix) */
	{ "cudnn_graph", "cudnn", NULL, { "libcudnn_graph.so.9", NULL } },
	{ "cudnn_ops", "cudnn", NULL, { "libcudnn_ops.so.9", NULL } },
	{ "cudnn_cnn", "cudnn", NULL, { "libcudnn_cnn.so.9", NULL } },
	{ "cudnn_adv", "cudnn", NULL, { "libcudnn_adv.so.9", NULL } },
	{ "cudnn_engines_precompiled", "cudnn", NULL, { "libcudnn_engines_precompiled.so.9", NULL } },
	{ "cudnn_engines_runtime_compiled", "cudnn", NULL,
	  { "libcudnn_engines_runtime_compiled.so.9", NULL } },
	{ "cudnn_engines_tensor_ir", "cudnn", NULL, { "libcudnn_engines_tensor_ir.so.9", NULL } },
	{ "cudnn_heuristic", "cudnn", NULL, { "libcudnn_heuristic.so.9", NULL } },
	/* cuDNN 8's split libraries: inventoried, not judged for completeness */
	{ "cudnn_ops_infer", "cudnn", NULL, { NULL } },
	{ "cudnn_ops_train", "cudnn", NULL, { NULL } },
	{ "cudnn_cnn_infer", "cudnn", NULL, { NULL } },
	{ "cudnn_cnn_train", "cudnn", NULL, { NULL } },
	{ "cudnn_adv_infer", "cudnn", NULL, { NULL } },
	{ "cudnn_adv_train", "cudnn", NULL, { NULL } },
	{ "nccl", "nccl", NULL, { "libnccl.so.2", NULL } },
	{ "nvinfer", "tensorrt", NULL, { "libnvinfer.so.10", "libnvinfer.so.8", NULL } },
};

const struct lib_family *libscan_families(size_t *n)
{
	*n = sizeof(families) / sizeof(families[0]);
	return families;
}

const struct lib_family *libscan_family(const char *name)
{
	size_t n;
	const struct lib_family *f = libscan_families(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

const struct lib_family *libscan_parse_name(const char *name, const char **suffix)
{
	const char *so;
	size_t n, len;
	const struct lib_family *f = libscan_families(&n);

	if (strncmp(name, "lib", 3) != 0)
		return NULL;
	so = strstr(name + 3, ".so.");
	if (!so || !isdigit((unsigned char)so[4]))
		return NULL;
	len = (size_t)(so - (name + 3));
	for (size_t i = 0; i < n; i++) {
		if (strlen(f[i].name) == len && strncmp(f[i].name, name + 3, len) == 0) {
			/* only digits and dots after ".so.": skips "libx.so.9.bak" */
			for (const char *p = so + 4; *p; p++)
				if (!isdigit((unsigned char)*p) && *p != '.')
					return NULL;
			if (suffix)
				*suffix = so + 4;
			return &f[i];
		}
	}
	return NULL;
}

int libscan_is_cudnn_sub(const char *family)
{
	return strncmp(family, "cudnn_", 6) == 0;
}

size_t libscan_cudnn9_subs(const char *ver, const char **out, size_t max)
{
	static const char *const base[] = {
		"graph", "ops", "cnn", "adv", "engines_precompiled",
		"engines_runtime_compiled", "heuristic",
	};
	struct version v, v921;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]) && n < max; i++)
		out[n++] = base[i];
	/* libcudnn_engines_tensor_ir.so.9 exists from 9.21 on (XLA's cuDNN BUILD
	 * template: if_version_equal_or_greater_than(..., "9.21.0", ...)) */
	version_parse("9.21.0", &v921);
	if (ver && version_parse(ver, &v) == 0 && version_cmp(&v, &v921) >= 0 && n < max)
		out[n++] = "engines_tensor_ir";
	return n;
}
