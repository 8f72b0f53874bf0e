/*
 * libraries.c - the libraries layer's probe: drives libscan_*.c (static) and
 * the libversion child (live).  See libraries.h for the order of work.
 */
#include "probes/libraries/libraries.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "probes/libraries/libscan.h"
#include "probes/libraries/script_exec.h"

#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* /usr/local/cuda: a link to a toolkit, a directory, dangling, or absent. */
static void probe_cuda_link(const struct gd_ctx *ctx, struct libraries_inventory *li)
{
	struct stat st;
	struct buf b = BUF_INIT;
	const char *src;

	if (fs_lstat(ctx->root, "/usr/local/cuda", &st) < 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		if (fs_readlink(ctx->root, "/usr/local/cuda", &b, NULL) == 0)
			li->cuda_link_target = xstrdup(b.s);
		if (fs_resolve(ctx->root, "/usr/local/cuda", &b, NULL) == 0 &&
		    fs_is_dir(ctx->root, b.s)) {
			li->cuda_link = 1;
			li->cuda_link_resolved = xstrdup(b.s);
		} else {
			li->cuda_link = 2;
		}
	} else if (S_ISDIR(st.st_mode)) {
		li->cuda_link = 0;
		li->cuda_link_resolved = xstrdup("/usr/local/cuda");
	}
	if (li->cuda_link_resolved)
		libversion_toolkit(ctx, li->cuda_link_resolved, &li->cuda_link_version, &src);
	buf_release(&b);
}

/*
 * Follow shell wrappers ("exec /usr/local/cuda-X/bin/nvcc \"$@\"") from the
 * resolved file real to the nvcc they run, reading them as text.  Hops are
 * bounded so that two scripts naming each other cannot loop.  *wrapper is
 * set to the first script when real was one.
 */
static void follow_nvcc_wrappers(const struct gd_ctx *ctx, struct buf *real, char **wrapper)
{
	for (int hop = 0; hop < 4; hop++) {
		struct buf head = BUF_INIT, target = BUF_INIT, next = BUF_INIT;
		struct stat st;
		int ok;

		ok = fs_read_head(ctx->root, real->s, 4096, &head, NULL) == 0 &&
		     script_exec_target(head.s, head.len, "nvcc", &target) == 0 &&
		     fs_resolve(ctx->root, target.s, &next, NULL) == 0 &&
		     fs_stat(ctx->root, next.s, &st) == 0 && S_ISREG(st.st_mode);
		if (ok) {
			if (!*wrapper)
				*wrapper = xstrdup(real->s);
			buf_reset(real);
			buf_puts(real, next.s);
		}
		buf_release(&head);
		buf_release(&target);
		buf_release(&next);
		if (!ok)
			break;
	}
}

/* The first nvcc on PATH, inside root; never executed. */
static void probe_nvcc(const struct gd_ctx *ctx, const char *path,
		       struct libraries_inventory *li)
{
	char *copy, *save = NULL;

	if (!path)
		return;
	copy = xstrdup(path);
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		char *p;
		struct buf real = BUF_INIT;
		struct stat st;

		if (t[0] != '/')
			continue;
		p = fs_join(t, "nvcc");
		if (fs_resolve(ctx->root, p, &real, NULL) == 0 &&
		    fs_stat(ctx->root, real.s, &st) == 0 && S_ISREG(st.st_mode)) {
			char *bin, *s;
			const char *src;

			li->nvcc_path = p;
			p = NULL;
			follow_nvcc_wrappers(ctx, &real, &li->nvcc_wrapper);
			/* <toolkit>/bin/nvcc */
			bin = xstrdup(real.s);
			s = strrchr(bin, '/');
			if (s)
				*s = '\0';
			s = strrchr(bin, '/');
			if (s && s != bin)
				*s = '\0';
			li->nvcc_toolkit = bin;
			libversion_toolkit(ctx, bin, &li->nvcc_version, &src);
			buf_release(&real);
			break;
		}
		free(p);
		buf_release(&real);
	}
	free(copy);
}

static void probe_cudnn_header(const struct gd_ctx *ctx, struct libraries_inventory *li)
{
	static const char *const paths[] = {
		"/usr/local/cuda/include/cudnn_version.h",
		"/usr/include/cudnn_version.h",
		"/usr/include/x86_64-linux-gnu/cudnn_version_v9.h",
		"/usr/include/aarch64-linux-gnu/cudnn_version_v9.h",
		NULL
	};
	struct buf b = BUF_INIT;

	for (int i = 0; paths[i]; i++) {
		if (libscan_read(ctx, paths[i], 256 * 1024, &b) == 0) {
			char *v = libversion_parse_cudnn_header(b.s);

			if (v) {
				li->cudnn_header = xstrdup(paths[i]);
				li->cudnn_header_version = v;
				break;
			}
		}
	}
	buf_release(&b);
	if (libscan_exists(ctx, "/usr/local/cuda/include/nccl.h"))
		li->nccl_header = xstrdup("/usr/local/cuda/include/nccl.h");
	else if (libscan_exists(ctx, "/usr/include/nccl.h"))
		li->nccl_header = xstrdup("/usr/include/nccl.h");
}

