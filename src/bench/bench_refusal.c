/* bench_refusal.c - the first refusal of a bench child; see bench_refusal.h. */
#include "bench/bench_refusal.h"

#include <stdarg.h>
#include <stdio.h>

int bench_refuse(struct bench_refusal *r, enum cause_id cause, const char *fmt, ...)
{
	const char *id = cause_id_str(cause);
	va_list ap;

	if (r->cause[0])
		return -1;	/* the first reason is the real one */
	snprintf(r->cause, sizeof(r->cause), "%s", id ? id : "gpu-compute-failed");
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return -1;
}
