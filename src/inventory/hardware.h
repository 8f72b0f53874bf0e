/*
 * hardware.h - the hardware layer's part of the inventory: the NVIDIA
 * functions on the PCI bus (GPUs and NVSwitch bridges), as facts.
 *
 * probe_hardware() (probes/hardware/hardware.h) fills it; rules and
 * renderers read it through struct inventory (inventory/inventory.h), with
 * the small helpers below.  Unknown numbers are -1 (NAN for speeds),
 * unknown strings NULL.
 *
 *	const struct hw_pci_fn *g = hw_gpu_by_bdf(&inv->hw, "0000:18:00.0");
 *	if (g && hw_driver_is_nouveau(g->driver)) ...
 *	int gen = hw_pcie_gen(g->max_speed_gts);
 */
#ifndef GD_INVENTORY_HARDWARE_H
#define GD_INVENTORY_HARDWARE_H

#include <stddef.h>

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

/* The GPU with this bus id ("0000:18:00.0") in hw, or NULL. */
const struct hw_pci_fn *hw_gpu_by_bdf(const struct hw_inventory *hw, const char *bdf);
/* Is this driver name the in-kernel nouveau or nova-core driver? */
int hw_driver_is_nouveau(const char *driver);
/* PCIe generation of a link speed in GT/s (2.5 -> 1 ... 64 -> 6), -1 unknown. */
int hw_pcie_gen(double gts);

#endif
