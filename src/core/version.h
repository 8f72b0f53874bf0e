/*
 * version.h - dotted version numbers ("580.95.05", "9.19.0", "12.4").
 *
 * Versions compare component by component as integers; a missing component
 * counts as 0 ("12.4" == "12.4.0").  struct version holds the first
 * VERSION_MAX_PARTS; version_cmp_str() compares any number.  Driver versions keep their leading zeros
 * as printed ("580.95.05") but compare numerically.
 */
#ifndef GD_VERSION_H
#define GD_VERSION_H

#define VERSION_MAX_PARTS 5

/* The largest part accepted (driver 580, CUDA 13, cuDNN 91900, dates 20260130). */
#define VERSION_PART_MAX 999999999L

struct version {
	int n;				/* parts parsed, 0 when invalid */
	long part[VERSION_MAX_PARTS];
};

/* Parse a leading dotted number; stops at the first other character. 0 or -1
 * (also when a part is larger than VERSION_PART_MAX). */
int version_parse(const char *s, struct version *v);
int version_cmp(const struct version *a, const struct version *b);
/* Parse both and compare, with any number of components (JAX 0.12.0.1 >
 * 0.12.0); an unparsable string sorts first. */
int version_cmp_str(const char *a, const char *b);

/* CUDA's integer encoding, 1000*major + 10*minor (12040 -> 12.4). */
void version_from_cuda_int(int v, int *major, int *minor);

#endif
