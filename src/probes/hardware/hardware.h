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
 */
#ifndef GD_PROBE_HARDWARE_H
#define GD_PROBE_HARDWARE_H

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

#define PCI_VENDOR_NVIDIA 0x10de

/* One PCI function.  Unknown numbers are -1, unknown strings NULL. */
struct hw_pci_fn {
	char *bdf;		/* "0000:18:00.0" */
	long vendor, device;
	long subsys_vendor, subsys_device;
	long class_code;	/* 24 bits, 0x030200 */
	char *driver;		/* "nvidia", "vfio-pci", NULL when none is bound */
	char *link_speed;	/* as sysfs prints it: "16.0 GT/s PCIe" */
	char *link_max_speed;
	double speed_gts, max_speed_gts;	/* parsed, NAN unknown */
	int width, max_width;	/* lanes, -1 unknown */
	int numa_node;		/* -1: none or unknown (sysfs prints -1 too) */
	/* the upstream port (the slot): the parent of the function's real sysfs path */
	double port_max_speed_gts;	/* NAN unknown (a GPU on the root bus has none) */
	int port_max_width;		/* -1 unknown */
};

struct hw_inventory {
	int probed;		/* the static probe ran */
	char *error;		/* why the PCI bus could not be listed, or NULL */
	size_t nfunctions;	/* PCI functions listed (of any vendor) */
	struct hw_pci_fn *gpus;
	size_t ngpus, gpus_cap;
	struct hw_pci_fn *nvswitches;
	size_t nnvswitches, nvswitches_cap;
};

void hw_inventory_init(struct hw_inventory *p);
void hw_inventory_release(struct hw_inventory *p);

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
/* The GPU with this bus id ("0000:18:00.0") in hw, or NULL. */
const struct hw_pci_fn *hw_gpu_by_bdf(const struct hw_inventory *hw, const char *bdf);

/* Parsers of sysfs values, exposed for the tests. */
/* "0x10de\n" -> 0x10de; -1 when not a hex number. */
long hw_parse_hex(const char *s);
/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; NAN for "Unknown" and junk. */
double hw_parse_link_speed(const char *s);
/* "16" -> 16; -1 when not a non-negative decimal. */
int hw_parse_int(const char *s);

/* Is this driver name the in-kernel nouveau or nova-core driver? */
int hw_driver_is_nouveau(const char *driver);
/* PCIe generation of a link speed in GT/s (2.5 -> 1 ... 64 -> 6), -1 unknown. */
int hw_pcie_gen(double gts);

#endif
