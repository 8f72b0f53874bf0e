/* bench_conv.c - convolution shape, arithmetic and CPU reference; see bench_conv.h. */
#include "bench/bench_conv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[] = { "fwd", "bwd_data", "bwd_filter" };
static const char *const dir_labels[] = { "forward", "backward data", "backward filter" };

const char *bench_conv_dir_name(enum bench_conv_dir d)
{
	return (unsigned)d < BENCH_CONV_NDIRS ? dir_names[d] : "?";
}

const char *bench_conv_dir_label(enum bench_conv_dir d)
{
	return (unsigned)d < BENCH_CONV_NDIRS ? dir_labels[d] : "?";
}

static int bench_conv_out(int in, int f, int pad, int stride)
{
	if (in <= 0 || f <= 0 || pad < 0 || stride <= 0 || in + 2 * pad < f)
		return -1;
	return (in + 2 * pad - f) / stride + 1;
}

int bench_conv_out_h(const struct bench_conv_shape *s)
{
	return bench_conv_out(s->h, s->r, s->pad, s->stride);
}

int bench_conv_out_w(const struct bench_conv_shape *s)
{
	return bench_conv_out(s->w, s->s, s->pad, s->stride);
}

int bench_conv_valid(const struct bench_conv_shape *s)
{
	double lim = 2147483647.0;

	if (s->n <= 0 || s->c <= 0 || s->k <= 0 || bench_conv_out_h(s) <= 0 || bench_conv_out_w(s) <= 0)
		return -1;
	if ((double)s->n * s->h * s->w * s->c > lim || (double)s->k * s->r * s->s * s->c > lim ||
	    (double)s->n * bench_conv_out_h(s) * bench_conv_out_w(s) * s->k > lim)
		return -1;
	return 0;
}

int bench_conv_shape_parse(const char *text, struct bench_conv_shape *s)
{
	long v[9] = { 0, 0, 0, 0, 0, 3, 3, 1, 1 };
	int n = 0;
	const char *p = text;

	if (!p)
		return -1;
	while (n < 9) {
		char *end;
		long x;

		if (*p < '0' || *p > '9')
			return -1;
		x = strtol(p, &end, 10);
		if (end == p || x < 0 || x > 1000000)
			return -1;
		v[n++] = x;
		p = end;
		if (*p == '\0')
			break;
		if (*p++ != ',')
			return -1;
	}
	if (*p != '\0' || n < 5 || n == 6)
		return -1;
	*s = (struct bench_conv_shape){ (int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], (int)v[6],
					(int)v[7], (int)v[8] };
	return bench_conv_valid(s);
}

size_t bench_conv_x_elems(const struct bench_conv_shape *s)
{
	return (size_t)s->n * (size_t)s->h * (size_t)s->w * (size_t)s->c;
}

size_t bench_conv_w_elems(const struct bench_conv_shape *s)
{
	return (size_t)s->k * (size_t)s->r * (size_t)s->s * (size_t)s->c;
}

size_t bench_conv_y_elems(const struct bench_conv_shape *s)
{
	return (size_t)s->n * (size_t)bench_conv_out_h(s) * (size_t)bench_conv_out_w(s) * (size_t)s->k;
}

double bench_conv_flops(const struct bench_conv_shape *s)
{
	if (bench_conv_valid(s) < 0)
		return NAN;
	return 2.0 * s->n * s->k * (double)bench_conv_out_h(s) * bench_conv_out_w(s) *
	       s->c * s->r * s->s;
}

double bench_conv_tflops(const struct bench_conv_shape *s, double ms)
{
	if (!(ms > 0) || !isfinite(ms))
		return NAN;
	return bench_conv_flops(s) / (ms / 1e3) / 1e12;
}

void bench_conv_fill(float *v, size_t n, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (float)((int)(x >> 56) - 128) / 128.0f;
	}
}

void bench_conv_fill_full(float *v, size_t n, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (float)((double)(x >> 40) / 8388608.0 - 1.0);
	}
}

/* Index of x[n, h, w, c] (NHWC) and of w[k, r, s, c] (KRSC). */
static size_t X(const struct bench_conv_shape *sh, int n, int h, int w, int c)
{
	return (((size_t)n * (size_t)sh->h + (size_t)h) * (size_t)sh->w + (size_t)w) * (size_t)sh->c + (size_t)c;
}

static size_t W(const struct bench_conv_shape *sh, int k, int r, int q, int c)
{
	return (((size_t)k * (size_t)sh->r + (size_t)r) * (size_t)sh->s + (size_t)q) * (size_t)sh->c + (size_t)c;
}

static size_t bench_conv_yidx(const struct bench_conv_shape *s, int n, int p, int q, int k)
{
	size_t P = (size_t)bench_conv_out_h(s), Q = (size_t)bench_conv_out_w(s);

	return (((size_t)n * P + (size_t)p) * Q + (size_t)q) * (size_t)s->k + (size_t)k;
}

