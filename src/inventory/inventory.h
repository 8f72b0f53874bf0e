/*
 * inventory.h - every fact the probes collect, one part per layer.
 *
 * Probes fill it (read-only facts: nothing here is a verdict); rules read it
 * and write findings; render/inventory_json*.c print it.  Each layer's part
 * is declared in its own header beside this one (inventory/LAYER.h), which
 * the layer's probe (probes/LAYER/LAYER.h) includes to fill it: the
 * inventory knows nothing of the probes.  Unknown facts are NULL strings
 * and negative numbers (or NAN), which JSON prints as null.
 */
#ifndef GD_INVENTORY_H
#define GD_INVENTORY_H

#include "inventory/platform.h"
#include "inventory/hardware.h"
#include "inventory/kernel.h"
#include "inventory/devices.h"
#include "inventory/containers.h"
#include "inventory/driver.h"
#include "inventory/cuda.h"
#include "inventory/libraries.h"
#include "inventory/frameworks.h"
#include "python/pyenv.h"

struct inventory {
	/* What kind of machine: WSL, a GPU Operator node, lockdown (platform.h); read by every layer. */
	struct platform_inventory platform;
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