void probe_libraries(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct libraries_inventory *li = &inv->libs;
	struct libscan_dirs ds;
	struct libscan_loader ld;
	double t0 = child_now();

	memset(&ds, 0, sizeof(ds));
	li->ld_library_path = xstrdup_or_null(in->env.ld_library_path);
	libscan_dirs_collect(in, inv, &ds);
	libscan_loader_init(in, li, &ld);
	libscan_loader_dirs(ctx, &ld, &ds);
	for (size_t i = 0; i < ds.n; i++)
		libscan_files_scan(ctx, li, &ds.d[i]);
	libscan_conda(in, li);
	probe_cuda_link(ctx, li);
	probe_nvcc(ctx, in->env.path, li);
	probe_cudnn_header(ctx, li);
	libscan_resolve(ctx, li, &ld);
	libscan_loader_release(&ld);
	libscan_dirs_release(&ds);
	li->seconds = child_now() - t0;
	li->probed = 1;
}

/* The winners the live probe asks: family -> child kind. */
static const char *live_kind(const char *family)
{
	static const char *const kinds[] = { "cudart", "cudnn", "nccl", "cublas", NULL };

	for (int i = 0; kinds[i]; i++)
		if (strcmp(kinds[i], family) == 0)
			return kinds[i];
	return NULL;
}

/* A new live[] entry for copy c; its child is started by the caller. */
static struct lib_live *live_add(struct libraries_inventory *li, const struct lib_copy *c,
				 const char *kind)
{
	struct lib_live *l;

	XGROW(li->live, li->nlive, li->live_cap);
	l = &li->live[li->nlive++];
	memset(l, 0, sizeof(*l));
	l->path = xstrdup(c->path);
	l->kind = kind;
	l->static_version = xstrdup_or_null(c->version);
	return l;
}

/* What a finished child said, into l. */
static void live_conclude(struct lib_live *l, struct child *c)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct buf why = BUF_INIT;

	child_finish(c, &r);
	if (r.outcome != CHILD_OK) {
		child_outcome_describe(&r, &why);
		l->error = xasprintf("the libversion child %s%s%s", why.s,
				     r.err.len ? ": " : "", r.err.len ? r.err.s : "");
		l->crashed = r.outcome == CHILD_SIGNALED || r.outcome == CHILD_TIMEOUT;
	} else if (kv_get(&r.kv, "dlopen_error")) {
		l->error = xasprintf("dlopen: %s", kv_get(&r.kv, "dlopen_error"));
	} else if (!kv_get(&r.kv, "version")) {
		const char *er = kv_get(&r.kv, "error");

		l->error = xstrdup(er ? er : "no version in the child's answer");
	} else {
		l->ok = 1;
		l->version = xstrdup(kv_get(&r.kv, "version"));
		l->raw = xstrdup_or_null(kv_get(&r.kv, "raw"));
		l->cudart_version = xstrdup_or_null(kv_get(&r.kv, "cudart_version"));
	}
	l->seconds = r.seconds;
	child_result_release(&r);
	buf_release(&why);
}

void probe_libraries_live_start(const struct gd_ctx *ctx, struct inventory *inv,
				struct libraries_pending *pend)
{
	struct libraries_inventory *li = &inv->libs;
	size_t n = 0;

	if (!li->probed || ctx->no_load || li->live_ran || pend->child)
		return;
	li->live_ran = 1;
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];

		n += live_kind(c->family) && c->winner && c->elf_problem == 0 && c->readable != 0;
	}
	pend->child = xcalloc(n ? n : 1, sizeof(*pend->child));
	pend->n = 0;
	for (size_t i = 0; i < li->n; i++) {
		const struct lib_copy *c = &li->copies[i];
		const char *kind = live_kind(c->family);
		struct buf host = BUF_INIT;
		struct err e = ERR_INIT;
		struct lib_live *l;
		const char *args[3];

		if (!kind || !c->winner || c->elf_problem != 0 || c->readable == 0)
			continue;
		l = live_add(li, c, kind);
		/* the real file: a link in a fixture root must not reach the host */
		fs_path(ctx->root, c->realpath, &host);
		args[0] = host.s;
		args[1] = kind;
		args[2] = NULL;
		/* pend->child[k] belongs to li->live[k] */
		pend->n = li->nlive;
		if (child_start_probe(ctx, "libversion", args, NULL, &pend->child[li->nlive - 1],
				      &e) < 0) {
			pend->child[li->nlive - 1].pid = -1;
			l->error = xstrdup(e.msg);
		}
		buf_release(&host);
	}
}

void probe_libraries_live_cancel(struct libraries_pending *pend)
{
	for (size_t i = 0; pend->child && i < pend->n; i++) {
		struct child_result r = CHILD_RESULT_INIT;

		if (pend->child[i].pid > 0)
			child_cancel(&pend->child[i], &r);
		child_result_release(&r);
	}
	free(pend->child);
	pend->child = NULL;
	pend->n = 0;
}

void probe_libraries_live(const struct gd_ctx *ctx, struct inventory *inv,
			  struct libraries_pending *pend)
{
	struct libraries_pending own = LIBRARIES_PENDING_INIT;
	struct libraries_inventory *li = &inv->libs;

	if (!pend)
		pend = &own;
	if (!pend->child)
		probe_libraries_live_start(ctx, inv, pend);
	for (size_t i = 0; pend->child && i < pend->n && i < li->nlive; i++)
		if (pend->child[i].pid > 0)
			live_conclude(&li->live[i], &pend->child[i]);
	free(pend->child);
	pend->child = NULL;
	pend->n = 0;
}
