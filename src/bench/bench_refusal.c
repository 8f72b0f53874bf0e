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

int bench_refusal_parse(const char *val, enum cause_id fallback, struct bench_refusal *r)
{
	struct err e = ERR_INIT;
	struct finding f;

	if (finding_record_parse(val, strlen(val), &f, &e) < 0) {
		r->cause = fallback;
		snprintf(r->msg, sizeof(r->msg), "the child's refusal did not parse (%.120s): %.300s", e.msg, val);
		return -1;
	}
	r->cause = f.cause;
	snprintf(r->msg, sizeof(r->msg), "%s", f.title);
	finding_release(&f);
	return 0;
}

int bench_refusal_read(const struct kvlist *kv, const char *key, enum cause_id fallback,
		       enum cause_id *cause, char **msg, int *bad)
{
	const char *v = kv_get(kv, key);
	struct bench_refusal r;

	if (!v)
		return 0;
	if (bench_refusal_parse(v, fallback, &r) < 0)
		(*bad)++;
	*cause = r.cause;
	free(*msg);
	*msg = xstrdup(r.msg);
	return 1;
}
