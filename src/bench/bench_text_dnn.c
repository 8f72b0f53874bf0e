/* bench_text_dnn.c - the cuDNN, NCCL and CNN-layer parts of the text report; see bench_render.h. */
#include "bench/bench_render.h"
#include "core/termesc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const dir_short[BENCH_CONV_DIRS] = { "forward", "bwd data", "bwd filter" };
static const char *const coll_labels[BENCH_NCCL_COLLS] = { "all-reduce", "all-gather", "reduce-scatter" };

static void bt_size(char *dst, size_t n, long long b)
{
	if (b >= (1LL << 30) && b % (1LL << 30) == 0)
		snprintf(dst, n, "%lld GiB", b >> 30);
	else if (b >= (1LL << 20) && b % (1LL << 20) == 0)
		snprintf(dst, n, "%lld MiB", b >> 20);
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(dst, n, "%lld KiB", b >> 10);
	else
		snprintf(dst, n, "%lld B", b);
}

void bench_render_text_conv(const struct bench_gpu *g, struct buf *out)
{
	const struct bench_conv *c = &g->conv;

	if (!c->ran)
		return;
	buf_puts(out, "\n  cuDNN");
	if (c->cudnn_version > 0)
		buf_printf(out, " %ld.%ld.%ld", c->cudnn_version / 10000, c->cudnn_version / 100 % 100, c->cudnn_version % 100);
	if (c->cudnn) {
		buf_puts(out, " (");
		termesc_buf(out, c->cudnn);
		buf_puts(out, ")");
	}
	if (c->shape)
		buf_printf(out, ": conv %s, NHWC, %.1f GFLOP per pass", tesc(c->shape), c->flops / 1e9);
	buf_puts(out, "\n");
	if (c->refused != CAUSE_NONE) {
		buf_printf(out, "  not measured (%s): ", cause_id_str(c->refused));
		termesc_buf(out, c->refused_msg);
		buf_puts(out, "\n");
	}
	for (int p = 0; p < BENCH_CONV_PRECS; p++) {
		int any = 0;

		for (int d = 0; d < BENCH_CONV_DIRS; d++)
			any |= c->r[d][p].measured || c->r[d][p].error;
		if (!any)
			continue;
		buf_printf(out, "  %-18s", bench_conv_prec_label(p));
		for (int d = 0; d < BENCH_CONV_DIRS; d++) {
			const struct bench_conv_result *r = &c->r[d][p];

			if (!r->measured) {
				buf_printf(out, "  %s: failed     ", dir_short[d]);
				continue;
			}
			buf_printf(out, "  %s %6.1f", dir_short[d], r->value);
			if (!isnan(r->percent))
				buf_printf(out, " (%2.0f%%)", r->percent);
			if (r->verified == 0)
				buf_puts(out, " WRONG");
		}
		if (!isnan(c->r[0][p].ceiling))
			buf_printf(out, "  TFLOP/s of %.1f", c->r[0][p].ceiling);
		else
			buf_puts(out, "  TFLOP/s");
		{
			int all = 1;

			for (int d = 0; d < BENCH_CONV_DIRS; d++)
				all &= c->r[d][p].verified == 1;
			if (all)
				buf_puts(out, ", verified");
		}
		buf_puts(out, "\n");
	}
}

