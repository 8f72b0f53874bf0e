/*
 * matrix_machine.c - what `matrix --solve` needs from the machine, from the
 * probes that own those facts (one reading per fact): the NVIDIA display/3D
 * controllers on the PCI bus (probe_hardware) and the loaded kernel module's
 * version with its source (probe_kernel: kernel.h's module_version).
 * Nothing is loaded or run.
 */
#include "commands/matrix.h"
#include "core/ctx.h"
#include "inventory/inventory.h"
#include "probes/hardware/hardware.h"
#include "probes/kernel/kernel.h"
#include "probes/probe_in.h"

#include <stdio.h>
#include <string.h>

int matrix_machine_read(const struct gd_ctx *ctx, struct matrix_machine *m)
{
	/* These two probes read files only, and no input but the context. */
	struct probe_in in;
	struct inventory inv;

	memset(m, 0, sizeof(*m));
	memset(&in, 0, sizeof(in));
	in.ctx = ctx;
	inventory_init(&inv);
	probe_hardware(&in, &inv);
	probe_kernel(&in, &inv);
	for (size_t i = 0; i < inv.hw.ngpus && m->ngpus < 16; i++)
		if (inv.hw.gpus[i].device >= 0)
			m->device[m->ngpus++] = (unsigned)inv.hw.gpus[i].device;
	if (inv.kernel.module_version && strlen(inv.kernel.module_version) < sizeof(m->driver)) {
		snprintf(m->driver, sizeof(m->driver), "%s", inv.kernel.module_version);
		snprintf(m->driver_from, sizeof(m->driver_from), "%s",
			 inv.kernel.module_version_source);
	}
	inventory_release(&inv);
	return 0;
}
