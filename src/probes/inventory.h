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

#include "probes/hardware.h"
#include "probes/kernel.h"
#include "probes/devices.h"
#include "probes/containers.h"
#include "probes/driver.h"
#include "probes/cuda.h"
#include "probes/libraries.h"
#include "probes/frameworks.h"
#include "python/pyenv.h"

struct gd_ctx;

struct inventory {
	struct hw_inventory hw;
	struct kernel_inventory kernel;
	struct devices_inventory devices;
	struct containers_inventory containers;
	struct driver_inventory driver;
	struct cuda_inventory cuda;
	struct libraries_inventory libs;
	struct frameworks_inventory fw;
	/* Shared by the libraries and frameworks probes: found once, on first use. */
	struct pyenv_list pyenvs;
	int pyenvs_done;
	char *pyenvs_error;
};

void inventory_init(struct inventory *inv);
void inventory_release(struct inventory *inv);

/* The machine's Python environments (discovered on the first call). */
const struct pyenv_list *inventory_pyenvs(const struct gd_ctx *ctx, struct inventory *inv);

#endif