double bench_conv_ref_fwd(const struct bench_conv_shape *s, const float *x, const float *w,
			  int n, int p, int q, int k, double *scale)
{
	double sum = 0, abs_sum = 0;

	for (int r = 0; r < s->r; r++) {
		int h = p * s->stride + r - s->pad;

		if (h < 0 || h >= s->h)
			continue;
		for (int t = 0; t < s->s; t++) {
			int wi = q * s->stride + t - s->pad;

			if (wi < 0 || wi >= s->w)
				continue;
			for (int c = 0; c < s->c; c++) {
				double v = (double)x[X(s, n, h, wi, c)] * w[W(s, k, r, t, c)];

				sum += v;
				abs_sum += fabs(v);
			}
		}
	}
	*scale = abs_sum;
	return sum;
}

double bench_conv_ref_bwd_data(const struct bench_conv_shape *s, const float *dy, const float *w,
			       int n, int h, int wi, int c, double *scale)
{
	int P = bench_conv_out_h(s), Q = bench_conv_out_w(s);
	double sum = 0, abs_sum = 0;

	for (int r = 0; r < s->r; r++) {
		int ph = h + s->pad - r;

		if (ph < 0 || ph % s->stride || ph / s->stride >= P)
			continue;
		for (int t = 0; t < s->s; t++) {
			int qw = wi + s->pad - t;

			if (qw < 0 || qw % s->stride || qw / s->stride >= Q)
				continue;
			for (int k = 0; k < s->k; k++) {
				double v = (double)dy[bench_conv_yidx(s, n, ph / s->stride, qw / s->stride, k)] *
					   w[W(s, k, r, t, c)];

				sum += v;
				abs_sum += fabs(v);
			}
		}
	}
	*scale = abs_sum;
	return sum;
}

double bench_conv_ref_bwd_filter(const struct bench_conv_shape *s, const float *x, const float *dy,
				 int k, int r, int si, int c, double *scale)
{
	int P = bench_conv_out_h(s), Q = bench_conv_out_w(s);
	double sum = 0, abs_sum = 0;

	for (int n = 0; n < s->n; n++)
		for (int p = 0; p < P; p++) {
			int h = p * s->stride + r - s->pad;

			if (h < 0 || h >= s->h)
				continue;
			for (int q = 0; q < Q; q++) {
				int wi = q * s->stride + si - s->pad;
				double v;

				if (wi < 0 || wi >= s->w)
					continue;
				v = (double)dy[bench_conv_yidx(s, n, p, q, k)] * x[X(s, n, h, wi, c)];
				sum += v;
				abs_sum += fabs(v);
			}
		}
	*scale = abs_sum;
	return sum;
}

void bench_conv_naive_fwd(const struct bench_conv_shape *s, const float *x, const float *w, float *y)
{
	int P = bench_conv_out_h(s), Q = bench_conv_out_w(s);
	double scale;

	for (int n = 0; n < s->n; n++)
		for (int p = 0; p < P; p++)
			for (int q = 0; q < Q; q++)
				for (int k = 0; k < s->k; k++)
					y[bench_conv_yidx(s, n, p, q, k)] =
						(float)bench_conv_ref_fwd(s, x, w, n, p, q, k, &scale);
}

size_t bench_conv_col_elems(const struct bench_conv_shape *s)
{
	return (size_t)bench_conv_out_h(s) * (size_t)bench_conv_out_w(s) *
	       (size_t)s->r * (size_t)s->s * (size_t)s->c;
}

/* Row (p, q) of the column matrix holds the R x S x C patch under output
 * (p, q), zeros where the patch hangs over the padding. */
static void bench_conv_im2col_one(const struct bench_conv_shape *s, const float *x, int n, float *col)
{
	int P = bench_conv_out_h(s), Q = bench_conv_out_w(s);
	size_t c = (size_t)s->c;

	for (int p = 0; p < P; p++)
		for (int q = 0; q < Q; q++)
			for (int r = 0; r < s->r; r++) {
				int h = p * s->stride + r - s->pad;

				for (int t = 0; t < s->s; t++) {
					int wi = q * s->stride + t - s->pad;

					if (h < 0 || h >= s->h || wi < 0 || wi >= s->w)
						memset(col, 0, c * sizeof(float));
					else
						memcpy(col, x + X(s, n, h, wi, 0), c * sizeof(float));
					col += c;
				}
			}
}

void bench_conv_transpose_w(const struct bench_conv_shape *s, const float *w, float *wt)
{
	size_t rsc = (size_t)s->r * (size_t)s->s * (size_t)s->c, k = (size_t)s->k;

	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < rsc; j++)
			wt[j * k + i] = w[i * rsc + j];
}

void bench_conv_im2col_fwd(const struct bench_conv_shape *s, const float *x, const float *wt,
			   float *y, float *col, bench_conv_sgemm sgemm, void *ctx)
{
	int pq = bench_conv_out_h(s) * bench_conv_out_w(s), rsc = s->r * s->s * s->c;

	for (int n = 0; n < s->n; n++) {
		bench_conv_im2col_one(s, x, n, col);
		/* y[n] (PQ x K) = col (PQ x RSC) * wt (RSC x K). */
		sgemm(ctx, pq, s->k, rsc, col, wt, y + (size_t)n * (size_t)pq * (size_t)s->k);
	}
}
