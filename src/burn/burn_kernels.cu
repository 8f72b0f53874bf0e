// burn_kernels.cu - the memory-test and compare kernels of `gpudoctor burn`.
//
// Not compiled by the Makefile: `make burn-ptx` (mk/burn.mk) turns this file
// into PTX with nvcc, lowers its header to PTX ISA 7.0 / sm_70 (nothing in
// it needs more; driver 450 and later JIT it), and writes
// src/burn/burn_ptx.c, which is committed.  The driver compiles that PTX for
// the GPU at run time, so one text serves every architecture.
//
// The tests follow the published methods of memory testers (cuda_memtest's
// and DCGM's "memtest" suites): every word gets a value derived from its
// address, so a fault that aliases two addresses or flips a bit is seen
// when the word is read back; moving inversions write the complement after
// each check, so every bit is tested at 0 and at 1; constant walking-one
// and walking-zero patterns stress neighbouring bit lines.

// A 32-bit mix of the word index and the pass seed (a xorshift-multiply
// finaliser): neighbouring words get unrelated values.
__device__ __forceinline__ unsigned gd_mix(unsigned long long i, unsigned seed)
{
	unsigned x = (unsigned)i ^ (unsigned)(i >> 32) * 0x9e3779b9u ^ seed;
	x ^= x >> 16; x *= 0x7feb352du;
	x ^= x >> 15; x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

// mode 0: value = mix(i, seed) ^ inv; mode 1: a walking bit, the seed's
// pattern rotated by the word index, so that neighbouring words hold the
// bit in neighbouring positions and every position is tested in one pass.
__device__ __forceinline__ unsigned gd_expect(unsigned long long i, unsigned seed, unsigned mode,
					      unsigned inv)
{
	unsigned r = (unsigned)(i & 31u);

	return (mode ? (r ? (seed << r) | (seed >> (32u - r)) : seed) : gd_mix(i, seed)) ^ inv;
}

extern "C" __global__ void gd_mem_fill(unsigned *p, unsigned long long n, unsigned seed,
				       unsigned mode, unsigned inv)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < n; i += stride)
		p[i] = gd_expect(i, seed, mode, inv);
}

// Check every word against (seed, mode, inv), then write it with newinv.
// bad[0] counts bad words, bad[1] is the lowest bad index, bad[2] the
// highest, bad[3] the OR of the flipped bits.
extern "C" __global__ void gd_mem_check(unsigned *p, unsigned long long n, unsigned seed,
					unsigned mode, unsigned inv, unsigned newinv,
					unsigned long long *bad)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < n; i += stride) {
		unsigned e = gd_expect(i, seed, mode, inv);
		unsigned v = p[i];
		if (v != e) {
			atomicAdd(&bad[0], 1ull);
			atomicMin(&bad[1], i);
			atomicMax(&bad[2], i);
			atomicOr(&bad[3], (unsigned long long)(v ^ e));
		}
		p[i] = e ^ inv ^ newinv;
	}
}
