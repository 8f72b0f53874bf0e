/*
 * bench_sgemm.h - gpudoctor's own CPU SGEMM, for the CPU baseline when no
 * CBLAS library is installed, and a naive one to check it against.
 *
 * Row-major C (m x n) = A (m x k) * B (k x n).  The blocked kernel keeps a
 * KC x NC panel of B in cache and streams rows of A over it, the inner loop
 * a plain axpy the compiler vectorises; rows of C are split across
 * `threads` POSIX threads.  It is a fair baseline, not a tuned BLAS.
 *
 *	bench_sgemm_blocked(m, n, k, a, b, c, threads);
 *	bench_sgemm_naive(m, n, k, a, b, ref);	// the check, on small sizes
 */
#ifndef GD_BENCH_SGEMM_H
#define GD_BENCH_SGEMM_H

void bench_sgemm_naive(int m, int n, int k, const float *a, const float *b, float *c);
void bench_sgemm_blocked(int m, int n, int k, const float *a, const float *b, float *c,
			 int threads);

#endif
