/*
 * ptx_kernel.h - the PTX kernel gpudoctor runs on every GPU, and its
 * reference result computed on the CPU.
 *
 * gd_axpb(out, in, a, b, n): out[i] = in[i] * a + b over uint32 (wrapping).
 * Hand-written PTX, ".version 7.0 / .target sm_50", so any driver from R450
 * on can JIT-compile it for any GPU; no nvcc is needed to build or run
 * gpudoctor.  Validated with ptxas -arch=sm_75, sm_90 and sm_100 (CUDA 13.0,
 * whose ptxas no longer targets sm_50 itself).
 *
 *	cuModuleLoadData(&mod, ptx_kernel_axpb);
 *	cuModuleGetFunction(&fn, mod, PTX_KERNEL_AXPB_ENTRY);
 *	... launch ...
 *	if (ptx_axpb_verify(in, out, n, a, b, &bad) != 0) report(bad);
 */
#ifndef GD_PTX_KERNEL_H
#define GD_PTX_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define PTX_KERNEL_AXPB_ENTRY "gd_axpb"

/* NUL-terminated PTX text, as cuModuleLoadData wants it. */
extern const char ptx_kernel_axpb[];

/* The input the probe uses: a pattern that exercises every bit position. */
void ptx_axpb_fill(uint32_t *in, size_t n);
/* The expected element i. */
uint32_t ptx_axpb_expect(uint32_t in, uint32_t a, uint32_t b);
/* 0 when out matches exactly, else -1 with the first bad index in *bad. */
int ptx_axpb_verify(const uint32_t *in, const uint32_t *out, size_t n, uint32_t a,
		    uint32_t b, size_t *bad);

#endif
