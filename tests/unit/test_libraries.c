/*
 * test_libraries.c - the libraries probe's parsers: file names, version
 * files (version.json, version.txt, cudnn_version.h, dist-info names) and
 * the cuDNN 9 sub-library list.
 */
#include "tap.h"

#include "loader/ldso.h"
#include "probes/libraries/libscan.h"

#include <stdlib.h>

static void test_parse_name(void)
{
	const char *suffix = NULL;
	const struct lib_family *f;

	f = libscan_parse_name("libcudart.so.13.0.96", &suffix);
	CHECK(f != NULL);
	CHECK_STR(f ? f->name : NULL, "cudart");
	CHECK_STR(suffix, "13.0.96");
	f = libscan_parse_name("libcublasLt.so.13", &suffix);
	CHECK_STR(f ? f->name : NULL, "cublasLt");
	CHECK_STR(suffix, "13");
	f = libscan_parse_name("libcudnn_engines_runtime_compiled.so.9", NULL);
	CHECK_STR(f ? f->name : NULL, "cudnn_engines_runtime_compiled");
	/* link-time names, other libraries, junk suffixes */
	CHECK(libscan_parse_name("libcudart.so", NULL) == NULL);
	CHECK(libscan_parse_name("libcudart_static.a", NULL) == NULL);
	CHECK(libscan_parse_name("libnvrtc-builtins.so.13.0", NULL) == NULL);
	CHECK(libscan_parse_name("libcudnn.so.9.bak", NULL) == NULL);
	CHECK(libscan_parse_name("libcudnnx.so.9", NULL) == NULL);
	CHECK(libscan_parse_name("cudart.so.13", NULL) == NULL);
	CHECK(libscan_parse_name("libcudart.so.", NULL) == NULL);
}

static void test_version_from_suffix(void)
{
	char *v = libversion_from_suffix("13.0.96");

	CHECK_STR(v, "13.0.96");
	free(v);
	CHECK(libversion_from_suffix("13") == NULL);
	CHECK(libversion_from_suffix("") == NULL);
	CHECK(libversion_from_suffix(NULL) == NULL);
	v = libversion_from_suffix("9.14.0");
	CHECK_STR(v, "9.14.0");
	free(v);
}

static void test_cudnn_header(void)
{
	char *v = libversion_parse_cudnn_header(
		"#ifndef CUDNN_VERSION_H_\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n"
		"#define CUDNN_PATCHLEVEL 0\n"
		"#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n");

	CHECK_STR(v, "9.19.0");
	free(v);
	v = libversion_parse_cudnn_header("#define  CUDNN_MAJOR\t8\n#define CUDNN_MINOR 9\n");
	CHECK_STR(v, "8.9");
	free(v);
	/* CUDNN_MAJOR_X is not CUDNN_MAJOR; no number is no version */
	CHECK(libversion_parse_cudnn_header("#define CUDNN_MAJOR_X 9\n#define CUDNN_MINOR 1\n") == NULL);
	CHECK(libversion_parse_cudnn_header("#define CUDNN_MAJOR x\n#define CUDNN_MINOR 1\n") == NULL);
	CHECK(libversion_parse_cudnn_header("") == NULL);
}

static void test_version_json(void)
{
	const char *j = "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"11.8.0\"\n   },\n"
			"   \"cuda_cudart\" : {\n      \"name\" : \"CUDA Runtime (cudart)\",\n"
			"      \"version\" : \"11.8.89\"\n   },\n"
			"   \"libcublas\" : { \"name\" : \"CUDA cuBLAS\", \"version\" : \"11.11.3.6\" },\n"
			"   \"libnothing\" : { \"name\" : \"x\" },\n"
			"   \"libcufft\" : { \"version\" : \"10.9.0.58\" }\n}\n";
	char *v;

	v = libversion_parse_version_json(j, "cuda");
	CHECK_STR(v, "11.8.0");
	free(v);
	v = libversion_parse_version_json(j, "cuda_cudart");
	CHECK_STR(v, "11.8.89");
	free(v);
	v = libversion_parse_version_json(j, "libcublas");
	CHECK_STR(v, "11.11.3.6");
	free(v);
	/* a key without "version" must not borrow the next object's */
	CHECK(libversion_parse_version_json(j, "libnothing") == NULL);
	CHECK(libversion_parse_version_json(j, "libcurand") == NULL);
	CHECK(libversion_parse_version_json("{\"cuda\": {\"version\": \"", "cuda") == NULL);
}

