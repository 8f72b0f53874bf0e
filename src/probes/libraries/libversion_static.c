/*
 * libversion_static.c - a copy's version from files next to it, never by
 * loading it.
 *
 * Sources, first hit wins:
 *   file-name        the real file's name, libcudart.so.13.0.96 -> 13.0.96
 *                    (only when it says more than the soname does)
 *   dist-info        the owning wheel: <site>/nvidia_cudnn_cu13-9.19.0.56.dist-info
 *                    (also <toolkit>/dist-info, for toolkits installed from wheels)
 *   version.json     a toolkit's per-component versions ("cuda_cudart", "libcublas" ...)
 *   cudnn_version.h  CUDNN_MAJOR/MINOR/PATCHLEVEL in include/ beside lib/
 *                    (/usr/include[/ARCH] for the system directories), when
 *                    its major is the library's
 *   version.txt      an old toolkit's "CUDA Version X.Y.Z" (for cudart only)
 * The live probe may later replace it with the library's own answer.
 */
#include "probes/libraries/libscan.h"

#include "core/ctx.h"
#include "core/fs.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *libversion_from_suffix(const char *suffix)
{
	const char *dot;

	if (!suffix || !isdigit((unsigned char)suffix[0]))
		return NULL;
	dot = strchr(suffix, '.');
	if (!dot || !isdigit((unsigned char)dot[1]))
		return NULL;
	return xstrdup(suffix);
}

static long header_define(const char *text, const char *name)
{
	size_t nl = strlen(name);
	const char *p = text;

	while ((p = strstr(p, "#define")) != NULL) {
		const char *q = p + 7;

		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, name, nl) == 0 && (q[nl] == ' ' || q[nl] == '\t')) {
			char *end;
			long v = strtol(q + nl, &end, 10);

			if (end != q + nl)
				return v;
		}
		p += 7;
	}
	return -1;
}

char *libversion_parse_cudnn_header(const char *text)
{
	long ma = header_define(text, "CUDNN_MAJOR");
	long mi = header_define(text, "CUDNN_MINOR");
	long pa = header_define(text, "CUDNN_PATCHLEVEL");

	if (ma < 0 || mi < 0)
		return NULL;
	if (pa < 0)
		return xasprintf("%ld.%ld", ma, mi);
	return xasprintf("%ld.%ld.%ld", ma, mi, pa);
}

char *libversion_parse_version_json(const char *text, const char *key)
{
	struct buf k = BUF_INIT;
	const char *p, *close, *v, *q1, *q2;

	buf_printf(&k, "\"%s\"", key);
	p = strstr(text, k.s);
	buf_release(&k);
	if (!p)
		return NULL;
	close = strchr(p, '}');
	v = strstr(p, "\"version\"");
	if (!v || (close && v > close))
		return NULL;
	v += 9;
	while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')
		v++;
	if (*v != ':')
		return NULL;
	q1 = strchr(v, '"');
	if (!q1 || (close && q1 > close))
		return NULL;
	q2 = strchr(q1 + 1, '"');
	if (!q2 || q2 == q1 + 1 || q2 - q1 > 64)
		return NULL;
	return xstrndup(q1 + 1, (size_t)(q2 - q1 - 1));
}

char *libversion_parse_version_txt(const char *text)
{
	const char *p = strstr(text, "CUDA Version ");
	size_t n = 0;

	if (!p)
		return NULL;
	p += 13;
	while (isdigit((unsigned char)p[n]) || p[n] == '.')
		n++;
	return n ? xstrndup(p, n) : NULL;
}

char *libversion_parse_dist_info(const char *name, const char *stem, char **pkg)
{
	size_t sl = strlen(stem), nl = strlen(name);
	const char *p, *dash;
	const char *tail = ".dist-info";
	size_t tl = strlen(tail);

	if (strncmp(name, "nvidia_", 7) != 0 || strncmp(name + 7, stem, sl) != 0)
		return NULL;
	if (nl <= tl || strcmp(name + nl - tl, tail) != 0)
		return NULL;
	p = name + 7 + sl;
	/* optional _cuNN suffix of the CUDA 11/12 (and cudnn/nccl cu13) wheels */
	if (strncmp(p, "_cu", 3) == 0) {
		p += 3;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '-' || !isdigit((unsigned char)p[1]))
		return NULL;
	dash = p;
	if (pkg) {
		char *s = xstrndup(name, (size_t)(dash - name));

		for (char *c = s; *c; c++)
			if (*c == '_')
				*c = '-';
		*pkg = s;
	}
	return xstrndup(dash + 1, (size_t)(name + nl - tl - (dash + 1)));
}

