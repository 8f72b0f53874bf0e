/* test_curesult.c - the CUresult table, CUDA_VISIBLE_DEVICES rules, the PTX kernel's reference. */
#include "tap.h"

#include "core/buf.h"
#include "knowledge/causes.h"
#include "knowledge/curesult.h"
#include "probes/cuda/ptx_kernel.h"
#include "rules/cuda_visible.h"

#include <stdint.h>

static void test_known_codes(void)
{
	CHECK_STR(curesult_name(0), "CUDA_SUCCESS");
	CHECK_STR(curesult_name(2), "CUDA_ERROR_OUT_OF_MEMORY");
	CHECK_STR(curesult_name(3), "CUDA_ERROR_NOT_INITIALIZED");
	CHECK_STR(curesult_name(34), "CUDA_ERROR_STUB_LIBRARY");
	CHECK_STR(curesult_name(46), "CUDA_ERROR_DEVICE_UNAVAILABLE");
	CHECK_STR(curesult_name(100), "CUDA_ERROR_NO_DEVICE");
	CHECK_STR(curesult_name(101), "CUDA_ERROR_INVALID_DEVICE");
	CHECK_STR(curesult_name(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
	CHECK_STR(curesult_name(218), "CUDA_ERROR_INVALID_PTX");
	CHECK_STR(curesult_name(222), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
	CHECK_STR(curesult_name(802), "CUDA_ERROR_SYSTEM_NOT_READY");
	CHECK_STR(curesult_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
	CHECK_STR(curesult_name(804), "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
	CHECK_STR(curesult_name(999), "CUDA_ERROR_UNKNOWN");
}

static void test_unknown_code(void)
{
	CHECK(curesult_lookup(12345) == NULL);
	CHECK_STR(curesult_name(12345), "CUresult 12345");
}

static void test_causes_exist(void)
{
	static const int codes[] = { 34, 214, 802, 803, 804 };

	CHECK_STR(cause_id_str(curesult_lookup(802)->cause), "fabric-manager-not-running");
	CHECK_STR(cause_id_str(curesult_lookup(803)->cause), "driver-library-mismatch");
	CHECK_STR(cause_id_str(curesult_lookup(804)->cause), "compat-lib-on-unsupported-gpu");
	CHECK_STR(cause_id_str(curesult_lookup(34)->cause), "libcuda-stub-on-path");
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		CHECK(cause_get(curesult_lookup(codes[i])->cause) != NULL);
	CHECK(curesult_lookup(999)->hint != NULL);
	/* 35 is cudaErrorInsufficientDriver of the runtime API; CUresult has no 35. */
	CHECK(curesult_lookup(35) == NULL);
}

static void test_visible_devices(void)
{
	const char *uuids[] = { "GPU-aaaa1111-0000", "GPU-bbbb2222-0000" };
	struct buf why = BUF_INIT;

	CHECK_INT(cuda_visible_count(NULL, 2, uuids, &why), 2);
	CHECK_INT(cuda_visible_count("", 2, uuids, &why), 0);
	CHECK(why.len > 0);
	CHECK_INT(cuda_visible_count("-1", 2, uuids, &why), 0);
	CHECK_INT(cuda_visible_count("0,1", 2, uuids, &why), 2);
	CHECK_INT(cuda_visible_count("1", 2, uuids, &why), 1);
	/* The documented example: 0,2,-1,1 leaves 0 and 2 (here: 0 only of 2 GPUs). */
	CHECK_INT(cuda_visible_count("0,2,-1,1", 2, uuids, &why), 1);
	CHECK_INT(cuda_visible_count("GPU-bbbb", 2, uuids, &why), 1);
	CHECK_INT(cuda_visible_count("GPU-cccc", 2, uuids, &why), 0);
	CHECK_INT(cuda_visible_count("GPU-", 2, uuids, &why), 0);	/* ambiguous prefix */
	CHECK_INT(cuda_visible_count(" 0 , 1 ", 2, uuids, &why), 2);
	/* GPU count unknown: only the sure cases are answered. */
	CHECK_INT(cuda_visible_count("none", -1, NULL, &why), 0);
	CHECK_INT(cuda_visible_count("void", -1, NULL, &why), 0);
	CHECK_INT(cuda_visible_count("3", -1, NULL, &why), -1);
	buf_release(&why);
}

static void test_ptx_reference(void)
{
	uint32_t in[64], out[64];
	size_t bad = 99;

	ptx_axpb_fill(in, 64);
	CHECK(in[0] != in[1]);
	for (size_t i = 0; i < 64; i++)
		out[i] = in[i] * 3u + 7u;
	CHECK_INT(ptx_axpb_verify(in, out, 64, 3, 7, &bad), 0);
	out[42] ^= 1;
	CHECK_INT(ptx_axpb_verify(in, out, 64, 3, 7, &bad), -1);
	CHECK_INT(bad, 42);
	CHECK(strstr(ptx_kernel_axpb, ".entry " PTX_KERNEL_AXPB_ENTRY "(") != NULL);
	CHECK(strstr(ptx_kernel_axpb, ".version 7.0") != NULL);
	CHECK(strstr(ptx_kernel_axpb, ".target sm_50") != NULL);
}

int main(void)
{
	RUN(test_known_codes);
	RUN(test_unknown_code);
	RUN(test_causes_exist);
	RUN(test_visible_devices);
	RUN(test_ptx_reference);
	return tap_done();
}
