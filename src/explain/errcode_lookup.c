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

const char *errcode_family_name(enum errcode_family f)
{
	static const char *const names[] = { "CUresult", "cudaError_t", "cudnnStatus_t",
					     "ncclResult_t", "nvmlReturn_t" };

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}
