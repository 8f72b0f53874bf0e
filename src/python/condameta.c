/*
 * condameta.c - a conda environment's CUDA packages from conda-meta/PKG.json;
 * see condameta.h.
 *
 * A conda-meta record names its package ("name", "version", "build"), where
 * it came from ("channel": "https://conda.anaconda.org/conda-forge/linux-64"
 * in older conda, "conda-forge" in newer; else "url"), and every file it
 * installed ("files": ["lib/libcudnn.so.8", ...]).  File names are
 * "<name>-<version>-<build>.json", so packages of no interest are skipped
 * without opening them.
 */
#include "python/condameta.h"
#include "cfg/doc.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A record holds every file path of the package: cudatoolkit's is a few hundred KiB. */
#define CONDAMETA_MAX_BYTES (16u << 20)

static const char *const cuda_names[] = {
	"cudatoolkit", "cudnn", "nccl", "cutensor", "cudatoolkit-dev", NULL,
};
static const char *const cuda_prefixes[] = {
	"cuda-", "libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse",
	"libnvjitlink", "libnvjpeg", "libnpp", "libcufile", "libnvvm", "libcudnn", "libnccl", NULL,
};
static const char *const fw_names[] = {
	"pytorch", "tensorflow", "tensorflow-base", "tensorflow-gpu", "jaxlib", "cupy", "cupy-core", NULL,
};

static int in_list(const char *const *l, const char *s)
{
	for (size_t i = 0; l[i]; i++)
		if (!strcmp(l[i], s))
			return 1;
	return 0;
}

int condameta_is_cuda_pkg(const char *name)
{
	if (in_list(cuda_names, name))
		return 1;
	for (size_t i = 0; cuda_prefixes[i]; i++)
		if (!strncmp(name, cuda_prefixes[i], strlen(cuda_prefixes[i])))
			return strcmp(name, "cuda-version") != 0;	/* a metapackage, no files */
	return 0;
}

/* Could "<name>-<version>-<build>.json" be a package of interest? */
static int wanted_file(const char *fn)
{
	size_t n = strlen(fn);
	char *name;
	int ok = 0;

	if (n < 6 || strcmp(fn + n - 5, ".json") != 0)
		return 0;
	/* the name is everything before the second-to-last '-' */
	name = xstrndup(fn, n - 5);
	for (int dashes = 0; dashes < 2; dashes++) {
		char *d = strrchr(name, '-');

		if (!d)
			break;
		*d = 0;
		if (dashes == 1)
			ok = condameta_is_cuda_pkg(name) || in_list(fw_names, name);
	}
	free(name);
	return ok;
}

/* "https://conda.anaconda.org/conda-forge/linux-64" -> "conda-forge"; "conda-forge" stays. */
static char *channel_name(const char *ch)
{
	const char *s = ch, *e;
	static const char *const subdirs[] = { "/linux-64", "/linux-aarch64", "/linux-ppc64le", "/noarch", NULL };
	char *out;

	if (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7)) {
		s = strstr(s, "://") + 3;
		s = strchr(s, '/');
		if (!s)
			return NULL;
		s++;
	}
	e = s + strlen(s);
	while (e > s && e[-1] == '/')
		e--;
	out = xstrndup(s, (size_t)(e - s));
	for (size_t i = 0; subdirs[i]; i++) {
		size_t l = strlen(subdirs[i]), ol = strlen(out);

		if (ol > l && !strcmp(out + ol - l, subdirs[i]))
			out[ol - l] = 0;
	}
	if (!*out || strlen(out) > 200) {
		free(out);
		return NULL;
	}
	return out;
}

/* From a package URL ".../conda-forge/linux-64/cudnn-8.9.7.29-hcdd5f01_2.conda": the channel part. */
static char *channel_from_url(const char *url)
{
	const char *slash = strrchr(url, '/');
	char *dir, *ch;

	if (!slash)
		return NULL;
	dir = xstrndup(url, (size_t)(slash - url));
	ch = channel_name(dir);
	free(dir);
	return ch;
}

static int sane_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 128)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
		    !strchr("-_.+!", c))
			return 0;
	}
	return 1;
}

