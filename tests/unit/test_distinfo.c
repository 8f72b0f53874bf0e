/* test_distinfo.c - dist-info names (PEP 503), METADATA, Requires-Dist pins, RECORD. */
#include "tap.h"

#include "core/xalloc.h"
#include "python/distinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void test_normalize(void)
{
	char *s;

	s = distinfo_normalize("Tensorflow_CPU");
	CHECK_STR(s, "tensorflow-cpu");
	free(s);
	s = distinfo_normalize("nvidia_cudnn_cu12");
	CHECK_STR(s, "nvidia-cudnn-cu12");
	free(s);
	s = distinfo_normalize("a.-_b");
	CHECK_STR(s, "a-b");
	free(s);
	s = distinfo_normalize("");
	CHECK_STR(s, "");
	free(s);
}

static const char meta[] =
	"Metadata-Version: 2.1\r\n"
	"Name: tensorflow\n"
	"Version: 2.21.0\n"
	"Summary: TensorFlow is an open source machine learning framework for everyone.\n"
	"Requires-Dist: absl-py>=1.0.0\n"
	"Requires-Dist: nvidia-cudnn-cu12==9.3.0.75; extra == \"and-cuda\"\n"
	"Requires-Dist: nvidia-cublas-cu12 (==12.5.3.2) ; extra == 'and-cuda'\n"
	"Requires-Dist: tensorflow-io-gcs-filesystem>=0.23.1; python_version < \"3.12\"\n"
	"Description-Content-Type: text/markdown\n"
	"License: Apache 2.0\n"
	"  continued\n"
	"\n"
	"Name: not-a-header\n";

static void test_metadata(void)
{
	struct distinfo_meta m = DISTINFO_META_INIT;
	const char *r;
	size_t n = 0;

	CHECK_INT(distinfo_parse_metadata(meta, sizeof(meta) - 1, &m, NULL), 0);
	CHECK_STR(m.name, "tensorflow");
	CHECK_STR(m.version, "2.21.0");
	CHECK_INT(m.nrequires, 4);
	r = distinfo_requirement(&m, "nvidia_cudnn_cu12", "and-cuda", &n);
	CHECK(r != NULL);
	if (r)
		CHECK(n == 10 && strncmp(r, "==9.3.0.75", 10) == 0);
	r = distinfo_requirement(&m, "nvidia-cublas-cu12", "and-cuda", &n);
	CHECK(r != NULL);
	if (r)
		CHECK(n == 10 && strncmp(r, "==12.5.3.2", n) == 0);
	CHECK(distinfo_requirement(&m, "nvidia-cudnn-cu12", NULL, NULL) == NULL);
	r = distinfo_requirement(&m, "absl-py", NULL, &n);
	CHECK(r && strncmp(r, ">=1.0.0", n) == 0);
	distinfo_meta_release(&m);
	/* truncated, no newline at all */
	CHECK_INT(distinfo_parse_metadata("Name: x", 7, &m, NULL), 0);
	CHECK_STR(m.name, "x");
	distinfo_meta_release(&m);
}

static void test_record(void)
{
	static const char rec[] =
		"torch/__init__.py,sha256=abc,123\n"
		"\"torch/odd,name.py\",sha256=x,1\n"
		"torch-2.11.0.dist-info/RECORD,,\n"
		"\n"
		"\"unterminated";
	struct distinfo_record r = { NULL, 0, 0 };

	CHECK_INT(distinfo_parse_record(rec, sizeof(rec) - 1, &r, NULL), 0);
	CHECK_INT(r.n, 4);
	if (r.n == 4) {
		CHECK_STR(r.paths[0], "torch/__init__.py");
		CHECK_STR(r.paths[1], "torch/odd,name.py");
		CHECK_STR(r.paths[2], "torch-2.11.0.dist-info/RECORD");
		CHECK_STR(r.paths[3], "unterminated");
	}
	distinfo_record_release(&r);
}

static void test_index(void)
{
	char root[] = "/tmp/gd-distinfo-XXXXXX";
	char p[512];
	struct distinfo_site s;
	const struct distinfo_dist *d;
	struct distinfo_meta m = DISTINFO_META_INIT;
	const char *dirs[] = {
		"site", "site/tensorflow_cpu-2.15.0.dist-info", "site/nvidia_cudnn_cu12-9.1.0.70.dist-info",
		"site/torch-2.11.0+cu130.dist-info", "site/Old_Pkg-1.0-py3.8.egg-info", "site/tensorflow",
	};
	FILE *f;

	if (!mkdtemp(root))
		return;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/site/torch-2.11.0+cu130.dist-info/METADATA", root);
	f = fopen(p, "w");
	if (f) {
		fputs("Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0+cu130\n", f);
		fclose(f);
	}
	CHECK_INT(distinfo_index_site(root, "/site", &s, NULL), 0);
	CHECK_INT(s.n, 4);
	d = distinfo_find(&s, "TensorFlow-CPU");
	CHECK(d != NULL);
	if (d)
		CHECK_STR(d->version, "2.15.0");
	d = distinfo_find(&s, "nvidia-cudnn-cu12");
	CHECK(d && strcmp(d->version, "9.1.0.70") == 0);
	d = distinfo_find(&s, "old-pkg");
	CHECK(d && strcmp(d->version, "1.0-py3.8") == 0);
	CHECK(distinfo_find(&s, "tensorflow") == NULL);
	d = distinfo_find(&s, "torch");
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(d->dir, "/site/torch-2.11.0+cu130.dist-info");
		CHECK_INT(distinfo_read_metadata(root, d, &m, NULL), 0);
		CHECK_STR(m.version, "2.11.0+cu130");
		distinfo_meta_release(&m);
	}
	distinfo_site_release(&s);
	CHECK_INT(distinfo_index_site(root, "/missing", &s, NULL), -1);
	distinfo_site_release(&s);
	snprintf(p, sizeof(p), "/bin/rm -rf '%s'", root);
	if (system(p) != 0)
		CHECK(0);
}

int main(void)
{
	RUN(test_normalize);
	RUN(test_metadata);
	RUN(test_record);
	RUN(test_index);
	return tap_done();
}
