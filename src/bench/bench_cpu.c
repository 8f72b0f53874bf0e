/* bench_cpu.c - the CPU SGEMM baseline in the child; see bench_cpu.h. */
#include "bench/bench_conv.h"
#include "bench/bench_cpu.h"
#include "bench/bench_progress.h"
#include "bench/bench_sgemm.h"
#include "core/child.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cblas.h: CblasRowMajor = 101, CblasNoTrans = 111. */
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111

typedef void (*cblas_sgemm32_fn)(int, int, int, int, int, int, float, const float *, int,
				 const float *, int, float, float *, int);
typedef void (*cblas_sgemm64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
				 int64_t, const float *, int64_t, float, float *, int64_t);

struct cpu_lib {
	char *path;
	const char *impl;
	cblas_sgemm32_fn s32;
	cblas_sgemm64_fn s64;
	int generic;	/* not a known optimised BLAS: compare with our kernel */
};

static void *cpu_sym(void *h, const char *name)
{
	return dlsym(h, name);
}

static int cpu_lib_open(const char *name, struct cpu_lib *lib)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL), *p;
	struct link_map *lm = NULL;

	memset(lib, 0, sizeof(*lib));
	if (!h)
		return -1;
	if ((p = cpu_sym(h, "cblas_sgemm")) || (p = cpu_sym(h, "scipy_cblas_sgemm")))
		memcpy(&lib->s32, &p, sizeof(p));
	else if ((p = cpu_sym(h, "scipy_cblas_sgemm64_")) || (p = cpu_sym(h, "cblas_sgemm64_")))
		memcpy(&lib->s64, &p, sizeof(p));
	else
		return -1;	/* stays loaded: harmless in a child about to exit */
	if (cpu_sym(h, "openblas_get_config") || cpu_sym(h, "scipy_openblas_get_config") ||
	    cpu_sym(h, "scipy_openblas_get_config64_"))
		lib->impl = "openblas";
	else if (cpu_sym(h, "MKL_Get_Version_String") || cpu_sym(h, "mkl_get_version_string"))
		lib->impl = "mkl";
	else if (cpu_sym(h, "bli_info_get_version_str"))
		lib->impl = "blis";
	else {
		lib->impl = "cblas";
		lib->generic = 1;
	}
	lib->path = xstrdup(dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name
			    ? lm->l_name : name);
	return 0;
}

static int cpu_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && (n = CPU_COUNT(&set)) > 0)
		return n > 64 ? 64 : n;
	return 1;
}

static void cpu_fill(float *v, size_t n, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (float)((double)(x >> 40) / 8388608.0 - 1.0);
	}
}

static void cpu_run(const struct cpu_lib *lib, int n, const float *a, const float *b, float *c,
		    int threads)
{
	if (lib && lib->s32)
		lib->s32(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n, 1.0f, a, n, b, n,
			 0.0f, c, n);
	else if (lib && lib->s64)
		lib->s64(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n, 1.0f, a, n, b, n,
			 0.0f, c, n);
	else
		bench_sgemm_blocked(n, n, n, a, b, c, threads);
}

/* Worst error of sampled entries against float64, relative to sum |a*b|. */
static double cpu_check(int n, const float *a, const float *b, const float *c)
{
	double worst = 0;
	uint64_t x = 0x51ed2701u;

	for (int s = 0; s < 16; s++) {
		int i, j;
		double sum = 0, abs_sum = 0, err;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = (int)(x % (uint64_t)n);
		j = (int)((x >> 32) % (uint64_t)n);
		for (int p = 0; p < n; p++) {
			double t = (double)a[(long)i * n + p] * b[(long)p * n + j];

			sum += t;
			abs_sum += fabs(t);
		}
		err = isfinite(c[(long)i * n + j]) ? fabs(c[(long)i * n + j] - sum) / (abs_sum > 0 ? abs_sum : 1) : INFINITY;
		if (err > worst)
			worst = err;
	}
	return worst;
}

