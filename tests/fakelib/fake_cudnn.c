/*
 * fake_cudnn.c - a fake libcudnn.so.9 for the bench and check --deep tests
 * (no GPU).  Works with fake_bench_cuda.c: "device" pointers are host
 * pointers, and each convolution advances that fake libcuda's virtual clock
 * by 2*N*K*P*Q*C*R*S / FAKE_CUDNN_TFLOPS, so bench's figures are exact.
 * The convolutions are computed for real (NHWC, KRSC, FP32/FP16/BF16, FP32
 * accumulation): use small shapes.
 *
 * Environment (all optional):
 *   FAKE_CUDNN_VERSION      cudnnGetVersion (91900)
 *   FAKE_CUDNN_CREATE_RC    cudnnCreate's status (0; 1001 = NOT_INITIALIZED)
 *   FAKE_CUDNN_CONV_RC      every convolution's status (0; 3007 = ARCH_MISMATCH)
 *   FAKE_CUDNN_LAST_ERROR   what cudnnGetLastErrorString says
 *   FAKE_CUDNN_WRONG        1: add 1 to every output (a wrong result)
 *   FAKE_CUDNN_HANG         1: never return from a forward convolution
 *   FAKE_CUDNN_TFLOPS       the virtual rate (500)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int st_t;
struct tdesc { int dt, n, c, h, w; };
struct fdesc { int dt, k, c, r, s; };
struct cdesc { int pad, stride, math; };
struct perf { int algo; st_t status; float time; size_t memory; int det, math; int reserved[3]; };

static double env_d(const char *name, double def)
{
	const char *s = getenv(name);

	return s && *s ? atof(s) : def;
}

static float h2f(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
	float f;

	if (e == 0) {
		f = (float)m / 16777216.0f;
		return s ? -f : f;
	}
	u = s | ((e + 112) << 23) | (m << 13);
	if (e == 31)
		u = s | 0x7f800000u | (m << 13);
	memcpy(&f, &u, 4);
	return f;
}

static uint16_t f2h(float f)
{
	uint32_t u;
	int e;

	memcpy(&u, &f, 4);
	e = (int)((u >> 23) & 0xff) - 112;
	if (e <= 0)
		return (uint16_t)((u >> 16) & 0x8000);
	if (e >= 31)
		return (uint16_t)(((u >> 16) & 0x8000) | 0x7c00);
	u += 0x1000;	/* round half up: close enough for a fake */
	e = (int)((u >> 23) & 0xff) - 112;
	return (uint16_t)(((u >> 16) & 0x8000) | (uint32_t)(e << 10) | ((u >> 13) & 0x3ff));
}

static float ld(const void *p, size_t i, int dt)
{
	if (dt == 0)
		return ((const float *)p)[i];
	if (dt == 2)
		return h2f(((const uint16_t *)p)[i]);
	{
		uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;

		memcpy(&f, &u, 4);
		return f;
	}
}

static void st(void *p, size_t i, int dt, float v)
{
	if (getenv("FAKE_CUDNN_WRONG") && atoi(getenv("FAKE_CUDNN_WRONG")))
		v += 1.0f;
	if (dt == 0)
		((float *)p)[i] = v;
	else if (dt == 2)
		((uint16_t *)p)[i] = f2h(v);
	else {
		uint32_t u;

		memcpy(&u, &v, 4);
		((uint16_t *)p)[i] = (uint16_t)((u + 0x8000) >> 16);
	}
}

static void advance(const struct tdesc *x, const struct fdesc *w)
{
	void (*adv)(double);
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *sym = cuda ? dlsym(cuda, "fake_cuda_advance") : NULL;
	double flops = 2.0 * x->n * w->k * x->h * x->w * x->c * w->r * w->s;

	if (!sym)
		return;
	memcpy(&adv, &sym, sizeof(sym));
	adv(flops / (env_d("FAKE_CUDNN_TFLOPS", 500) * 1e12));
}

static char last_error[256];

static st_t conv_rc(void)
{
	const char *m = getenv("FAKE_CUDNN_LAST_ERROR");

	if (m)
		snprintf(last_error, sizeof(last_error), "%s", m);
	return (st_t)env_d("FAKE_CUDNN_CONV_RC", 0);
}

