/* bench_numeric.c - conversions, inputs and reference for GEMM checks; see bench_numeric.h. */
#include "bench/bench_numeric.h"

#include <math.h>
#include <string.h>

static uint32_t bench_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bench_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

uint16_t bench_f32_to_bf16(float f)
{
	uint32_t u = bench_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);	/* quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float bench_bf16_to_f32(uint16_t h)
{
	return bench_float((uint32_t)h << 16);
}

uint16_t bench_f32_to_f16(float f)
{
	uint32_t u = bench_bits(f), sign = (u >> 16) & 0x8000u, mant;
	int exp;

	u &= 0x7fffffffu;
	if (u > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (u >= 0x477ff000u)	/* rounds to >= 65520: infinity */
		return (uint16_t)(sign | 0x7c00u);
	exp = (int)(u >> 23) - 127;
	mant = u & 0x7fffffu;
	if (exp < -25)
		return (uint16_t)sign;
	if (exp < -14) {
		/* subnormal: value = m * 2^-24 */
		uint32_t m = mant | 0x800000u;
		int shift = -exp - 1;	/* 14..24 */
		uint32_t half = 1u << (shift - 1), rest = m & ((1u << shift) - 1);
		uint32_t r = m >> shift;

		if (rest > half || (rest == half && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t r = ((uint32_t)(exp + 15) << 10) | (mant >> 13), rest = mant & 0x1fffu;

		if (rest > 0x1000u || (rest == 0x1000u && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
}

float bench_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;

	if (exp == 0)
		return bench_float(sign) + (sign ? -1.0f : 1.0f) * ldexpf((float)mant, -24);
	if (exp == 31)
		return bench_float(sign | 0x7f800000u | (mant << 13));
	return bench_float(sign | ((exp + 112) << 23) | (mant << 13));
}

void bench_tile_fill(float *tile, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < BENCH_TILE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 24 random bits -> [-1, 1): exact in every precision's range */
		tile[i] = (float)((double)(x >> 40) / 8388608.0 - 1.0);
	}
}

void bench_tile_round(float *tile, enum bench_prec prec)
{
	for (size_t i = 0; i < BENCH_TILE; i++) {
		if (prec == BENCH_PREC_FP16)
			tile[i] = bench_f16_to_f32(bench_f32_to_f16(tile[i]));
		else if (prec == BENCH_PREC_BF16)
			tile[i] = bench_bf16_to_f32(bench_f32_to_bf16(tile[i]));
	}
}

size_t bench_prec_size(enum bench_prec prec)
{
	return prec == BENCH_PREC_FP16 || prec == BENCH_PREC_BF16 ? 2 : 4;
}

void bench_tile_expand(const float *tile, enum bench_prec prec, size_t offset,
		       void *dst, size_t count)
{
	size_t pos = offset % BENCH_TILE;

	if (prec == BENCH_PREC_FP32 || prec == BENCH_PREC_TF32) {
		float *d = dst;

		while (count) {
			size_t n = BENCH_TILE - pos < count ? BENCH_TILE - pos : count;

			memcpy(d, tile + pos, n * sizeof(float));
			d += n;
			count -= n;
			pos = 0;
		}
		return;
	}
	{
		uint16_t conv[BENCH_TILE], *d = dst;

		for (size_t i = 0; i < BENCH_TILE; i++)
			conv[i] = prec == BENCH_PREC_FP16 ? bench_f32_to_f16(tile[i])
							  : bench_f32_to_bf16(tile[i]);
		while (count) {
			size_t n = BENCH_TILE - pos < count ? BENCH_TILE - pos : count;

			memcpy(d, conv + pos, n * sizeof(uint16_t));
			d += n;
			count -= n;
			pos = 0;
		}
	}
}

double bench_ref_entry(const float *tile, size_t offa, size_t offb, size_t n,
		       size_t i, size_t j, double *scale)
{
	double sum = 0, abs_sum = 0;

	for (size_t k = 0; k < n; k++) {
		double a = tile[(i + k * n + offa) % BENCH_TILE];
		double b = tile[(k + j * n + offb) % BENCH_TILE];

		sum += a * b;
		abs_sum += fabs(a * b);
	}
	if (scale)
		*scale = abs_sum;
	return sum;
}

double bench_rel_err(double got, double ref, double scale)
{
	if (!isfinite(got))
		return INFINITY;
	if (scale <= 0)
		return got == ref ? 0 : INFINITY;
	return fabs(got - ref) / scale;
}

double bench_prec_tolerance(enum bench_prec prec)
{
	/* Relative to sum |a*b|: FP32 accumulation errors stay far below 1e-4
	 * at k = 8192; TF32 rounds each input to 10 mantissa bits (up to 2^-11
	 * each, ~1e-3 per product); FP16 and BF16 inputs are exact, but the
	 * output is rounded to 2^-11 and 2^-8, and split-k partial sums may be
	 * reduced in the output type. */
	switch (prec) {
	case BENCH_PREC_FP32: return 1e-4;
	case BENCH_PREC_TF32: return 3e-3;
	case BENCH_PREC_FP16: return 4e-3;
	case BENCH_PREC_BF16: return 2e-2;
	}
	return 0;
}

double bench_elem_value(const void *buf, enum bench_prec prec, size_t index)
{
	if (prec == BENCH_PREC_FP16)
		return bench_f16_to_f32(((const uint16_t *)buf)[index]);
	if (prec == BENCH_PREC_BF16)
		return bench_bf16_to_f32(((const uint16_t *)buf)[index]);
	return ((const float *)buf)[index];
}
