/* bench_refusal.c - the first refusal of a bench child; see bench_refusal.h. */
#include "bench/bench_refusal.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "report/finding_record.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_refuse(struct bench_refusal *r, enum cause_id cause, const char *fmt, ...)
{
	va_list ap;

	if (r->cause != CAUSE_NONE)
		return -1;	/* the first reason is the real one */
	r->cause = cause_get(cause) ? cause : CAUSE_GPU_COMPUTE_FAILED;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void bench_refusal_emit(const struct bench_refusal *r, const char *key)
{
	struct finding f;
	struct buf b = BUF_INIT;

	if (r->cause == CAUSE_NONE)
		return;
	memset(&f, 0, sizeof(f));
	f.cause = r->cause;
	f.layer = cause_get(r->cause)->layer;
	/* The parent judges; the status is what the policy says of a refusal
	 * on the path of real work. */
	f.status = finding_status(r->cause, REACH_WORK);
	f.gpu = -1;
	f.title = (char *)r->msg;
	finding_record_write(&b, &f);
	kv_emit(key, "%s", b.s);
	buf_release(&b);
}

int bench_refusal_read(const struct kvlist *kv, const char *key, enum cause_id fallback,
		       enum cause_id *cause, char **msg, int *bad)
{
	const char *v = kv_get(kv, key);
	struct err e = ERR_INIT;
	struct finding f;

	if (!v)
		return 0;
	free(*msg);
	if (finding_record_parse(v, strlen(v), &f, &e) < 0) {
		(*bad)++;
		*cause = fallback;
		*msg = xasprintf("the child's refusal did not parse (%s): %.300s", e.msg, v);
		return 1;
	}
	*cause = f.cause;
	*msg = xstrdup(f.title);
	finding_release(&f);
	return 1;
}