size_t cudnnGetVersion(void) { return (size_t)env_d("FAKE_CUDNN_VERSION", 91900); }
const char *cudnnGetErrorString(st_t s)
{
	switch (s) {
	case 0: return "CUDNN_STATUS_SUCCESS";
	case 1001: return "CUDNN_STATUS_NOT_INITIALIZED";
	case 3007: return "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH";
	case 5000: return "CUDNN_STATUS_EXECUTION_FAILED";
	default: return "CUDNN_STATUS_UNKNOWN";
	}
}
void cudnnGetLastErrorString(char *m, size_t n) { snprintf(m, n, "%s", last_error); last_error[0] = 0; }
st_t cudnnCreate(void **h) { *h = malloc(1); return (st_t)env_d("FAKE_CUDNN_CREATE_RC", 0); }
st_t cudnnDestroy(void *h) { free(h); return 0; }
st_t cudnnSetStream(void *h, void *s) { (void)h; (void)s; return 0; }
st_t cudnnCreateTensorDescriptor(struct tdesc **d) { *d = calloc(1, sizeof(**d)); return 0; }
st_t cudnnDestroyTensorDescriptor(struct tdesc *d) { free(d); return 0; }
st_t cudnnSetTensor4dDescriptor(struct tdesc *d, int fmt, int dt, int n, int c, int h, int w)
{
	if (fmt != 1)
		return 2000;	/* the fake knows NHWC only */
	*d = (struct tdesc){ dt, n, c, h, w };
	return 0;
}
st_t cudnnCreateFilterDescriptor(struct fdesc **d) { *d = calloc(1, sizeof(**d)); return 0; }
st_t cudnnDestroyFilterDescriptor(struct fdesc *d) { free(d); return 0; }
st_t cudnnSetFilter4dDescriptor(struct fdesc *d, int dt, int fmt, int k, int c, int r, int s)
{
	if (fmt != 1)
		return 2000;
	*d = (struct fdesc){ dt, k, c, r, s };
	return 0;
}
st_t cudnnCreateConvolutionDescriptor(struct cdesc **d) { *d = calloc(1, sizeof(**d)); return 0; }
st_t cudnnDestroyConvolutionDescriptor(struct cdesc *d) { free(d); return 0; }
st_t cudnnSetConvolution2dDescriptor(struct cdesc *d, int ph, int pw, int u, int v, int dh, int dw, int mode, int ct)
{
	(void)pw; (void)v; (void)dh; (void)dw; (void)mode; (void)ct;
	d->pad = ph;
	d->stride = u;
	return 0;
}
st_t cudnnSetConvolutionMathType(struct cdesc *d, int m) { d->math = m; return 0; }
st_t cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int algo, size_t *b)
{
	(void)h; (void)x; (void)w; (void)c; (void)y; (void)algo;
	*b = 4096;
	return 0;
}

static int outdim(int in, int f, const struct cdesc *c) { return (in + 2 * c->pad - f) / c->stride + 1; }

/* dir 0: y = x * w; 1: dx from dy and w; 2: dw from x and dy. */
static st_t conv(int dir, const struct tdesc *xd, const void *x, const struct fdesc *wd, const void *w,
		 const struct cdesc *cd, const void *dy, void *out)
{
	int P = outdim(xd->h, wd->r, cd), Q = outdim(xd->w, wd->s, cd), dt = xd->dt;
	st_t rc = conv_rc();

	if (rc)
		return rc;
	if (dir == 0 && getenv("FAKE_CUDNN_HANG") && atoi(getenv("FAKE_CUDNN_HANG")))
		for (;;)
			pause();
	if (dir == 0) {
		for (int n = 0; n < xd->n; n++) for (int p = 0; p < P; p++) for (int q = 0; q < Q; q++)
		for (int k = 0; k < wd->k; k++) {
			float acc = 0;

			for (int r = 0; r < wd->r; r++) for (int s = 0; s < wd->s; s++) {
				int h = p * cd->stride + r - cd->pad, ww = q * cd->stride + s - cd->pad;

				if (h < 0 || h >= xd->h || ww < 0 || ww >= xd->w)
					continue;
				for (int c = 0; c < xd->c; c++)
					acc += ld(x, (((size_t)n * xd->h + h) * xd->w + ww) * xd->c + c, dt) *
					       ld(w, (((size_t)k * wd->r + r) * wd->s + s) * wd->c + c, dt);
			}
			st(out, (((size_t)n * P + p) * Q + q) * wd->k + k, dt, acc);
		}
	} else if (dir == 1) {
		for (int n = 0; n < xd->n; n++) for (int h = 0; h < xd->h; h++) for (int ww = 0; ww < xd->w; ww++)
		for (int c = 0; c < xd->c; c++) {
			float acc = 0;

			for (int r = 0; r < wd->r; r++) for (int s = 0; s < wd->s; s++) {
				int ph = h + cd->pad - r, qw = ww + cd->pad - s;

				if (ph < 0 || qw < 0 || ph % cd->stride || qw % cd->stride || ph / cd->stride >= P || qw / cd->stride >= Q)
					continue;
				for (int k = 0; k < wd->k; k++)
					acc += ld(dy, (((size_t)n * P + ph / cd->stride) * Q + qw / cd->stride) * wd->k + k, dt) *
					       ld(w, (((size_t)k * wd->r + r) * wd->s + s) * wd->c + c, dt);
			}
			st(out, (((size_t)n * xd->h + h) * xd->w + ww) * xd->c + c, dt, acc);
		}
	} else {
		for (int k = 0; k < wd->k; k++) for (int r = 0; r < wd->r; r++) for (int s = 0; s < wd->s; s++)
		for (int c = 0; c < wd->c; c++) {
			float acc = 0;

			for (int n = 0; n < xd->n; n++) for (int p = 0; p < P; p++) for (int q = 0; q < Q; q++) {
				int h = p * cd->stride + r - cd->pad, ww = q * cd->stride + s - cd->pad;

				if (h < 0 || h >= xd->h || ww < 0 || ww >= xd->w)
					continue;
				acc += ld(dy, (((size_t)n * P + p) * Q + q) * wd->k + k, dt) *
				       ld(x, (((size_t)n * xd->h + h) * xd->w + ww) * xd->c + c, dt);
			}
			st(out, (((size_t)k * wd->r + r) * wd->s + s) * wd->c + c, dt, acc);
		}
	}
	advance(xd, wd);
	return 0;
}

