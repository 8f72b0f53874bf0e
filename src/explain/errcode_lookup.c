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

static const struct {
	const char *capture, *prefix;
	enum errcode_family f;
} short_caps[] = {
	{ "cu_short", "CUDA_", ERR_CU }, { "nvml_short", "NVML_", ERR_NVML },
	{ "cudnn_short", "CUDNN_", ERR_CUDNN },
};

int errcode_family_of_short_capture(const char *name)
{
	for (size_t i = 0; name && i < sizeof(short_caps) / sizeof(short_caps[0]); i++)
		if (!strcmp(name, short_caps[i].capture))
			return (int)short_caps[i].f;
	return -1;
}

const struct errcode *errcode_by_short_name(enum errcode_family f, const char *name, size_t len)
{
	const struct errcode *ec;
	char full[96];
	const char *prefix = NULL;
	size_t pl;

	for (size_t i = 0; i < sizeof(short_caps) / sizeof(short_caps[0]); i++)
		if (short_caps[i].f == f)
			prefix = short_caps[i].prefix;
	if (!prefix || !name)
		return NULL;
	pl = strlen(prefix);
	if (len >= pl && !memcmp(name, prefix, pl)) {
		/* already prefixed: only this family's entry counts */
		ec = errcode_by_name(name, len);
		return ec && ec->family == f ? ec : NULL;
	}
	if (pl + len >= sizeof(full))
		return NULL;
	memcpy(full, prefix, pl);
	memcpy(full + pl, name, len);
	ec = errcode_by_name(full, pl + len);
	return ec && ec->family == f ? ec : NULL;
}

const char *errcode_family_name(enum errcode_family f)
{
	static const char *const names[] = { "CUresult", "cudaError_t", "cudnnStatus_t",
					     "ncclResult_t", "nvmlReturn_t" };

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}
