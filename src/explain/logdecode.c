/* logdecode.c - decoding captured values; see logdecode.h. */
#include "explain/logdecode.h"

#include "core/xalloc.h"
#include "explain/errcodes.h"
#include "knowledge/kb.h"
#include "knowledge/kb_xid.h"
#include "knowledge/curesult.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A decimal number in s (all of it, at most 18 digits: no overflow of a
 * long), or -1: a sign, white space, hex, an exponent or junk is not one.
 */
long logdecode_number(const char *s)
{
	long v = 0;
	size_t n = 0;

	if (!s)
		return -1;
	for (; s[n]; n++) {
		if (!isdigit((unsigned char)s[n]) || n >= 18)
			return -1;
		v = v * 10 + (s[n] - '0');
	}
	return n ? v : -1;
}

/* Up to max hex digits at *p (at least one); advances *p.  0 or -1. */
static int hex_field(const char **p, int max, unsigned *out)
{
	unsigned v = 0;
	int n = 0;

	while (n < max && isxdigit((unsigned char)(*p)[n])) {
		char c = (char)tolower((unsigned char)(*p)[n]);

		v = v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	if (!n || isxdigit((unsigned char)(*p)[n]))
		return -1;
	*p += n;
	*out = v;
	return 0;
}

int logdecode_cc(const char *value, int *major, int *minor)
{
	const char *p = value;
	long v;

	if (!p)
		return -1;
	if (!strncmp(p, "sm_", 3))
		p += 3;
	else if (!strncmp(p, "compute_", 8))
		p += 8;
	else if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		/*
		 * TensorRT's "Unsupported SM: 0x601" (NVIDIA/TensorRT#3826, a GTX 1080 Ti,
		 * 6.1; #2727 "0x809", an RTX 4080, 8.9): major << 8 | minor, as 3 or 4
		 * hex digits and nothing after them.
		 */
		unsigned long h = 0;
		size_t n = 0;

		for (p += 2; n < 5 && isxdigit((unsigned char)p[n]); n++)
			h = h * 16 + (unsigned long)(isdigit((unsigned char)p[n]) ? p[n] - '0' : tolower((unsigned char)p[n]) - 'a' + 10);
		if (n < 3 || n > 4 || p[n] || (h >> 8) < 1 || (h >> 8) > 99 || (h & 0xff) > 9)
			return -1;
		*major = (int)(h >> 8);
		*minor = (int)(h & 0xff);
		return 0;
	}
	if (strchr(p, '.')) {
		/* "8.6", "12.0": one or two digits, a dot, one digit, nothing else */
		size_t n = 0;

		while (n < 3 && isdigit((unsigned char)p[n]))
			n++;
		if (n < 1 || n > 2 || p[n] != '.' || !isdigit((unsigned char)p[n + 1]) || p[n + 2])
			return -1;
		*major = n == 1 ? p[0] - '0' : (p[0] - '0') * 10 + (p[1] - '0');
		*minor = p[n + 1] - '0';
		if (*major < 1)
			return -1;
		return 0;
	}
	/* "86", "120", "90a" */
	{
		char digits[8];
		size_t n = 0;

		while (n < sizeof(digits) - 1 && isdigit((unsigned char)p[n])) {
			digits[n] = p[n];
			n++;
		}
		digits[n] = 0;
		if (n < 2 || n > 3 || (p[n] && !isalpha((unsigned char)p[n])))
			return -1;
		v = logdecode_number(digits);
		*major = (int)(v / 10);
		*minor = (int)(v % 10);
	}
	return 0;
}