static st_t find(int *ret, struct perf *p, const struct cdesc *cd)
{
	st_t rc = conv_rc();

	if (rc)
		return rc;
	*ret = 1;
	memset(p, 0, sizeof(*p));
	p->algo = 1;
	p->time = 0.1f;
	p->math = cd->math;
	return 0;
}

st_t cudnnFindConvolutionForwardAlgorithmEx(void *h, struct tdesc *xd, void *x, struct fdesc *wd, void *w,
					    struct cdesc *cd, struct tdesc *yd, void *y, int req, int *ret,
					    struct perf *p, void *ws, size_t wsb)
{
	(void)h; (void)xd; (void)x; (void)wd; (void)w; (void)yd; (void)y; (void)req; (void)ws; (void)wsb;
	return find(ret, p, cd);
}
st_t cudnnFindConvolutionBackwardDataAlgorithmEx(void *h, struct fdesc *wd, void *w, struct tdesc *dyd, void *dy,
						 struct cdesc *cd, struct tdesc *dxd, void *dx, int req, int *ret,
						 struct perf *p, void *ws, size_t wsb)
{
	(void)h; (void)wd; (void)w; (void)dyd; (void)dy; (void)dxd; (void)dx; (void)req; (void)ws; (void)wsb;
	return find(ret, p, cd);
}
st_t cudnnFindConvolutionBackwardFilterAlgorithmEx(void *h, struct tdesc *xd, void *x, struct tdesc *dyd, void *dy,
						   struct cdesc *cd, struct fdesc *dwd, void *dw, int req, int *ret,
						   struct perf *p, void *ws, size_t wsb)
{
	(void)h; (void)xd; (void)x; (void)dyd; (void)dy; (void)dwd; (void)dw; (void)req; (void)ws; (void)wsb;
	return find(ret, p, cd);
}
st_t cudnnConvolutionForward(void *h, const void *a, struct tdesc *xd, const void *x, struct fdesc *wd, const void *w,
			     struct cdesc *cd, int algo, void *ws, size_t wsb, const void *b, struct tdesc *yd, void *y)
{
	(void)h; (void)a; (void)algo; (void)ws; (void)wsb; (void)b; (void)yd;
	return conv(0, xd, x, wd, w, cd, NULL, y);
}
st_t cudnnConvolutionBackwardData(void *h, const void *a, struct fdesc *wd, const void *w, struct tdesc *dyd,
				  const void *dy, struct cdesc *cd, int algo, void *ws, size_t wsb, const void *b,
				  struct tdesc *dxd, void *dx)
{
	(void)h; (void)a; (void)dyd; (void)algo; (void)ws; (void)wsb; (void)b;
	return conv(1, dxd, NULL, wd, w, cd, dy, dx);
}
st_t cudnnConvolutionBackwardFilter(void *h, const void *a, struct tdesc *xd, const void *x, struct tdesc *dyd,
				    const void *dy, struct cdesc *cd, int algo, void *ws, size_t wsb, const void *b,
				    struct fdesc *dwd, void *dw)
{
	(void)h; (void)a; (void)dyd; (void)algo; (void)ws; (void)wsb; (void)b;
	return conv(2, xd, x, dwd, NULL, cd, dy, dw);
}
