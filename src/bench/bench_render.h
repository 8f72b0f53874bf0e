/*
 * bench_render.h - printing a bench run: JSON (schema "gpudoctor.bench/1",
 * docs/bench-schema.md) and text for people.  Renderers only format the
 * model; they never measure or judge.
 *
 *	struct buf out = BUF_INIT;
 *	bench_render_json(&run, &out);  or  bench_render_text(&run, &out);
 *	fputs(out.s, stdout);
 */
#ifndef GD_BENCH_RENDER_H
#define GD_BENCH_RENDER_H

#include "bench/bench.h"
#include "core/buf.h"

#define BENCH_SCHEMA "gpudoctor.bench/1"

/* "ok", "warn", "fail" or "refused". */
const char *bench_run_status(const struct bench_run *r);
void bench_render_json(const struct bench_run *r, struct buf *out);
void bench_render_text(const struct bench_run *r, struct buf *out);
/* Parts of the text report (bench_text_dnn.c), called by bench_render_text. */
void bench_render_text_conv(const struct bench_gpu *g, struct buf *out);
void bench_render_text_nccl(const struct bench_run *r, struct buf *out);
void bench_render_text_cpu_conv(const struct bench_run *r, struct buf *out);
/* Parts of the JSON (bench_json_dnn.c). */
struct json;
void bench_render_json_conv(struct json *j, const struct bench_conv *c);
void bench_render_json_nccl(struct json *j, const struct bench_nccl *n);
/* One finding of a GPU (with_result: its "result", the finding's id) or of NCCL. */
void bench_render_json_finding(struct json *j, const struct finding *f, int with_result);
void bench_render_text_finding(const struct finding *f, struct buf *out);

#endif