int logdecode_pci(const char *value, char *out, unsigned long size)
{
	unsigned f[4] = { 0, 0, 0, 0 }, dom = 0, bus, dev, fn = 0;
	static const int width[4] = { 8, 2, 2, 1 };
	const char *p = value;
	int n = 0;

	if (!p || size < 16)
		return -1;
	if (!strncmp(p, "PCI:", 4))
		p += 4;
	/*
	 * dom:bus:dev[.fn] or bus:dev.fn, each field a bounded run of hex
	 * digits (a field too long is junk, never an overflow)
	 */
	while (n < 3) {
		if (hex_field(&p, width[n], &f[n]) < 0)
			return -1;
		n++;
		if (*p != ':')
			break;
		p++;
	}
	if (*p == '.') {
		p++;
		if (hex_field(&p, 1, &f[3]) < 0)
			return -1;
		fn = f[3];
	} else if (n == 2) {
		return -1;	/* bus:dev needs its function */
	}
	if (*p || n < 2)
		return -1;
	if (n == 3) {
		dom = f[0];
		bus = f[1];
		dev = f[2];
	} else {
		if (f[0] > 0xff)
			return -1;
		bus = f[0];
		dev = f[1];
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	snprintf(out, size, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static char *decode_cuda_int(const struct kb *kb, long v, const char *what)
{
	const char *min;

	if (v < 1000 || v > 99999)
		return NULL;
	min = kb ? kb_cuda_min_driver(kb, (int)v) : NULL;
	if (min)
		return xasprintf("CUDA %ld.%ld %s (CUDA %ld.%ld's toolkit needs driver >= %s)", v / 1000,
				 (v % 1000) / 10, what, v / 1000, (v % 1000) / 10, min);
	return xasprintf("CUDA %ld.%ld %s", v / 1000, (v % 1000) / 10, what);
}

static const char *soname_family(const char *s)
{
	static const struct { const char *prefix, *name; } fam[] = {
		{ "libcudnn", "cuDNN" }, { "libcudart", "the CUDA runtime" },
		{ "libcublasLt", "cuBLASLt" }, { "libcublas", "cuBLAS" }, { "libcufft", "cuFFT" },
		{ "libcurand", "cuRAND" }, { "libcusolver", "cuSOLVER" }, { "libcusparse", "cuSPARSE" },
		{ "libnccl", "NCCL" }, { "libnvJitLink", "nvJitLink" }, { "libnvrtc", "NVRTC" },
		{ "libcuda.", "the CUDA driver library" }, { "libnvidia-ml", "NVML (the driver)" },
		{ "libnvinfer", "TensorRT" }, { "libcupti", "CUPTI" },
	};

	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++)
		if (!strncmp(s, fam[i].prefix, strlen(fam[i].prefix)))
			return fam[i].name;
	return NULL;
}

/*
 * Windows names the same libraries without "lib" and with the version in
 * the name: cudart64_110.dll (CUDA 11.0), cudart64_101.dll (10.1),
 * cudart64_12.dll (12), cublas64_11.dll, cudnn64_8.dll, cufft64_10.dll (the
 * library's own major).  Three digits are major and minor (cudart64_110,
 * cublas64_100); two digits from 20 up are CUDA 8-9's (cudart64_92: 9.2).
 */
static char *decode_dll(const char *value)
{
	char lib[64];
	const char *f, *u = strstr(value, "64_"), *dot = strrchr(value, '.');
	size_t n = 0;
	long v;

	if (!u || !dot || strcmp(dot, ".dll") || strchr(value, '/') || strchr(value, '\\') ||
	    (size_t)(u - value) + 4 > sizeof(lib))
		return NULL;
	snprintf(lib, sizeof(lib), "lib%.*s", (int)(u - value), value);
	f = soname_family(lib);
	u += 3;
	while (isdigit((unsigned char)u[n]))
		n++;
	if (!f || n < 1 || n > 3 || u + n != dot)
		return NULL;
	v = strtol(u, NULL, 10);
	if (n == 3)
		return xasprintf("%s, CUDA %ld.%ld's (Windows DLL)", f, v / 10, v % 10);
	if (n == 2 && v >= 20)
		return xasprintf("%s, CUDA %ld.%ld's (Windows DLL)", f, v / 10, v % 10);
	return xasprintf("%s, major version %ld (Windows DLL)", f, v);
}

/* "found_cudnn_int" is read as "cudnn_int": the part after a prefix names the kind. */
static const char *decode_key(const char *name)
{
	static const char *const keys[] = { "driver_int", "cudnn_int", "cuda_int", "cuda_error",
					    "cuda_name", "cu_result", "cu_name", "soname", "bytes",
					    "xid", "pci", "sm", "cc" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = strlen(keys[i]);

		if (!strcmp(name, keys[i]) || (n > k + 1 && name[n - k - 1] == '_' && !strcmp(name + n - k, keys[i])))
			return keys[i];
	}
	return name;
}

char *logdecode(const struct kb *kb, const char *name, const char *value)
{
	return logdecode_line(kb, name, value, NULL);
}

char *logdecode_cudart(const char *value, int era, const char *line)
{
	long v = value ? logdecode_number(value) : -1;
	const struct errcode *ec, *cur, *old;

	if (v < 0)
		return NULL;
	ec = errcode_cudart(v, (enum cudart_era)era, line);
	if (ec)
		return xasprintf("cudaError_t %ld = %s%s", v, ec->name,
				 ec->family == ERR_CUDART_OLD ? " (the numbering of CUDA 10.0 and older)" :
				 errcode_cudart_other(v, ec) ? " (the numbering of CUDA 10.1 and newer)" : "");
	cur = errcode_by_number(ERR_CUDART, v);
	old = errcode_by_number(ERR_CUDART_OLD, v);
	if (cur && old)
		return xasprintf("cudaError_t %ld = %s since CUDA 10.1, %s in CUDA 10.0 and older "
				 "(the log does not say which)", v, cur->name, old->name);
	return NULL;
}

char *logdecode_line(const struct kb *kb, const char *name, const char *value, const char *line)
{
	long v;

	if (!name || !value || !*value)
		return NULL;
	name = decode_key(name);
	v = logdecode_number(value);
	if (!strcmp(name, "driver_int"))
		return v >= 0 ? decode_cuda_int(kb, v, "is the newest the driver supports") : NULL;
	if (!strcmp(name, "cuda_int"))
		return v >= 0 ? decode_cuda_int(kb, v, "") : NULL;
	if (!strcmp(name, "cudnn_int")) {
		int a, b, c;

		if (v <= 0)
			return NULL;
		kb_cudnn_decode(v, &a, &b, &c);
		return a > 0 ? xasprintf("cuDNN %d.%d.%d", a, b, c) : NULL;
	}
	if (!strcmp(name, "sm") || !strcmp(name, "cc")) {
		int a, b;
		const struct kb_arch *ar;

		if (logdecode_cc(value, &a, &b) < 0)
			return NULL;
		ar = kb ? kb_arch_info(kb, a, b) : NULL;
		return xasprintf("compute capability %d.%d%s%s%s", a, b, ar ? " (" : "",
				 ar ? ar->arch : "", ar ? ")" : "");
	}
	if (!strcmp(name, "cuda_error"))
		/* no era here: the numberings' agreement or the line's text (explain.c passes the era) */
		return logdecode_cudart(value, CUDART_ERA_UNKNOWN, line);
	if (!strcmp(name, "cuda_name")) {
		/* a name is the same in both numberings; its number is today's (the table lists it first) */
		const struct errcode *c = errcode_by_name(value, strlen(value));

		return c && c->family == ERR_CUDART ? xasprintf("%s = cudaError_t %ld", c->name, c->code) : NULL;
	}
	if (!strcmp(name, "cu_result")) {
		const struct curesult *c = v >= 0 && v < 100000 ? curesult_lookup((int)v) : NULL;

		if (!c)
			return NULL;
		return xasprintf("CUresult %ld = %s%s%s", v, c->name, c->hint ? ": " : "",
				 c->hint ? c->hint : "");
	}
	if (!strcmp(name, "cu_name")) {
		/* the table is small; look the name up by walking the codes */
		for (int code = 0; code < 1000; code++) {
			const struct curesult *c = curesult_lookup(code);

			if (c && !strcmp(c->name, value))
				return xasprintf("%s = CUresult %d%s%s", c->name, code, c->hint ? ": " : "",
						 c->hint ? c->hint : "");
		}
		return NULL;
	}
	if (!strcmp(name, "path")) {
		/* what a path gives away about where the log was written */
		if (strstr(value, "/stubs/libcuda.so"))
			return xstrdup("the CUDA toolkit's link-time stub of libcuda (lib64/stubs), not the "
				       "driver's library");
		if (!strncmp(value, "/usr/lib/wsl/", 13))
			return xstrdup("WSL's driver directory: the Windows driver's libraries, seen from WSL2");
		if (!strncmp(value, "/mnt/", 5) && value[5] >= 'a' && value[5] <= 'z' && value[6] == '/')
			return xasprintf("a Windows drive (%c:) as WSL mounts it: this log comes from WSL",
					 value[5] - 'a' + 'A');
		return NULL;
	}
	if (!strcmp(name, "cudnn_code") || !strcmp(name, "nccl_code") || !strcmp(name, "nvml_code")) {
		/* a number whose context named its API (errcodes.h) */
		const struct errcode *ec = v >= 0 ? errcode_by_number(
			(enum errcode_family)errcode_family_of_capture(name), v) : NULL;

		return ec ? xasprintf("%s %ld = %s", errcode_family_name(ec->family), ec->code, ec->name)
			  : NULL;
	}
	if (errcode_family_of_short_capture(name) >= 0) {
		/* a name without its API's prefix, in a context naming the API (errcodes.h) */
		const struct errcode *ec = errcode_by_short_name(
			(enum errcode_family)errcode_family_of_short_capture(name), value, strlen(value));

		return ec ? xasprintf("%s %ld = %s", errcode_family_name(ec->family), ec->code, ec->name)
			  : NULL;
	}
	if (!strcmp(name, "err_name")) {
		const struct errcode *ec = errcode_by_name(value, strlen(value));

		return ec ? xasprintf("%s %ld = %s", errcode_family_name(ec->family), ec->code, ec->name)
			  : NULL;
	}
	if (!strcmp(name, "xid")) {
		struct kb_xid x;
		char act[256];

		if (v < 0 || v > 100000 || !kb || kb_xid_find(kb, (int)v, &x) < 0)
			return NULL;
		return xasprintf("XID %ld: %s; %s", v, x.meaning,
				 kb_xid_action_text(&x, line, act, sizeof(act)));
	}
	if (!strcmp(name, "pci")) {
		char bdf[32];

		return logdecode_pci(value, bdf, sizeof(bdf)) == 0 && strcmp(bdf, value) ?
			       xasprintf("PCI device %s", bdf) : NULL;
	}
	if (!strcmp(name, "bytes")) {
		return v > 0 ? xasprintf("%.1f MiB", (double)v / (1024.0 * 1024.0)) : NULL;
	}
	if (!strcmp(name, "soname")) {
		const char *f = soname_family(value), *so = strstr(value, ".so.");

		if (!f)
			return decode_dll(value);
		if (so && isdigit((unsigned char)so[4]))
			return xasprintf("%s, major version %.*s", f, (int)strcspn(so + 4, "."), so + 4);
		return xasprintf("%s", f);
	}
	return NULL;
}

/*
 * "10.76 GiB", "643.57 MiB", "0 bytes", "10.91GiB", "1,073,741,824 bytes" ->
 * bytes; -1 when it does not parse.  Digits (commas only between groups of
 * three), an optional fraction, optional spaces and a unit: no sign, hex,
 * exponent, "inf" or "nan" (strtod would take them), and no size beyond an
 * exabyte (no GPU has one; a longer number is junk, not an overflow).
 */
static double parse_size(const char *s, double bare)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "bytes", 1 }, { "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
		      { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 }, { "KB", 1e3 },
		      { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 } };
	double v = 0, scale = 0.1;
	size_t n = 0, digits = 0, group = 0;
	int commas = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)s[n]) || s[n] == ','; n++) {
		if (s[n] == ',') {
			/* "1,073,741,824": a comma after 1-3 digits, then groups of 3 */
			if ((commas ? group != 3 : group > 3) || !isdigit((unsigned char)s[n + 1]))
				return -1;
			commas = 1;
			group = 0;
			continue;
		}
		if (++digits > 19)
			return -1;
		group++;
		v = v * 10 + (s[n] - '0');
	}
	if (commas && group != 3)
		return -1;
	if (s[n] == '.') {
		if (commas || !isdigit((unsigned char)s[n + 1]))
			return -1;
		for (n++; isdigit((unsigned char)s[n]); n++) {
			if (++digits > 19)
				return -1;
			v += (s[n] - '0') * scale;
			scale /= 10;
		}
	}
	if (!s[n] && bare > 0) {
		v *= bare;
		return isfinite(v) && v <= 1e18 ? v : -1;
	}
	while (s[n] == ' ')
		n++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s + n, units[i].unit)) {
			v *= units[i].mult;
			return isfinite(v) && v <= 1e18 ? v : -1;
		}
	return -1;
}