/* Look for the family's dist-info in dir; version + "pkg ver" owner. */
static int from_dist_info(const struct gd_ctx *ctx, const char *dir, const char *stem,
			  char **version, char **owner)
{
	char **names = NULL;
	size_t n = 0;
	int found = 0;

	if (libscan_list(ctx, dir, &names, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n && !found; i++) {
		char *pkg = NULL;
		char *v = libversion_parse_dist_info(names[i], stem, &pkg);

		if (v) {
			*version = v;
			*owner = xasprintf("%s %s", pkg, v);
			found = 1;
		}
		free(pkg);
	}
	fs_names_free(names, n);
	return found;
}

static char *read_small(const struct gd_ctx *ctx, const char *path)
{
	struct buf b = BUF_INIT;

	if (libscan_read(ctx, path, 256 * 1024, &b) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static char *cudnn_header_near(const struct gd_ctx *ctx, const struct lib_copy *c)
{
	char *parent = fs_join(c->dir, "..");
	char *inc = fs_join(parent, "include/cudnn_version.h");
	const char *sys[] = { "/usr/include/cudnn_version.h",
			      "/usr/include/x86_64-linux-gnu/cudnn_version_v9.h",
			      "/usr/include/x86_64-linux-gnu/cudnn_version_v8.h",
			      "/usr/include/aarch64-linux-gnu/cudnn_version_v9.h", NULL };
	char *text = read_small(ctx, inc), *ver = NULL;
	struct version lv, hv;

	free(inc);
	free(parent);
	if (!text && strcmp(c->origin, "system") == 0)
		for (int i = 0; sys[i] && !text; i++)
			text = read_small(ctx, sys[i]);
	if (text)
		ver = libversion_parse_cudnn_header(text);
	free(text);
	/* the header must be of the library's major (libcudnn.so.9 <-> 9.x) */
	if (ver && c->soname) {
		const char *so = strstr(c->soname, ".so.");

		if (!so || version_parse(so + 4, &lv) < 0 || version_parse(ver, &hv) < 0 ||
		    lv.part[0] != hv.part[0]) {
			free(ver);
			ver = NULL;
		}
	}
	return ver;
}

void libversion_toolkit(const struct gd_ctx *ctx, const char *dir, char **version,
			const char **source)
{
	char *p = fs_join(dir, "version.json");
	char *text = read_small(ctx, p), *owner = NULL;
	const char *base;

	free(p);
	*version = NULL;
	*source = NULL;
	if (text) {
		*version = libversion_parse_version_json(text, "cuda");
		free(text);
		if (*version) {
			*source = "version.json";
			return;
		}
	}
	p = fs_join(dir, "version.txt");
	text = read_small(ctx, p);
	free(p);
	if (text) {
		*version = libversion_parse_version_txt(text);
		free(text);
		if (*version) {
			*source = "version.txt";
			return;
		}
	}
	p = fs_join(dir, "dist-info");
	if (from_dist_info(ctx, p, "cuda_runtime", version, &owner)) {
		*source = "dist-info";
		free(owner);
		free(p);
		return;
	}
	free(p);
	base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	if (strncmp(base, "cuda-", 5) == 0 && isdigit((unsigned char)base[5])) {
		*version = xstrdup(base + 5);
		*source = "dir-name";
	}
}

void libversion_static(const struct gd_ctx *ctx, struct libraries_inventory *li,
		       struct lib_copy *c, const struct libscan_dir *d)
{
	const struct lib_family *fam = libscan_family(c->family);
	const char *rb = strrchr(c->realpath, '/');
	const char *suffix = NULL;
	char *owner = NULL;

	(void)li;
	rb = rb ? rb + 1 : c->realpath;
	if (libscan_parse_name(rb, &suffix) == fam && (!c->soname || strcmp(rb, c->soname) != 0)) {
		c->version = libversion_from_suffix(suffix);
		if (c->version) {
			c->version_source = "file-name";
		}
	}
	/* the owning wheel (or wheel-built toolkit) names the package */
	if (fam && (d->site || d->toolkit)) {
		char *dir = d->site ? xstrdup(d->site) : fs_join(d->toolkit, "dist-info");
		char *v = NULL;

		if (from_dist_info(ctx, dir, fam->wheel, &v, &owner)) {
			if (!c->version) {
				c->version = v;
				c->version_source = "dist-info";
				v = NULL;
			}
			if (d->site) {
				free(c->owner);
				c->owner = xasprintf("wheel %s", owner);
			}
		}
		free(v);
		free(owner);
		free(dir);
	}
	if (d->site && !c->owner)
		c->owner = xasprintf("wheel in %s", d->site);
	if (!c->version && d->toolkit && fam && fam->json_key) {
		char *p = fs_join(d->toolkit, "version.json");
		char *text = read_small(ctx, p);

		free(p);
		if (text) {
			c->version = libversion_parse_version_json(text, fam->json_key);
			if (c->version)
				c->version_source = "version.json";
			free(text);
		}
	}
	if (!c->version && strncmp(c->family, "cudnn", 5) == 0) {
		c->version = cudnn_header_near(ctx, c);
		if (c->version)
			c->version_source = "cudnn_version.h";
	}
	if (!c->version && d->toolkit && strcmp(c->family, "cudart") == 0) {
		char *p = fs_join(d->toolkit, "version.txt");
		char *text = read_small(ctx, p);

		free(p);
		if (text) {
			c->version = libversion_parse_version_txt(text);
			if (c->version)
				c->version_source = "version.txt";
			free(text);
		}
	}
}