static void test_version_txt(void)
{
	char *v = libversion_parse_version_txt("CUDA Version 11.0.228\n");

	CHECK_STR(v, "11.0.228");
	free(v);
	CHECK(libversion_parse_version_txt("nothing here") == NULL);
	CHECK(libversion_parse_version_txt("CUDA Version x") == NULL);
}

static void test_dist_info(void)
{
	char *pkg = NULL;
	char *v = libversion_parse_dist_info("nvidia_cudnn_cu13-9.19.0.56.dist-info", "cudnn", &pkg);

	CHECK_STR(v, "9.19.0.56");
	CHECK_STR(pkg, "nvidia-cudnn-cu13");
	free(v);
	free(pkg);
	pkg = NULL;
	v = libversion_parse_dist_info("nvidia_cuda_runtime-13.0.96.dist-info", "cuda_runtime", &pkg);
	CHECK_STR(v, "13.0.96");
	CHECK_STR(pkg, "nvidia-cuda-runtime");
	free(v);
	free(pkg);
	/* cusparselt is not cusparse; a different stem; not a dist-info */
	CHECK(libversion_parse_dist_info("nvidia_cusparselt_cu13-0.8.0.dist-info", "cusparse", NULL) == NULL);
	CHECK(libversion_parse_dist_info("nvidia_cublas-13.1.0.3.dist-info", "cudnn", NULL) == NULL);
	CHECK(libversion_parse_dist_info("nvidia_cublas-13.1.0.3.egg-info", "cublas", NULL) == NULL);
	CHECK(libversion_parse_dist_info("nvidia_cublas_cu-1.dist-info", "cublas", NULL) == NULL);
	v = libversion_parse_dist_info("nvidia_cublas_cu12-12.4.5.8.dist-info", "cublas", NULL);
	CHECK_STR(v, "12.4.5.8");
	free(v);
}

static void test_cudnn9_subs(void)
{
	const char *subs[16];
	size_t n = libscan_cudnn9_subs("9.19.0", subs, 16);

	CHECK_INT(n, 7);
	CHECK_STR(subs[0], "graph");
	n = libscan_cudnn9_subs("9.21.0", subs, 16);
	CHECK_INT(n, 8);
	CHECK_STR(subs[7], "engines_tensor_ir");
	n = libscan_cudnn9_subs(NULL, subs, 16);
	CHECK_INT(n, 7);
	CHECK(libscan_is_cudnn_sub("cudnn_graph"));
	CHECK(!libscan_is_cudnn_sub("cudnn"));
}

static void test_family_table(void)
{
	size_t n;
	const struct lib_family *f = libscan_families(&n);

	CHECK(n > 20);
	for (size_t i = 0; i < n; i++) {
		CHECK(f[i].name && f[i].wheel);
		CHECK(libscan_family(f[i].name) == &f[i]);
	}
	CHECK(libscan_family("nosuch") == NULL);
	CHECK(ldso_source_id(LDSO_NONE) == NULL);
	CHECK_STR(ldso_source_id(LDSO_CACHE), "cache");
	CHECK_STR(ldso_source_id(LDSO_LD_LIBRARY_PATH), "ld-library-path");
}

int main(void)
{
	RUN(test_parse_name);
	RUN(test_version_from_suffix);
	RUN(test_cudnn_header);
	RUN(test_version_json);
	RUN(test_version_txt);
	RUN(test_dist_info);
	RUN(test_cudnn9_subs);
	RUN(test_family_table);
	return tap_done();
}
