/* cuda.c - lifecycle of the cuda part of the inventory; see cuda.h. */
#include "inventory/cuda.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cuda_inventory_init(struct cuda_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->init_result = -1;
	p->count_result = -1;
	p->driver_version = -1;
	p->device_count = -1;
	p->kernel_ok = -1;
	p->init_ms = p->context_ms = p->kernel_ms = p->hold_ms = NAN;
	p->seconds = -1;
}

void cuda_inventory_release(struct cuda_inventory *p)
{
	free(p->lib);
	free(p->error);
	free(p->child_error);
	free(p->child_stderr);
	for (size_t i = 0; i < p->ndevices; i++) {
		free(p->devices[i].name);
		free(p->devices[i].bus_id);
		free(p->devices[i].fail_call);
		free(p->devices[i].mismatch);
	}
	free(p->devices);
	memset(p, 0, sizeof(*p));
}
