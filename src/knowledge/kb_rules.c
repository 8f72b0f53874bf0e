/*
 * kb_rules.c - the compatibility rules as functions: driver vs CUDA runtime,
 * binary architectures vs compute capability, cuDNN runtime vs build.
 * Each fills a struct kb_verdict (why + source) and returns its ok value.
 */
#include "knowledge/kb_internal.h"
#include "core/version.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verdict(struct kb_verdict *v, int ok, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int verdict(struct kb_verdict *v, int ok, const char *source, const char *fmt, ...)
{
	va_list ap;

	if (v) {
		v->ok = ok;
		v->source = source;
		v->via = 0;
		va_start(ap, fmt);
		vsnprintf(v->why, sizeof(v->why), fmt, ap);
		va_end(ap);
	}
	return ok;
}

static const char *cuda_str(int cuda, char *buf, size_t n)
{
	int ma, mi;

	version_from_cuda_int(cuda, &ma, &mi);
	snprintf(buf, n, "%d.%d", ma, mi);
	return buf;
}

static void fwd_note(char *out, size_t n, int cuda_major, int datacenter)
{
	if (datacenter == 1)
		snprintf(out, n, "; on this data-center GPU the forward-compatibility package "
			 "(cuda-compat-%d-x) can run it on the older driver", cuda_major);
	else if (datacenter == 0)
		snprintf(out, n, "; forward compatibility (cuda-compat) is not available on GeForce "
			 "and workstation GPUs: upgrade the driver");
	else
		snprintf(out, n, "; forward compatibility (cuda-compat) works only on data-center "
			 "GPUs and Jetson");
}

int kb_driver_runs_cuda(const struct kb *kb, const char *driver_version, int cuda_version,
			int datacenter_gpu, struct kb_verdict *v)
{
	struct version dv;
	const char *floor, *compat;
	char cs[16], note[200];
	int reported, major = cuda_version / 1000;

	if (!driver_version || version_parse(driver_version, &dv) < 0)
		return verdict(v, -1, NULL, "driver version '%s' is not known",
			       driver_version ? driver_version : "(none)");
	if (cuda_version < 1000)
		return verdict(v, -1, NULL, "the CUDA version is not known");
	cuda_str(cuda_version, cs, sizeof(cs));
	floor = kb_cuda_min_driver(kb, cuda_version);
	if (floor && version_cmp_str(driver_version, floor) >= 0)
		return verdict(v, 1, "cuda-rn", "driver %s >= %s, the minimum driver of CUDA %s",
			       driver_version, floor, cs);
	reported = kb_driver_cuda_version(kb, driver_version);
	if (reported >= cuda_version) {
		char rs[16];

		return verdict(v, 1, kb_driver_branch_source(kb, driver_version),
			       "driver %s (R%ld) supports CUDA up to %s", driver_version,
			       dv.part[0], cuda_str(reported, rs, sizeof(rs)));
	}
	compat = kb_cuda_compat_floor(kb, major);
	if (compat && version_cmp_str(driver_version, compat) >= 0) {
		if (floor)
			return verdict(v, 1, "cuda-rn",
				       "driver %s is older than %s (CUDA %s's own minimum) but >= %s, so "
				       "CUDA %d.x runs under minor-version compatibility (PTX newer than the "
				       "driver cannot be JIT-compiled; newer APIs fail with "
				       "cudaErrorCallRequiresNewerDriver)",
				       driver_version, floor, cs, compat, major);
		return verdict(v, 1, "cuda-rn",
			       "driver %s >= %s runs CUDA %d.x under minor-version compatibility "
			       "(CUDA %s's own minimum driver is not known)",
			       driver_version, compat, major, cs);
	}
	fwd_note(note, sizeof(note), major, datacenter_gpu);
	if (compat && floor)
		return verdict(v, 0, "cuda-rn",
			       "driver %s is older than %s, the lowest driver for any CUDA %d.x runtime "
			       "(minor-version compatibility); CUDA %s itself needs >= %s%s",
			       driver_version, compat, major, cs, floor, note);
	if (compat)
		return verdict(v, 0, "cuda-rn",
			       "driver %s is older than %s, the lowest driver for any CUDA %d.x runtime "
			       "(minor-version compatibility)%s", driver_version, compat, major, note);
	if (floor)
		return verdict(v, 0, "cuda-rn", "driver %s is older than %s, the minimum driver of CUDA %s%s",
			       driver_version, floor, cs, note);
	return verdict(v, -1, NULL, "no minimum driver is known for CUDA %s", cs);
}

/* One architecture entry. */
struct arch_ent {
	int major, minor;
	int sass, ptx;		/* what it carries */
	char kind;		/* 0 plain, 'a' arch-specific, 'f' family */
};

