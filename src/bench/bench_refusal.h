/*
 * bench_refusal.h - why a bench child stopped measuring: the first cause and
 * its message, and how it crosses to the parent.
 *
 * The GEMM/copy, convolution and NCCL children each hold one; the cause is a
 * catalogue enum.  It crosses the pipe as one report/finding_record.h record
 * (the one wire format of findings: "KEY=cause=ID status=S layer=L
 * title=MESSAGE"), and the parent reads it back strictly: a record that does
 * not parse (an unknown id, status or field) is counted in the caller's
 * bad_records and stands as the caller's fallback cause, never as a free
 * string.  The first refusal wins: later calls keep it.
 *
 *	struct bench_refusal r = { 0 };
 *	return bench_refuse(&r, CAUSE_GPU_COMPUTE_FAILED, "%s failed", what);	// -1
 *	bench_refusal_emit(&r, "conv.refuse");			// child, at its end
 *	bench_refusal_read(kv, "conv.refuse", CAUSE_CUDNN_CALL_FAILED,
 *			   &c->refused, &c->refused_msg, &c->bad_records);	// parent
 */
#ifndef GD_BENCH_REFUSAL_H
#define GD_BENCH_REFUSAL_H

#include "core/kv.h"
#include "knowledge/causes.h"

struct bench_refusal {
	enum cause_id cause;	/* CAUSE_NONE while measuring goes on */
	char msg[512];
};

/* Records the refusal unless one is recorded already; always returns -1. */
int bench_refuse(struct bench_refusal *r, enum cause_id cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Writes key=RECORD (core/kv.h) when r holds a refusal; nothing otherwise. */
void bench_refusal_emit(const struct bench_refusal *r, const char *key);
/*
 * The refusal recorded under key: *cause and *msg (replaced; *msg
 * allocated) and 1, or 0 when there is none.  A record that does not parse
 * counts in *bad and gives fallback, with the parse error in the message.
 */
int bench_refusal_read(const struct kvlist *kv, const char *key, enum cause_id fallback,
		       enum cause_id *cause, char **msg, int *bad);
/* One record's value into r (burn reads its child line by line): 0, or -1
 * with r = fallback and the parse error as its message. */
int bench_refusal_parse(const char *val, enum cause_id fallback, struct bench_refusal *r);

#endif