static void add_pkg(struct conda_env *ce, const struct doc *d)
{
	const char *name = doc_str(doc_get(d, "name"));
	const char *version = doc_str(doc_get(d, "version"));
	const char *build = doc_str(doc_get(d, "build"));
	const char *channel = doc_str(doc_get(d, "channel"));
	const char *url = doc_str(doc_get(d, "url"));
	const struct doc *files = doc_get(d, "files");
	struct conda_pkg *p;

	if (!sane_name(name) || !sane_name(version) || ce->n >= CONDAMETA_MAX_PKGS)
		return;
	if (!condameta_is_cuda_pkg(name) && !in_list(fw_names, name))
		return;
	XGROW(ce->pkgs, ce->n, ce->cap);
	p = &ce->pkgs[ce->n++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->version = xstrdup(version);
	p->build = sane_name(build) ? xstrdup(build) : NULL;
	p->channel = channel && *channel ? channel_name(channel) : url ? channel_from_url(url) : NULL;
	p->framework = !condameta_is_cuda_pkg(name);
	for (size_t i = 0; i < doc_len(files) && p->nlibs < CONDAMETA_MAX_LIBS; i++) {
		const char *f = doc_str(doc_at(files, i));
		const char *base;

		/* lib/libcudnn.so.8: files directly in the environment's lib/ */
		if (!f || strncmp(f, "lib/", 4) != 0 || (base = strrchr(f, '/')) != f + 3 ||
		    strncmp(base + 1, "lib", 3) != 0 ||
		    !strstr(base + 1, ".so") || !sane_name(base + 1))
			continue;
		XGROW(p->libs, p->nlibs, p->libs_cap);
		p->libs[p->nlibs++] = xstrdup(base + 1);
	}
}

int condameta_parse_record(const char *text, size_t len, struct conda_env *out)
{
	struct doc d;
	int ok;

	if (doc_parse_json(text, len, &d, NULL) < 0) {
		out->skipped++;
		return -1;
	}
	ok = d.type == DOC_MAP;
	if (ok)
		add_pkg(out, &d);
	else
		out->skipped++;
	doc_release(&d);
	return ok ? 0 : -1;
}

int condameta_read(const char *root, const char *prefix, struct conda_env *out, struct err *e)
{
	char *meta = fs_join(prefix, "conda-meta");
	char **names = NULL;
	size_t n = 0;
	struct buf text = BUF_INIT;

	memset(out, 0, sizeof(*out));
	out->prefix = xstrdup(prefix);
	if (fs_list_dir(root, meta, &names, &n, e) < 0) {
		free(meta);
		return -1;
	}
	for (size_t i = 0; i < n && i < 16384; i++) {
		char *path;

		if (!wanted_file(names[i]))
			continue;
		path = fs_join(meta, names[i]);
		if (fs_read_file(root, path, CONDAMETA_MAX_BYTES, &text, NULL) == 0)
			condameta_parse_record(text.s, text.len, out);
		else
			out->skipped++;
		free(path);
	}
	buf_release(&text);
	fs_names_free(names, n);
	free(meta);
	return 0;
}

static void pkg_release(struct conda_pkg *p)
{
	free(p->name);
	free(p->version);
	free(p->build);
	free(p->channel);
	for (size_t i = 0; i < p->nlibs; i++)
		free(p->libs[i]);
	free(p->libs);
}

void condameta_release(struct conda_env *ce)
{
	for (size_t i = 0; i < ce->n; i++)
		pkg_release(&ce->pkgs[i]);
	free(ce->pkgs);
	free(ce->prefix);
	memset(ce, 0, sizeof(*ce));
}

const struct conda_pkg *condameta_owner(const struct conda_env *ce, const char *name)
{
	for (size_t i = 0; name && i < ce->n; i++)
		for (size_t k = 0; k < ce->pkgs[i].nlibs; k++)
			if (!strcmp(ce->pkgs[i].libs[k], name))
				return &ce->pkgs[i];
	return NULL;
}

void condameta_copy(struct conda_env *dst, const struct conda_env *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->prefix = xstrdup_or_null(src->prefix);
	dst->skipped = src->skipped;
	for (size_t i = 0; i < src->n; i++) {
		const struct conda_pkg *s = &src->pkgs[i];
		struct conda_pkg *p;

		XGROW(dst->pkgs, dst->n, dst->cap);
		p = &dst->pkgs[dst->n++];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup(s->name);
		p->version = xstrdup(s->version);
		p->build = xstrdup_or_null(s->build);
		p->channel = xstrdup_or_null(s->channel);
		p->framework = s->framework;
		for (size_t k = 0; k < s->nlibs; k++) {
			XGROW(p->libs, p->nlibs, p->libs_cap);
			p->libs[p->nlibs++] = xstrdup(s->libs[k]);
		}
	}
}
