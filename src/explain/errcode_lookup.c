/*
 * errcode_lookup.c - lookups in the generated error-code table (errcodes.h).
 *
 * About 250 rows, looked up only for lines a rule matched: a linear walk.
 */
#include "explain/errcodes.h"

#include <string.h>

const struct errcode *errcode_by_name(const char *name, size_t len)
{
	for (unsigned long i = 0; i < errcodes_count; i++)
		if (strlen(errcodes[i].name) == len && !memcmp(errcodes[i].name, name, len))
			return &errcodes[i];
	return NULL;
}

const struct errcode *errcode_by_number(enum errcode_family f, long code)
{
	for (unsigned long i = 0; i < errcodes_count; i++)
		if (errcodes[i].family == f && errcodes[i].code == code)
			return &errcodes[i];
	return NULL;
}

int errcode_family_of_capture(const char *name)
{
	static const struct {
		const char *name;
		enum errcode_family f;
	} caps[] = {
		{ "cu_result", ERR_CU }, { "cuda_error", ERR_CUDART }, { "cudnn_code", ERR_CUDNN },
		{ "nccl_code", ERR_NCCL }, { "nvml_code", ERR_NVML },
	};

	for (size_t i = 0; name && i < sizeof(caps) / sizeof(caps[0]); i++)
		if (!strcmp(name, caps[i].name))
			return (int)caps[i].f;
	return -1;
}

const char *errcode_family_name(enum errcode_family f)
{
	static const char *const names[] = { "CUresult", "cudaError_t", "cudnnStatus_t",
					     "ncclResult_t", "nvmlReturn_t" };

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}
