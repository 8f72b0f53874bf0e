/*
 * hardware.h - facts of the hardware layer: NVIDIA functions on the PCI bus.
 *
 * probe_hardware() walks /sys/bus/pci/devices (inside --root) and keeps the
 * NVIDIA functions (vendor 0x10de) of the display class (0x03xxxx: VGA or 3D
 * controller) as GPUs, and those of class 0x0680xx as NVSwitch bridges.  For
 * each it records the ids, the bound kernel driver (basename of the `driver`
 * link), the PCIe link now and at most, and the NUMA node.  Nothing here
 * judges: a GPU without a driver simply has driver == NULL.  The GPU's name
 * is not known here (probes get no knowledge base); rules look it up.
 *
 *	probe_hardware(ctx, inv);
 *	for (size_t i = 0; i < inv->hw.ngpus; i++)
 *		use(inv->hw.gpus[i].bdf, inv->hw.gpus[i].driver);
 *
 * The facts themselves (struct hw_inventory and its parts) are
 * the inventory's: inventory/hardware.h, which this header includes.
 */
#ifndef GD_PROBE_HARDWARE_H
#define GD_PROBE_HARDWARE_H

#include "inventory/hardware.h"

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_hardware(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_hardware_live(const struct gd_ctx *ctx, struct inventory *inv);

/*
 * The function's link as it is at this moment (GT/s per lane, lanes; NAN /
 * -1 unknown): an idle GPU trains its link down to save power, so bench
 * reads it again while copies run.  The only other reader of PCI sysfs
 * besides probe_hardware.
 */
void hw_read_link_now(const char *root, const char *bdf, double *gts, int *width);

/* Parsers of sysfs values, exposed for the tests. */
/* "0x10de\n" -> 0x10de; -1 when not a hex number. */
long hw_parse_hex(const char *s);
/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; NAN for "Unknown" and junk. */
double hw_parse_link_speed(const char *s);
/* "16" -> 16; -1 when not a non-negative decimal. */
int hw_parse_int(const char *s);

/*
 * pcie_acs.c: the ACS Control register of a config space image (cfg, len
 * bytes): 1 and *ctl when the ACS capability is there, 0 and *ctl = -2 when
 * not, -1 and *ctl = -1 when the image has no readable extended space.
 */
int pcie_acs_ctl(const unsigned char *cfg, size_t len, int *ctl);
/*
 * BAR1 from the text of sysfs `resource` (line 1): 0 with *size (bytes, -1
 * unknown) and *assigned (1/0), or -1 when the line is missing or garbled.
 */
int pcie_resource_bar1(const char *text, long long *size, int *assigned);
/* pcie_platform.c: BAR1, IOMMU group, the bridges above each GPU and their ACS. */
void pcie_platform_probe(const char *root, struct hw_inventory *hw);

#endif
