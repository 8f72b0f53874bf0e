/*
 * bench_numeric.h - numbers for the GEMM checks: half and bfloat16
 * conversion, the pseudo-random inputs, the float64 reference entry and
 * the tolerance of each precision.  Pure functions, no GPU.
 *
 * Inputs are a tile of BENCH_TILE uniform values in [-1, 1) repeated over
 * the matrix (element idx holds tile[(idx + offset) % BENCH_TILE]), so the
 * reference needs no copy of the whole matrix.  BENCH_TILE is prime, so
 * the pattern does not line up with power-of-two rows.
 *
 *	bench_tile_fill(tile, seed);
 *	bench_tile_round(tile, BENCH_PREC_BF16);
 *	ref = bench_ref_entry(tile, offa, offb, n, ...);
 *	ok = bench_rel_err(got, ref, scale) <= bench_prec_tolerance(BENCH_PREC_BF16);
 */
#ifndef GD_BENCH_NUMERIC_H
#define GD_BENCH_NUMERIC_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_TILE 65521

enum bench_prec { BENCH_PREC_FP32, BENCH_PREC_TF32, BENCH_PREC_FP16, BENCH_PREC_BF16 };

uint16_t bench_f32_to_f16(float f);	/* round to nearest even, overflow to inf */
float bench_f16_to_f32(uint16_t h);
uint16_t bench_f32_to_bf16(float f);	/* round to nearest even */
float bench_bf16_to_f32(uint16_t h);

/* Fill tile[BENCH_TILE] with values in [-1, 1) from seed (xorshift). */
void bench_tile_fill(float *tile, uint64_t seed);
/* Round every tile value to what prec stores (fp16/bf16; fp32/tf32 unchanged). */
void bench_tile_round(float *tile, enum bench_prec prec);
/* Bytes per element of prec's storage type. */
size_t bench_prec_size(enum bench_prec prec);
/* Write count elements of prec starting at element offset of the pattern. */
void bench_tile_expand(const float *tile, enum bench_prec prec, size_t offset,
		       void *dst, size_t count);

/*
 * Entry (i, j) of C = A * B, column-major n x n, where A's element idx is
 * tile[(idx + offa) % BENCH_TILE] and B's tile[(idx + offb) % BENCH_TILE].
 * *scale gets sum |a_ik * b_kj|, the natural size of rounding errors.
 */
double bench_ref_entry(const float *tile, size_t offa, size_t offb, size_t n,
		       size_t i, size_t j, double *scale);
/* |got - ref| / scale, +inf for NaN/inf; 0 when both are 0. */
double bench_rel_err(double got, double ref, double scale);
/* Largest acceptable bench_rel_err for prec with fp32 accumulation. */
double bench_prec_tolerance(enum bench_prec prec);
/* Value of element `index` of a prec buffer as a double. */
double bench_elem_value(const void *buf, enum bench_prec prec, size_t index);

#endif
