/*
 * errcode_lookup.c - lookups in the generated error-code table (errcodes.h).
 *
 * About 250 rows, looked up only for lines a rule matched: a linear walk.
 */
#include "explain/errcodes.h"

#include <ctype.h>
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
					     "ncclResult_t", "nvmlReturn_t",
					     "cudaError_t (CUDA <= 10.0)" };

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

/*
 * The texts cudaGetErrorString() prints for the codes whose number changed
 * in CUDA 10.1, as the logs of explain.tsv's rules show them beside the
 * number (Caffe's "Check failed: error == cudaSuccess (8 vs. 0)  invalid
 * device function", PyTorch's "cuda runtime error (38) : no CUDA-capable
 * device is detected"): the line says which numbering the number is in.
 */
static const struct {
	const char *name, *text;
} cudart_texts[] = {
	{ "cudaErrorInvalidDeviceFunction", "invalid device function" },
	{ "cudaErrorNoDevice", "no cuda-capable device is detected" },
	{ "cudaErrorUnknown", "unknown error" },
	{ "cudaErrorInvalidValue", "invalid argument" },
	{ "cudaErrorInvalidDevice", "invalid device ordinal" },
	{ "cudaErrorLaunchFailure", "unspecified launch failure" },
	{ "cudaErrorNoKernelImageForDevice", "no kernel image is available" },
	{ "cudaErrorInvalidKernelImage", "invalid kernel image" },
	{ "cudaErrorECCUncorrectable", "uncorrectable ecc error" },
	{ "cudaErrorLaunchOutOfResources", "too many resources requested for launch" },
	{ "cudaErrorLaunchTimeout", "the launch timed out" },
	{ "cudaErrorIllegalAddress", "an illegal memory access was encountered" },
	{ "cudaErrorCudartUnloading", "driver shutting down" },
	{ "cudaErrorMissingConfiguration", "missing configuration" },
	{ "cudaErrorNotReady", "device not ready" },
	{ "cudaErrorInvalidResourceHandle", "invalid resource handle" },
};

/* Whether the line carries the cudaGetErrorString text of the entry (ignoring case). */
static int line_says(const char *line, const struct errcode *ec)
{
	for (size_t i = 0; line && ec && i < sizeof(cudart_texts) / sizeof(cudart_texts[0]); i++) {
		const char *t = cudart_texts[i].text;
		size_t tl = strlen(t);

		if (strcmp(cudart_texts[i].name, ec->name))
			continue;
		for (const char *p = line; *p; p++) {
			size_t k = 0;

			while (k < tl && p[k] && tolower((unsigned char)p[k]) == t[k])
				k++;
			if (k == tl)
				return 1;
		}
	}
	return 0;
}

const struct errcode *errcode_cudart(long code, enum cudart_era era, const char *line)
{
	const struct errcode *cur = errcode_by_number(ERR_CUDART, code);
	const struct errcode *old = errcode_by_number(ERR_CUDART_OLD, code);

	/* a numbering without the number: the other's only where the line says its text */
	if (era == CUDART_ERA_OLD)
		return old ? old : line_says(line, cur) ? cur : NULL;
	if (era == CUDART_ERA_NEW)
		return cur ? cur : line_says(line, old) ? old : NULL;
	if (!cur || !old || !strcmp(cur->name, old->name))
		return cur ? cur : old;
	if (line_says(line, old) && !line_says(line, cur))
		return old;
	if (line_says(line, cur) && !line_says(line, old))
		return cur;
	return NULL;
}

const struct errcode *errcode_cudart_other(long code, const struct errcode *ec)
{
	const struct errcode *o;

	if (!ec || (ec->family != ERR_CUDART && ec->family != ERR_CUDART_OLD))
		return NULL;
	o = errcode_by_number(ec->family == ERR_CUDART ? ERR_CUDART_OLD : ERR_CUDART, code);
	return o && strcmp(o->name, ec->name) ? o : NULL;
}
