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

#endif