/* |got - ref| / scale, +inf for NaN. */
static double bench_rel_err_cpu(double got, double ref, double scale)
{
	if (!isfinite(got))
		return INFINITY;
	return fabs(got - ref) / (scale > 0 ? scale : 1);
}

struct cpu_outcome {
	double gflops;
	int n;
	double err;
};

static void cpu_measure_one(const struct cpu_lib *lib, int quick, int threads, struct cpu_outcome *out)
{
	double budget = quick ? 0.4 : 1.2, run_cap = quick ? 0.12 : 0.35, t0 = child_now();
	int nmax = quick ? 2048 : 4096;

	out->gflops = NAN;
	out->n = -1;
	out->err = NAN;
	for (int n = 256; n <= nmax; n *= 2) {
		size_t cnt = (size_t)n * n;
		float *a = xmalloc(cnt * sizeof(float)), *b = xmalloc(cnt * sizeof(float));
		float *c = xmalloc(cnt * sizeof(float));
		double best = INFINITY, t;
		int runs = 0;

		cpu_fill(a, cnt, 0x1234567u + (uint64_t)n);
		cpu_fill(b, cnt, 0x7654321u + (uint64_t)n);
		bench_progress("gpudoctor bench: CPU: %s SGEMM %dx%dx%d...", lib ? lib->impl : "gpudoctor", n, n, n);
		cpu_run(lib, n, a, b, c, threads);	/* warm-up, and threads started */
		do {
			double s = child_now();

			cpu_run(lib, n, a, b, c, threads);
			t = child_now() - s;
			if (t < best)
				best = t;
			runs++;
		} while (runs < 3 && best < run_cap / 4);
		if (best > 0 && (isnan(out->gflops) || 2.0 * n * (double)n * n / best / 1e9 > out->gflops)) {
			out->gflops = 2.0 * n * (double)n * n / best / 1e9;
			out->n = n;
		}
		out->err = cpu_check(n, a, b, c);
		free(a);
		free(b);
		free(c);
		if (out->err > 1e-4 || best > run_cap || child_now() - t0 + 8 * best > budget)
			break;
	}
}

struct cpu_gemm_ctx {
	const struct cpu_lib *lib;
	int threads;
};