void bench_render_text_nccl(const struct bench_run *r, struct buf *out)
{
	const struct bench_nccl *n = &r->nccl;
	char sz[32];

	if (n->skipped) {
		buf_puts(out, "NCCL: skipped: ");
		termesc_buf(out, n->skipped);
		buf_puts(out, "\n");
		return;
	}
	if (!n->ran)
		return;
	buf_puts(out, "NCCL");
	if (n->version_code > 0)
		buf_printf(out, " %d.%d.%d", n->version_code / 10000, n->version_code / 100 % 100, n->version_code % 100);
	if (n->library) {
		buf_puts(out, " (");
		termesc_buf(out, n->library);
		buf_puts(out, ")");
	}
	if (n->gpus > 0)
		buf_printf(out, ", ncclCommInitAll over %d GPUs", n->gpus);
	buf_puts(out, "\n");
	if (n->topology) {
		buf_puts(out, "  topology NCCL chose: ");
		termesc_buf(out, n->topology);
		buf_puts(out, "\n");
	}
	if (n->ceiling_source)
		buf_printf(out, "  link ceiling: %.1f GB/s per GPU and direction, %s\n", n->ceiling_gbs, n->ceiling_source);
	if (n->refused != CAUSE_NONE) {
		buf_printf(out, "  not measured (%s): ", cause_id_str(n->refused));
		termesc_buf(out, n->refused_msg);
		buf_puts(out, "\n");
	}
	if (n->npts[0] || n->npts[1] || n->npts[2]) {
		size_t rows = 0;

		buf_printf(out, "  %-9s", "size");
		for (int c = 0; c < BENCH_NCCL_COLLS; c++)
			buf_printf(out, " | %-14s %8s %7s", coll_labels[c], "algbw", "busbw");
		buf_puts(out, "   (us, GB/s)\n");
		for (int c = 0; c < BENCH_NCCL_COLLS; c++)
			if (n->npts[c] > rows)
				rows = n->npts[c];
		for (size_t i = 0; i < rows; i++) {
			long long b = -1;

			/* Every other size, and the largest: the table stays short. */
			if (i % 2 && i + 1 != rows)
				continue;
			for (int c = 0; c < BENCH_NCCL_COLLS && b < 0; c++)
				if (i < n->npts[c])
					b = n->pts[c][i].bytes;
			bt_size(sz, sizeof(sz), b);
			buf_printf(out, "  %-9s", sz);
			for (int c = 0; c < BENCH_NCCL_COLLS; c++) {
				if (i >= n->npts[c]) {
					buf_printf(out, " | %-14s %8s %7s", "", "", "");
					continue;
				}
				buf_printf(out, " | %10.1f us %8.1f %7.1f", n->pts[c][i].us, n->pts[c][i].algbw, n->pts[c][i].busbw);
			}
			buf_puts(out, "\n");
		}
		buf_puts(out, "  peak busbw:");
		for (int c = 0; c < BENCH_NCCL_COLLS; c++) {
			buf_printf(out, " %s %.1f GB/s", coll_labels[c], n->peak_busbw[c]);
			if (!isnan(n->percent[c]))
				buf_printf(out, " (%.0f%%)", n->percent[c]);
			buf_puts(out, c + 1 < BENCH_NCCL_COLLS ? "," : "\n");
		}
		buf_puts(out, "  latency at the smallest size:");
		for (int c = 0; c < BENCH_NCCL_COLLS; c++)
			buf_printf(out, " %s %.1f us%s", coll_labels[c], n->latency_us[c], c + 1 < BENCH_NCCL_COLLS ? "," : "\n");
		if (n->verified == 1)
			buf_puts(out, "  all-reduce sums verified\n");
	}
	for (size_t i = 0; i < n->rep.n; i++)
		bench_render_text_finding(&n->rep.findings[i], out);
	buf_puts(out, "busbw follows nccl-tests: algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather and reduce-scatter.\n\n");
}

void bench_render_text_cpu_conv(const struct bench_run *r, struct buf *out)
{
	const struct bench_cpu *c = &r->cpu;

	if (isnan(c->conv_gflops))
		return;
	buf_printf(out, "CPU CNN layer (conv 3x3, 256->256 channels, 56x56, one image, im2col + %s SGEMM): %.1f GFLOP/s%s\n",
		   c->impl ? c->impl : "?", c->conv_gflops, c->conv_verified == 0 ? " WRONG RESULTS" : "");
	if (!isnan(c->conv_speedup))
		buf_printf(out, "GPU cuDNN FP32 forward vs CPU, the same layer: %.0fx faster\n", c->conv_speedup);
}

void bench_render_text_finding(const struct finding *f, struct buf *out)
{
	buf_printf(out, "  %s  ", bench_finding_mark(f));
	termesc_buf(out, f->title);
	buf_printf(out, "  [%s]\n", cause_id_str(f->cause) ? cause_id_str(f->cause) : "-");
	for (size_t k = 0; k < f->nevidence; k++) {
		buf_puts(out, k ? "; " : "        evidence: ");
		termesc_buf(out, f->evidence[k]);
	}
	if (f->nevidence)
		buf_puts(out, "\n");
	if (f->fix) {
		buf_puts(out, "        fix: ");
		termesc_buf(out, f->fix);
		buf_puts(out, "\n");
	}
}