double logdecode_size(const char *s)
{
	return parse_size(s, 0);
}

double logdecode_size_in(const char *s, double unit)
{
	return parse_size(s, unit);
}

void logdecode_oom_figures_init(struct oom_figures *f)
{
	f->total = f->own = f->free_ = f->request = -1;
}

enum oom_verdict logdecode_oom_judge(const struct oom_figures *f)
{
	double t = f->total, a = f->own, fr = f->free_;

	/* a request larger than the whole GPU fits on no GPU of that size */
	if (t > 0 && f->request > t)
		return OOM_OWN;
	if (t <= 0 || a < 0 || fr < 0 || a + fr > t * 1.01)
		return OOM_UNKNOWN;
	/*
	 * What is neither this process's nor free, less what the CUDA context
	 * and a desktop's display take anyway (up to about 768 MiB; on a 2 GiB
	 * laptop GPU that alone is a third), is held by someone else when it is
	 * a quarter of the GPU or more; less, and this process had what there
	 * was: the job does not fit.
	 */
	return t - a - fr - 768.0 * 1048576.0 >= 0.25 * t ? OOM_HELD : OOM_OWN;
}

char *logdecode_oom_text(const struct oom_figures *f)
{
	double t = f->total, a = f->own, fr = f->free_;

	switch (logdecode_oom_judge(f)) {
	case OOM_UNKNOWN:
		return NULL;
	case OOM_HELD:
		return xasprintf("this process had %.0f MiB, %.0f MiB were free: %.1f GiB of the %.1f GiB "
				 "are held outside this process (another process, or another "
				 "job on a shared GPU)",
				 a / 1048576.0, fr / 1048576.0, (t - a - fr) / 1073741824.0, t / 1073741824.0);
	case OOM_OWN:
		break;
	}
	if (f->request > t)
		return xasprintf("the request alone (%.1f GiB) is larger than the GPU (%.1f GiB): the "
				 "model and batch do not fit this GPU", f->request / 1073741824.0,
				 t / 1073741824.0);
	if (a >= 0.5 * t)
		return xasprintf("this process itself had %.1f GiB of the %.1f GiB: the model and batch "
				 "do not fit this GPU (a smaller batch, or more memory)",
				 a / 1073741824.0, t / 1073741824.0);
	return NULL;
}

static void oom_strings(struct oom_figures *f, const char *total, const char *allocated, const char *free_)
{
	logdecode_oom_figures_init(f);
	f->total = logdecode_size(total);
	f->own = logdecode_size(allocated);
	f->free_ = logdecode_size(free_);
}

enum oom_verdict logdecode_oom_verdict(const char *total, const char *allocated, const char *free_)
{
	struct oom_figures f;

	oom_strings(&f, total, allocated, free_);
	return logdecode_oom_judge(&f);
}

char *logdecode_oom(const char *total, const char *allocated, const char *free_)
{
	struct oom_figures f;

	oom_strings(&f, total, allocated, free_);
	return logdecode_oom_text(&f);
}
