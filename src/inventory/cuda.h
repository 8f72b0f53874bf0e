/*
 * cuda.h - the cuda layer's part of the inventory: what the CUDA driver API
 * said in the isolated child (cuInit, the devices, the PTX kernel run).
 *
 * probe_cuda_live() (probes/cuda/cuda.h) fills it; rules and renderers read
 * it through struct inventory (inventory/inventory.h).  Unknown is NULL /
 * -1 / NAN.  cuda_inventory_release() also cancels a child that was started
 * and never finished, so it lives with the probe (probes/cuda/cuda.c).
 *
 *	if (inv->cuda.outcome == CUDA_RAN && inv->cuda.init_result == 0)
 *		use(inv->cuda.devices, inv->cuda.ndevices);
 */
#ifndef GD_INVENTORY_CUDA_H
#define GD_INVENTORY_CUDA_H

#include <stddef.h>


struct cuda_device {
	int index;
	char *name;
	int cc_major, cc_minor;		/* -1 unknown */
	int sm_count;			/* -1 unknown */
	long long memory_bytes;		/* -1 unknown */
	char *bus_id;
	int kernel_ok;			/* 1 exact result, 0 failed, -1 not run */
	char *fail_call;		/* the call that failed, NULL when none */
	int fail_result;		/* its CUresult, -1 when none */
	char *mismatch;			/* first wrong element, when the result was wrong */
	double context_ms, module_ms, kernel_ms;	/* NAN unknown */
	double release_ms;		/* NAN: the child releases its contexts after it has
					 * answered, and nobody waits for that (child.h) */
};

enum cuda_outcome {
	CUDA_NOT_RUN,
	CUDA_RAN,		/* the child completed (cuInit may still have failed) */
	CUDA_DLOPEN_FAILED,
	CUDA_MISSING_SYMBOL,
	CUDA_CHILD_FAILED,	/* crashed, hung, garbage */
};

struct cuda_inventory {
	int probed;
	enum cuda_outcome outcome;
	char *lib;			/* the file the child loaded */
	char *error;			/* dlopen error, missing symbols */
	char *child_error;		/* "crashed with SIGSEGV (signal 11)" */
	char *child_stderr;
	int init_result;		/* CUresult of cuInit, -1 unknown */
	int count_result;		/* CUresult of cuDeviceGetCount when it failed, else -1 */
	int driver_version;		/* cuDriverGetVersion, 13000 style; -1 unknown */
	int device_count;		/* -1 unknown */
	struct cuda_device *devices;
	size_t ndevices;
	int kernel_ok;			/* all devices ran it exactly: 1/0, -1 not run */
	double init_ms, context_ms, kernel_ms;	/* device 0's; NAN unknown */
	double hold_ms;			/* how long the started child waited to be released; NAN */
	double seconds;			/* the child's wall time, -1 unknown */
};

void cuda_inventory_init(struct cuda_inventory *p);
void cuda_inventory_release(struct cuda_inventory *p);

#endif
