/*
 * libscan_io.c - the scan's three file helpers (list a directory, read a
 * file, test a path), each resolving the path inside --root first; see
 * libscan.h.  They sit in a file of their own, below both the directory
 * collection (libscan_dirs.c) and the static version readers
 * (libversion_static.c), which use them and each other's results only
 * through libscan.h: no two files of the scan call each other.
 */
#include "probes/libraries/libscan.h"

#include "core/ctx.h"
#include "core/fs.h"

int libscan_list(const struct gd_ctx *ctx, const char *abs, char ***names, size_t *n,
		 struct err *e)
{
	struct buf r = BUF_INIT;
	int ret;

	if (fs_resolve(ctx->root, abs, &r, e) < 0) {
		buf_release(&r);
		*names = NULL;
		*n = 0;
		return -1;
	}
	ret = fs_list_dir(ctx->root, r.s, names, n, e);
	buf_release(&r);
	return ret;
}

int libscan_read(const struct gd_ctx *ctx, const char *abs, size_t max, struct buf *out)
{
	struct buf r = BUF_INIT;
	int ret = -1;

	if (fs_resolve(ctx->root, abs, &r, NULL) == 0)
		ret = fs_read_file(ctx->root, r.s, max, out, NULL);
	buf_release(&r);
	return ret;
}

int libscan_exists(const struct gd_ctx *ctx, const char *abs)
{
	struct buf r = BUF_INIT;
	int ret = fs_resolve(ctx->root, abs, &r, NULL) == 0;

	buf_release(&r);
	return ret;
}