static void cpu_sgemm_nn(void *vctx, int m, int n, int k, const float *a, const float *b, float *c)
{
	const struct cpu_gemm_ctx *x = vctx;

	if (x->lib && x->lib->s32)
		x->lib->s32(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
	else if (x->lib && x->lib->s64)
		x->lib->s64(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
	else
		bench_sgemm_blocked(m, n, k, a, b, c, x->threads);
}

/*
 * The CNN layer of the GPU's cuDNN bench (3x3, 256 -> 256 channels, 56x56)
 * for one image, as im2col + the SGEMM just measured: the seed's "same
 * layer on the CPU".  Best of up to 3 passes; sampled outputs checked
 * against the float64 reference.
 */
static void cpu_conv(const struct cpu_lib *lib, int quick, int threads)
{
	struct bench_conv_shape s = BENCH_CONV_RESNET;
	struct cpu_gemm_ctx ctx = { lib, threads };
	float *x, *w, *wt, *y, *col;
	double best = INFINITY, worst = 0, t0 = child_now();
	uint64_t rnd = 0x5bd1e995u;

	s.n = 1;
	x = xmalloc(bench_conv_x_elems(&s) * sizeof(float));
	w = xmalloc(bench_conv_w_elems(&s) * sizeof(float));
	wt = xmalloc(bench_conv_w_elems(&s) * sizeof(float));
	y = xmalloc(bench_conv_y_elems(&s) * sizeof(float));
	col = xmalloc(bench_conv_col_elems(&s) * sizeof(float));
	bench_conv_fill(x, bench_conv_x_elems(&s), 0x1234567ull);
	bench_conv_fill(w, bench_conv_w_elems(&s), 0x7654321ull);
	bench_conv_transpose_w(&s, w, wt);
	bench_progress("gpudoctor bench: CPU: CNN layer, im2col + %s SGEMM...", lib ? lib->impl : "gpudoctor");
	for (int run = 0; run < 3; run++) {
		double t = child_now();

		bench_conv_im2col_fwd(&s, x, wt, y, col, cpu_sgemm_nn, &ctx);
		t = child_now() - t;
		if (t < best)
			best = t;
		if (quick || child_now() - t0 > 1.0)
			break;
	}
	for (int i = 0; i < 32; i++) {
		int p, q, k;
		double scale, ref;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		p = (int)(rnd % 56);
		q = (int)((rnd >> 16) % 56);
		k = (int)((rnd >> 32) % 256);
		if (i == 0)
			p = q = k = 0;
		ref = bench_conv_ref_fwd(&s, x, w, 0, p, q, k, &scale);
		scale = bench_rel_err_cpu(y[((size_t)p * 56 + (size_t)q) * 256 + (size_t)k], ref, scale);
		if (scale > worst)
			worst = scale;
	}
	kv_emit("cpu.conv_gflops", "%.2f", bench_conv_flops(&s) / best / 1e9);
	kv_emit("cpu.conv_verified", "%d", worst <= 1e-4);
	kv_emit("cpu.conv_max_err", "%.3g", worst);
	kv_emit("cpu.conv_method", "the layer N=1 C=256 H=56 W=56 K=256 3x3 pad 1 as im2col + %s SGEMM (3136x256x2304), best of up to 3 passes",
		lib ? lib->path : "gpudoctor's blocked");
	free(x);
	free(w);
	free(wt);
	free(y);
	free(col);
}

int bench_cpu_measure(const struct bench_cpu_opts *o)
{
	static const char *const sonames[] = {
		"libopenblas.so.0", "libmkl_rt.so.2", "libmkl_rt.so", "libblis.so.4",
		"libblas.so.3", NULL
	};
	struct cpu_lib lib;
	struct cpu_outcome lib_out = { NAN, -1, NAN }, own_out = { NAN, -1, NAN };
	int have_lib = 0, threads = cpu_threads();
	double start = child_now();
	const struct cpu_outcome *use;

	for (const char *const *c = o->blas; !o->no_blas && c && *c && !have_lib; c++)
		have_lib = cpu_lib_open(*c, &lib) == 0;
	for (const char *const *c = sonames; !o->no_blas && *c && !have_lib; c++)
		have_lib = cpu_lib_open(*c, &lib) == 0;
	if (have_lib)
		cpu_measure_one(&lib, o->quick, threads, &lib_out);
	if (!have_lib || lib.generic || !(lib_out.gflops > 0))
		cpu_measure_one(NULL, o->quick, threads, &own_out);
	use = have_lib && (lib_out.gflops > 0) && !(own_out.gflops > lib_out.gflops) ? &lib_out : &own_out;
	if (use == &lib_out) {
		kv_emit("cpu.impl", "%s", lib.impl);
		kv_emit("cpu.library", "%s", lib.path);
		kv_emit("cpu.method", "cblas_sgemm (row-major, no transposes) from %s, best of up to 3 runs at the size shown", lib.path);
	} else {
		kv_emit("cpu.impl", "gpudoctor-blocked");
		kv_emit("cpu.threads", "%d", threads);
		kv_emit("cpu.method", "gpudoctor's own blocked SGEMM on %d thread%s%s, best of up to 3 runs at the size shown",
			threads, threads == 1 ? "" : "s",
			have_lib ? " (faster than the generic CBLAS found)" : " (no CBLAS library found)");
		if (have_lib)
			kv_emit("cpu.library_skipped", "%s", lib.path);
	}
	kv_emit("cpu.n", "%d", use->n);
	kv_emit("cpu.gflops", "%.2f", use->gflops);
	kv_emit("cpu.verified", "%d", use->err <= 1e-4);
	kv_emit("cpu.max_err", "%.3g", use->err);
	cpu_conv(use == &lib_out ? &lib : NULL, o->quick, threads);
	kv_emit("cpu.seconds", "%.3f", child_now() - start);
	if (have_lib)
		free(lib.path);
	return 0;
}
