/*
 * bench_conv.h - the convolution layer bench measures: its shape, its
 * arithmetic, its inputs and a CPU reference.  Pure functions, no GPU.
 *
 * Layout is NHWC for activations and KRSC for filters (channels last, the
 * layout tensor cores read without a transpose and the one mixed-precision
 * training uses).  Convolution is cross-correlation (what cuDNN's
 * CUDNN_CROSS_CORRELATION and torch.nn.functional.conv2d compute).
 * The three directions all cost 2*N*K*P*Q*C*R*S operations:
 *	forward		y[n,p,q,k]  = sum_{c,r,s} x[n,p*u+r-pad,q*v+s-pad,c] * w[k,r,s,c]
 *	backward data	dx[n,h,w,c] = sum_{k,r,s} dy[n,p,q,k] * w[k,r,s,c]  (h = p*u+r-pad)
 *	backward filter	dw[k,r,s,c] = sum_{n,p,q} dy[n,p,q,k] * x[n,p*u+r-pad,q*v+s-pad,c]
 *
 *	struct bench_conv_shape s = BENCH_CONV_RESNET;
 *	double f = bench_conv_flops(&s);
 *	double ref = bench_conv_ref_fwd(&s, x, w, n, p, q, k, &scale);
 */
#ifndef GD_BENCH_CONV_H
#define GD_BENCH_CONV_H

#include <stddef.h>
#include <stdint.h>

struct bench_conv_shape {
	int n, c, h, w;		/* input: batch, channels, height, width */
	int k, r, s;		/* filters: count, height, width */
	int pad, stride;	/* the same along both axes */
};

/* ResNet-50's conv2_x 3x3 layer at batch 32: 118.4 GFLOP per direction. */
#define BENCH_CONV_RESNET { 32, 256, 56, 56, 256, 3, 3, 1, 1 }
/* The short form of `check --deep`: small enough for well under a second. */
#define BENCH_CONV_SMOKE { 2, 64, 16, 16, 64, 3, 3, 1, 1 }

/* "N,C,H,W,K[,R,S[,pad[,stride]]]" (R=S=3, pad=1, stride=1 when left out)
 * into *s; -1 when it is not that or bench_conv_valid() refuses it. */
int bench_conv_shape_parse(const char *text, struct bench_conv_shape *s);

enum bench_conv_dir { BENCH_CONV_FWD, BENCH_CONV_BWD_DATA, BENCH_CONV_BWD_FILTER, BENCH_CONV_NDIRS };

const char *bench_conv_dir_name(enum bench_conv_dir d);	/* "fwd", "bwd_data", "bwd_filter" */
const char *bench_conv_dir_label(enum bench_conv_dir d);	/* "forward", ... */

/* Output height and width; -1 when the shape is not valid. */
int bench_conv_out_h(const struct bench_conv_shape *s);
int bench_conv_out_w(const struct bench_conv_shape *s);
/* 0 when every size is positive, the output is not empty and no tensor
 * has more than 2^31 - 1 elements; -1 otherwise. */
int bench_conv_valid(const struct bench_conv_shape *s);
/* Elements of x (NHWC), w (KRSC), y (NPQK). */
size_t bench_conv_x_elems(const struct bench_conv_shape *s);
size_t bench_conv_w_elems(const struct bench_conv_shape *s);
size_t bench_conv_y_elems(const struct bench_conv_shape *s);
/* 2*N*K*P*Q*C*R*S: the multiply-adds of one direction, counted twice. */
double bench_conv_flops(const struct bench_conv_shape *s);
/* TFLOP/s of one pass that took ms milliseconds; NAN when ms <= 0. */
double bench_conv_tflops(const struct bench_conv_shape *s, double ms);

/* Fill v[n] with multiples of 1/128 in [-1, 1) from seed (xorshift).  Eight
 * significant bits are exact in FP32, TF32, FP16 and BF16 alike, so one set
 * of inputs serves every precision and the reference sees what the GPU sees. */
void bench_conv_fill(float *v, size_t n, uint64_t seed);
/* Fill v[n] with uniform values in [-1, 1) using the whole FP32 mantissa:
 * what the timed runs use, since tensor-core power (and so the clocks) on
 * Hopper depends on how many bits toggle, and real activations use them all. */
void bench_conv_fill_full(float *v, size_t n, uint64_t seed);

/* One entry of each direction in float64; *scale gets the sum of the
 * absolute products (the natural size of rounding errors). */
double bench_conv_ref_fwd(const struct bench_conv_shape *s, const float *x, const float *w,
			  int n, int p, int q, int k, double *scale);
double bench_conv_ref_bwd_data(const struct bench_conv_shape *s, const float *dy, const float *w,
			       int n, int h, int wi, int c, double *scale);
double bench_conv_ref_bwd_filter(const struct bench_conv_shape *s, const float *x, const float *dy,
				 int k, int r, int si, int c, double *scale);

/* The whole forward pass, plainly (float64 accumulation), for tests. */
void bench_conv_naive_fwd(const struct bench_conv_shape *s, const float *x, const float *w, float *y);

/*
 * The forward pass as im2col + SGEMM, one image at a time: the way a CPU
 * framework runs a convolution on a BLAS.  sgemm computes row-major
 * C (m x n) = A (m x k) * B (k x n).  wt is the filters transposed to
 * RSC x K (bench_conv_transpose_w); col needs bench_conv_col_elems() floats.
 */
typedef void (*bench_conv_sgemm)(void *ctx, int m, int n, int k, const float *a,
				 const float *b, float *c);
size_t bench_conv_col_elems(const struct bench_conv_shape *s);
void bench_conv_transpose_w(const struct bench_conv_shape *s, const float *w, float *wt);
void bench_conv_im2col_fwd(const struct bench_conv_shape *s, const float *x, const float *wt,
			   float *y, float *col, bench_conv_sgemm sgemm, void *ctx);

#endif
