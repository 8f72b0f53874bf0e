/*
 * cudaerr.h - cudaError_t (the CUDA runtime's error enum) as data, for
 * decoding numbers and names found in logs.  The driver API's CUresult is
 * knowledge/curesult.h; the two enums share many numbers but not all names.
 *
 *	const struct cudaerr *c = cudaerr_by_code(35);	// cudaErrorInsufficientDriver
 */
#ifndef GD_CUDAERR_H
#define GD_CUDAERR_H

struct cudaerr {
	long code;
	const char *name;
};

const struct cudaerr *cudaerr_by_code(long code);
const struct cudaerr *cudaerr_by_name(const char *name);

#endif
