/* test_condameta.c - conda-meta records: which packages, channels, library files; hostile records. */
#include "tap.h"

#include "core/xalloc.h"
#include "python/condameta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/env/conda-meta/%s", root, rel);
	FILE *f = fopen(p, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static const struct conda_pkg *pkg(const struct conda_env *ce, const char *name)
{
	for (size_t i = 0; i < ce->n; i++)
		if (!strcmp(ce->pkgs[i].name, name))
			return &ce->pkgs[i];
	return NULL;
}

static void test_names(void)
{
	CHECK(condameta_is_cuda_pkg("cudatoolkit"));
	CHECK(condameta_is_cuda_pkg("cudnn"));
	CHECK(condameta_is_cuda_pkg("cuda-cudart"));
	CHECK(condameta_is_cuda_pkg("libcublas"));
	CHECK(condameta_is_cuda_pkg("libnvjitlink"));
	CHECK(!condameta_is_cuda_pkg("cuda-version"));	/* a metapackage */
	CHECK(!condameta_is_cuda_pkg("cupy"));
	CHECK(!condameta_is_cuda_pkg("python"));
	CHECK(!condameta_is_cuda_pkg("libcurl"));
}

static void test_records(void)
{
	struct conda_env ce;
	const struct conda_pkg *p;
	char *d;

	snprintf(root, sizeof(root), "/tmp/gd-condameta-XXXXXX");
	if (!mkdtemp(root))
		SKIP("mkdtemp failed");
	d = xasprintf("%s/env/conda-meta", root);
	d[strlen(d) - strlen("/conda-meta")] = 0;
	mkdir(d, 0755);
	free(d);
	d = xasprintf("%s/env/conda-meta", root);
	mkdir(d, 0755);
	free(d);
	/* conda < 23: the channel URL with its subdir */
	put("cudnn-8.9.7.29-hcdd5f01_2.json",
	    "{\"name\": \"cudnn\", \"version\": \"8.9.7.29\", \"build\": \"hcdd5f01_2\",\n"
	    " \"channel\": \"https://conda.anaconda.org/conda-forge/linux-64\",\n"
	    " \"files\": [\"include/cudnn.h\", \"lib/libcudnn.so\", \"lib/libcudnn.so.8\",\n"
	    "           \"lib/libcudnn.so.8.9.7\", \"lib/stubs/libcuda.so\", \"lib/../x.so\"]}");
	/* newer conda: the bare channel name; a label channel from a URL */
	put("libcublas-12.4.5.8-0.json",
	    "{\"name\": \"libcublas\", \"version\": \"12.4.5.8\", \"build\": \"0\", \"channel\": \"nvidia\","
	    " \"files\": [\"lib/libcublas.so.12\"]}");
	put("cuda-cudart-12.1.105-0.json",
	    "{\"name\": \"cuda-cudart\", \"version\": \"12.1.105\", \"build\": \"0\","
	    " \"url\": \"https://conda.anaconda.org/nvidia/label/cuda-12.1.0/linux-64/cuda-cudart-12.1.105-0.tar.bz2\","
	    " \"files\": [\"lib/libcudart.so.12\"]}");
	put("pytorch-2.3.0-py3.11_cuda12.1_cudnn8.9.2_0.json",
	    "{\"name\": \"pytorch\", \"version\": \"2.3.0\", \"channel\": \"pytorch\", \"files\": []}");
	/* skipped by name, without being opened */
	put("python-3.11.8-hab00c5b_0_cpython.json", "not json at all");
	/* hostile */
	put("nccl-2.21.5.1-0.json", "{\"name\": \"nccl\", \"files\": [");
	put("cuda-nvrtc-12.4.127-0.json", "[1, 2, 3]");
	put("libcufft-11.0.0-0.json", "{\"name\": \"libcufft x; rm\", \"version\": \"1\"}");
	CHECK_INT(condameta_read(root, "/env", &ce, NULL), 0);
	p = pkg(&ce, "cudnn");
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->channel, "conda-forge");
		CHECK_STR(p->build, "hcdd5f01_2");
		CHECK_INT(p->nlibs, 3);
		CHECK(!p->framework);
	}
	p = pkg(&ce, "libcublas");
	CHECK(p && p->channel && !strcmp(p->channel, "nvidia"));
	p = pkg(&ce, "cuda-cudart");
	CHECK(p && p->channel && !strcmp(p->channel, "nvidia/label/cuda-12.1.0"));
	p = pkg(&ce, "pytorch");
	CHECK(p && p->framework);
	CHECK(pkg(&ce, "python") == NULL);
	CHECK(pkg(&ce, "libcufft x; rm") == NULL);
	CHECK_INT(ce.skipped, 2);
	p = condameta_owner(&ce, "libcudnn.so.8");
	CHECK(p && !strcmp(p->name, "cudnn"));
	CHECK(condameta_owner(&ce, "libcuda.so") == NULL);
	CHECK(condameta_owner(&ce, "x.so") == NULL);
	{
		struct conda_env cp;

		condameta_copy(&cp, &ce);
		CHECK_INT(cp.n, ce.n);
		CHECK(condameta_owner(&cp, "libcublas.so.12") != NULL);
		condameta_release(&cp);
	}
	condameta_release(&ce);
	CHECK_INT(condameta_read(root, "/no-such-env", &ce, NULL), -1);
	condameta_release(&ce);
	{
		char *cmd = xasprintf("rm -rf '%s'", root);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", root);
		free(cmd);
	}
}

int main(void)
{
	RUN(test_names);
	RUN(test_records);
	return tap_done();
}