/* "sm_90a", "compute_80", "8.6", "8.6+PTX", "9.0a": 0 or -1. */
static int arch_parse(const char *s, size_t len, struct arch_ent *a)
{
	char tmp[32], *p = tmp, *end;
	long n;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	memset(a, 0, sizeof(*a));
	if (!strncmp(p, "sm_", 3) || !strncmp(p, "compute_", 8)) {
		a->ptx = p[0] == 'c';
		a->sass = !a->ptx;
		p += a->ptx ? 8 : 3;
		if (!isdigit((unsigned char)*p))
			return -1;
		n = strtol(p, &end, 10);
		if (n < 10 || n > 999)
			return -1;
		a->major = (int)(n / 10);
		a->minor = (int)(n % 10);
	} else {
		if (!isdigit((unsigned char)*p))
			return -1;
		n = strtol(p, &end, 10);
		if (*end != '.' || !isdigit((unsigned char)end[1]) || n > 99)
			return -1;
		a->major = (int)n;
		a->minor = (int)strtol(end + 1, &end, 10);
		if (a->minor > 9)
			return -1;
		a->sass = 1;
		if (!strcasecmp(end, "+PTX")) {
			a->ptx = 1;
			end += 4;
		} else if ((*end == 'a' || *end == 'f') && !strcasecmp(end + 1, "+PTX")) {
			a->ptx = 1;
		}
	}
	if (*end == 'a' || *end == 'f')
		a->kind = *end++;
	if (*end && strcasecmp(end, "+PTX"))
		return -1;
	return 0;
}

static int cc_cmp(int ma, int mi, int mb, int nb)
{
	return ma != mb ? (ma < mb ? -1 : 1) : (mi < nb ? -1 : mi > nb);
}

int kb_arch_runs(const char *const *archs, size_t n, int cc_major, int cc_minor,
		 struct kb_verdict *v)
{
	char list[256] = "", ptxname[32] = "";
	size_t used = 0, best_len = 0;
	int parsed = 0, ptx_ok = 0, best_minor = -1;
	const char *best = NULL;
	char best_kind = 0;

	if (cc_major < 0)
		return verdict(v, -1, NULL, "the compute capability is not known");
	for (size_t i = 0; i < n; i++) {
		const char *s = archs[i];

		while (s && *s) {
			size_t len = strcspn(s, ",; ");
			struct arch_ent a;

			if (len && arch_parse(s, len, &a) == 0) {
				parsed++;
				if (used + len + 2 < sizeof(list))
					used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%.*s",
								 used ? "," : "", (int)len, s);
				/* the runtime picks the newest SASS that fits, so name that one */
				if (a.sass && (a.kind == 'a' ? cc_major == a.major && cc_minor == a.minor
					       : cc_major == a.major && cc_minor >= a.minor) &&
				    (!best || a.minor > best_minor)) {
					best = s;
					best_len = len;
					best_minor = a.minor;
					best_kind = a.kind;
				}
				if (a.ptx && !ptx_ok &&
				    (a.kind == 'a' ? cc_major == a.major && cc_minor == a.minor
				     : a.kind == 'f' ? cc_major == a.major && cc_minor >= a.minor
				     : cc_cmp(cc_major, cc_minor, a.major, a.minor) >= 0)) {
					ptx_ok = 1;
					snprintf(ptxname, sizeof(ptxname), "compute_%d%d%s", a.major, a.minor,
						 a.kind == 'a' ? "a" : a.kind == 'f' ? "f" : "");
				}
			}
			s += len;
			while (*s == ',' || *s == ';' || *s == ' ')
				s++;
		}
	}
	if (!parsed)
		return verdict(v, -1, NULL, "no architecture list to judge");
	if (best) {
		verdict(v, 1, NULL, "%.*s SASS runs on compute capability %d.%d%s",
			(int)best_len, best, cc_major, cc_minor,
			best_kind == 'a' ? " (arch-specific: that CC only)"
			: " (same major, equal or newer minor)");
		if (v)
			v->via = KB_VIA_SASS;
		return 1;
	}
	if (ptx_ok) {
		verdict(v, 1, NULL,
			       "no SASS for %d.%d in [%s]; its PTX %s JIT-compiles for it (needs a driver at "
			       "least as new as the toolkit that built it; the first launch compiles)",
			       cc_major, cc_minor, list, ptxname);
		if (v)
			v->via = KB_VIA_PTX;
		return 1;
	}
	return verdict(v, 0, NULL,
		       "built for [%s]: nothing runs on compute capability %d.%d (SASS sm_XY runs only "
		       "on X.Y..X.9 of the same major; PTX only on CCs at or above its own)",
		       list, cc_major, cc_minor);
}

int kb_cudnn_satisfies(const char *runtime, const char *built, struct kb_verdict *v)
{
	struct version r, b;

	if (!runtime || !built || version_parse(runtime, &r) < 0 || version_parse(built, &b) < 0)
		return verdict(v, -1, NULL, "cuDNN version not known");
	if (r.part[0] != b.part[0])
		return verdict(v, 0, "cudnn-compat",
			       "cuDNN %s is major %ld, the build needs major %ld (no compatibility across "
			       "cuDNN major versions)", runtime, r.part[0], b.part[0]);
	if (b.n < 2 || r.part[1] >= b.part[1])
		return verdict(v, 1, "cudnn-compat",
			       "cuDNN %s satisfies a build against %s (same major, minor >=)", runtime, built);
	return verdict(v, 0, "cudnn-compat",
		       "cuDNN %s is older than the %ld.%ld the build was made against (minor releases are "
		       "backward compatible only: runtime minor must be >= the build's)",
		       runtime, b.part[0], b.part[1]);
}

void kb_cudnn_decode(long v, int *major, int *minor, int *patch)
{
	if (v < 0) {
		*major = *minor = *patch = -1;
		return;
	}
	if (v >= 90000) {
		*major = (int)(v / 10000);
		*minor = (int)(v % 10000 / 100);
	} else {
		*major = (int)(v / 1000);
		*minor = (int)(v % 1000 / 100);
	}
	*patch = (int)(v % 100);
}
