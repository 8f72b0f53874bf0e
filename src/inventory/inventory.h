/*
 * inventory.h - every fact the probes collect, one part per layer.
 *
 * Probes fill it (read-only facts: nothing here is a verdict); rules read it
 * and write findings; report/inventory_json*.c print it.  Each layer's part
 * is declared in that layer's probe header.  Unknown facts are NULL strings
 * and negative numbers (or NAN), which JSON prints as null.
 */
#ifndef GD_INVENTORY_H
#define GD_INVENTORY_H

#include "probes/hardware/hardware.h"
#include "probes/kernel/kernel.h"
#include "probes/devices/devices.h"
#include "probes/containers/containers.h"
#include "probes/driver/driver.h"
#include "probes/cuda/cuda.h"
#include "probes/libraries/libraries.h"
#include "probes/frameworks/frameworks.h"
#include "python/pyenv.h"

struct inventory {
	struct hw_inventory hw;
	struct kernel_inventory kernel;
	struct devices_inventory devices;
	struct containers_inventory containers;
	struct driver_inventory driver;
	struct cuda_inventory cuda;
	struct libraries_inventory libs;
	struct frameworks_inventory fw;
	/* The Python environments looked at: a copy of the probe_in's (probe_in.h). */
	struct pyenv_list pyenvs;
};

void inventory_init(struct inventory *inv);
void inventory_release(struct inventory *inv);

#endif
