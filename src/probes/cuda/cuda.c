/*
 * cuda.c - the cuda layer's probe: runs "gpudoctor __probe cuda LIB"
 * (cuda_child.c) on the libcuda.so.1 the driver layer resolved, and parses
 * its key=value lines into inv->cuda.  A crash, a hang or garbage from the
 * child is recorded as CUDA_CHILD_FAILED with what happened.  The child may
 * be started early and held (see cuda.h), so that its libcuda load and cuInit
 * overlap the driver layer's NVML child.
 */
#include "probes/cuda/cuda.h"
#include "inventory/inventory.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void probe_cuda(const struct probe_in *in, struct inventory *inv)
{
	(void)in;
	inv->cuda.probed = 1;
}

static double cuda_ms(const struct kvlist *kv, const char *fmt, int i)
{
	const char *v = kv_getf(kv, fmt, i);
	char *end;
	double d;

	if (!v || !*v)
		return NAN;
	d = strtod(v, &end);
	return *end ? NAN : d;
}

static void cuda_parse_device(const struct kvlist *kv, int i, struct cuda_device *d)
{
	const char *v;

	d->index = i;
	d->name = xstrdup_or_null(kv_getf(kv, "dev.%d.name", i));
	d->cc_major = d->cc_minor = -1;
	if ((v = kv_getf(kv, "dev.%d.cc", i)) && sscanf(v, "%d.%d", &d->cc_major, &d->cc_minor) != 2)
		d->cc_major = d->cc_minor = -1;
	v = kv_getf(kv, "dev.%d.sm_count", i);
	d->sm_count = v ? atoi(v) : -1;
	v = kv_getf(kv, "dev.%d.memory_bytes", i);
	d->memory_bytes = v ? strtoll(v, NULL, 10) : -1;
	d->bus_id = xstrdup_or_null(kv_getf(kv, "dev.%d.bus_id", i));
	v = kv_getf(kv, "dev.%d.kernel_ok", i);
	d->kernel_ok = v ? atoi(v) != 0 : -1;
	d->fail_call = xstrdup_or_null(kv_getf(kv, "dev.%d.fail.call", i));
	v = kv_getf(kv, "dev.%d.fail.result", i);
	d->fail_result = v ? atoi(v) : -1;
	if (d->fail_call)
		d->kernel_ok = 0;
	d->mismatch = xstrdup_or_null(kv_getf(kv, "dev.%d.mismatch", i));
	d->context_ms = cuda_ms(kv, "dev.%d.context_ms", i);
	d->module_ms = cuda_ms(kv, "dev.%d.module_ms", i);
	d->kernel_ms = cuda_ms(kv, "dev.%d.kernel_ms", i);
	d->release_ms = cuda_ms(kv, "dev.%d.release_ms", i);
}

void cuda_parse(const struct kvlist *kv, struct cuda_inventory *p)
{
	const char *v;
	long long n;

	p->outcome = CUDA_RAN;
	free(p->lib);
	p->lib = xstrdup_or_null(kv_get(kv, "lib"));
	if ((v = kv_get(kv, "dlopen_error"))) {
		p->outcome = CUDA_DLOPEN_FAILED;
		p->error = xstrdup(v);
		return;
	}
	if ((v = kv_get(kv, "missing_required"))) {
		p->outcome = CUDA_MISSING_SYMBOL;
		p->error = xasprintf("missing symbols: %s", v);
		return;
	}
	p->init_result = (int)kv_get_ll(kv, "init.result", -1);
	p->init_ms = kv_get_double(kv, "init.ms", NAN);
	p->hold_ms = kv_get_double(kv, "hold_ms", NAN);
	p->driver_version = (int)kv_get_ll(kv, "driver_version", -1);
	p->count_result = (int)kv_get_ll(kv, "count.result", -1);
	n = kv_get_ll(kv, "device_count", -1);
	p->device_count = (int)n;
	if (n <= 0)
		return;
	if (n > 64)
		n = 64;
	p->devices = xcalloc((size_t)n, sizeof(*p->devices));
	p->kernel_ok = 1;
	for (int i = 0; i < (int)n; i++) {
		struct cuda_device *d = &p->devices[p->ndevices++];

		cuda_parse_device(kv, i, d);
		if (d->kernel_ok != 1)
			p->kernel_ok = 0;
	}
	p->context_ms = p->devices[0].context_ms;
	p->kernel_ms = p->devices[0].kernel_ms;
}

/* The child's time limit: --timeout, 10 s when unset. */
static double cuda_timeout(const struct gd_ctx *ctx)
{
	return ctx->timeout > 0 ? ctx->timeout : 10.0;
}

