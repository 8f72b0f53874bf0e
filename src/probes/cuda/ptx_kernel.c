/*
 * ptx_kernel.c - the embedded PTX kernel and its CPU reference; see
 * ptx_kernel.h.  The text is ours, written by hand (no nvcc output).
 */
#include "probes/cuda/ptx_kernel.h"

const char ptx_kernel_axpb[] =
	"//\n"
	"// gd_axpb: out[i] = in[i] * a + b (uint32, wrapping), for i < n.\n"
	"// Hand-written for gpudoctor: ISA 7.0 and sm_50 so that any driver from\n"
	"// R450 on can JIT it for any GPU it supports.\n"
	"//\n"
	".version 7.0\n"
	".target sm_50\n"
	".address_size 64\n"
	"\n"
	".visible .entry gd_axpb(\n"
	"	.param .u64 gd_axpb_out,\n"
	"	.param .u64 gd_axpb_in,\n"
	"	.param .u32 gd_axpb_a,\n"
	"	.param .u32 gd_axpb_b,\n"
	"	.param .u32 gd_axpb_n\n"
	")\n"
	"{\n"
	"	.reg .pred	%p<2>;\n"
	"	.reg .b32	%r<10>;\n"
	"	.reg .b64	%rd<8>;\n"
	"\n"
	"	ld.param.u64	%rd1, [gd_axpb_out];\n"
	"	ld.param.u64	%rd2, [gd_axpb_in];\n"
	"	ld.param.u32	%r1, [gd_axpb_a];\n"
	"	ld.param.u32	%r2, [gd_axpb_b];\n"
	"	ld.param.u32	%r3, [gd_axpb_n];\n"
	"	mov.u32		%r4, %ctaid.x;\n"
	"	mov.u32		%r5, %ntid.x;\n"
	"	mov.u32		%r6, %tid.x;\n"
	"	mad.lo.u32	%r7, %r4, %r5, %r6;\n"
	"	setp.ge.u32	%p1, %r7, %r3;\n"
	"	@%p1 bra	DONE;\n"
	"	cvta.to.global.u64	%rd3, %rd2;\n"
	"	cvta.to.global.u64	%rd4, %rd1;\n"
	"	mul.wide.u32	%rd5, %r7, 4;\n"
	"	add.s64		%rd6, %rd3, %rd5;\n"
	"	ld.global.u32	%r8, [%rd6];\n"
	"	mad.lo.u32	%r9, %r8, %r1, %r2;\n"
	"	add.s64		%rd7, %rd4, %rd5;\n"
	"	st.global.u32	[%rd7], %r9;\n"
	"DONE:\n"
	"	ret;\n"
	"}\n";

void ptx_axpb_fill(uint32_t *in, size_t n)
{
	uint32_t x = 0x9e3779b9u;

	/* xorshift32: deterministic, and high bits change as often as low ones. */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		in[i] = x ^ (uint32_t)i;
	}
}

uint32_t ptx_axpb_expect(uint32_t in, uint32_t a, uint32_t b)
{
	return in * a + b;
}

int ptx_axpb_verify(const uint32_t *in, const uint32_t *out, size_t n, uint32_t a,
		    uint32_t b, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		if (out[i] != ptx_axpb_expect(in[i], a, b)) {
			if (bad)
				*bad = i;
			return -1;
		}
	}
	return 0;
}