/* Kill a pending (started, unfinished) child and forget it. */
void probe_cuda_live_cancel(struct cuda_pending *pend)
{
	struct child_result r = CHILD_RESULT_INIT;

	if (!pend->child)
		return;
	child_cancel(pend->child, &r);
	child_result_release(&r);
	free(pend->child);
	pend->child = NULL;
	free(pend->lib);
	pend->lib = NULL;
	pend->released = 0;
}

/* Wait for a started child and turn what it said into p. */
static void cuda_conclude(struct cuda_inventory *p, struct child *c, const char *lib)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct buf desc = BUF_INIT;

	child_finish_at_end(c, &r);
	p->seconds = r.seconds;
	if (r.outcome == CHILD_OK) {
		cuda_parse(&r.kv, p);
	} else {
		size_t l = strcspn(r.err.s ? r.err.s : "", "\n");

		p->outcome = CUDA_CHILD_FAILED;
		free(p->lib);
		p->lib = xstrdup(lib);
		p->child_error = xstrdup(child_outcome_describe(&r, &desc));
		if (l)
			p->child_stderr = xstrndup(r.err.s, l > 300 ? 300 : l);
		/* What it said before dying tells how far it got. */
		if (kv_get(&r.kv, "init.result"))
			p->init_result = (int)kv_get_ll(&r.kv, "init.result", -1);
	}
	buf_release(&desc);
	child_result_release(&r);
}

void probe_cuda_live_start(const struct gd_ctx *ctx, const struct inventory *inv,
			   struct cuda_pending *pend)
{
	const struct driver_lib *lib = &inv->driver.cuda;
	const struct cuda_inventory *p = &inv->cuda;
	struct buf host = BUF_INIT;
	struct err e = ERR_INIT;
	struct child *c;
	sigset_t hold, old;
	const char *args[3];
	int rc;

	if (!lib->path || p->outcome != CUDA_NOT_RUN || pend->child)
		return;
	fs_path(ctx->root, lib->realpath ? lib->realpath : lib->path, &host);
	args[0] = host.s;
	args[1] = "--hold";
	args[2] = NULL;
	c = xcalloc(1, sizeof(*c));
	/*
	 * The release signal is blocked across fork and exec, so that one sent
	 * before the child waits for it stays pending instead of killing it.
	 */
	sigemptyset(&hold);
	sigaddset(&hold, CUDA_RELEASE_SIGNAL);
	sigprocmask(SIG_BLOCK, &hold, &old);
	rc = child_start_probe(ctx, "cuda", args, NULL, c, &e);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		/* probe_cuda_live() tries again and records why it cannot. */
		free(c);
		buf_release(&host);
		return;
	}
	pend->child = c;
	pend->lib = buf_detach(&host);
}

void probe_cuda_live_release(const struct gd_ctx *ctx, struct cuda_pending *pend)
{
	if (!pend->child || pend->released)
		return;
	pend->released = 1;
	/* Its time runs from now: the wait for the driver layer is not its own. */
	pend->child->deadline = child_now() + cuda_timeout(ctx);
	kill(pend->child->pid, CUDA_RELEASE_SIGNAL);
}

void probe_cuda_live(const struct gd_ctx *ctx, struct inventory *inv, struct cuda_pending *pend)
{
	const struct driver_lib *lib = &inv->driver.cuda;
	struct cuda_inventory *p = &inv->cuda;
	struct buf host = BUF_INIT;
	struct err e = ERR_INIT;
	struct child c;
	const char *args[2];

	if (pend && pend->child) {
		struct child *pc;
		char *plib;

		probe_cuda_live_release(ctx, pend);
		pc = pend->child;
		plib = pend->lib;
		pend->child = NULL;
		pend->lib = NULL;
		pend->released = 0;
		cuda_conclude(p, pc, plib);
		free(pc);
		free(plib);
		return;
	}
	if (!lib->path || p->outcome != CUDA_NOT_RUN)
		return;
	fs_path(ctx->root, lib->realpath ? lib->realpath : lib->path, &host);
	args[0] = host.s;
	args[1] = NULL;
	if (child_start_probe(ctx, "cuda", args, NULL, &c, &e) < 0) {
		p->outcome = CUDA_CHILD_FAILED;
		p->lib = xstrdup(host.s);
		p->child_error = xasprintf("could not be started: %s", e.msg);
	} else {
		cuda_conclude(p, &c, host.s);
	}
	buf_release(&host);
}
