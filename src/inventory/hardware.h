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
	/*
	 * The PCIe platform (GPUs only; probes/hardware/pcie_platform.c).
	 * BAR1, the GPU's large 64-bit aperture, from line 1 of sysfs `resource`.
	 */
	long long bar1_size;		/* bytes, -1 unknown */
	int bar1_assigned;		/* 1 an address is assigned, 0 not, -1 unknown */
	int iommu_group;		/* -1 none or unknown */
	char *iommu_type;		/* the group's `type`: "identity" (passthrough), "DMA", "DMA-FQ"; NULL */
	char **upstream;		/* the bridges above it (BDFs), nearest first; index into bridges */
	size_t nupstream;
};

/*
 * A PCI bridge above a GPU, with its ACS control register (PCIe extended
 * capability 0x000D, read from sysfs `config`; the extended space is
 * readable only by root).
 */
struct hw_bridge {
	char *bdf;
	int acs_ctl;		/* ACS Control register; -1 unknown (config not readable), -2 no ACS */
};

/* ACS Control bits (PCIe Base Specification, ACS Extended Capability). */
#define HW_ACS_SV 0x01		/* Source Validation */
#define HW_ACS_RR 0x04		/* P2P Request Redirect */
#define HW_ACS_CR 0x08		/* P2P Completion Redirect */
#define HW_ACS_P2P_BLOCKING (HW_ACS_SV | HW_ACS_RR | HW_ACS_CR)

struct hw_inventory {
	int probed;		/* the static probe ran */
	char *error;		/* why the PCI bus could not be listed, or NULL */
	size_t nfunctions;	/* PCI functions listed (of any vendor) */
	struct hw_pci_fn *gpus;
	size_t ngpus, gpus_cap;
	struct hw_pci_fn *nvswitches;
	size_t nnvswitches, nvswitches_cap;
	struct hw_bridge *bridges;	/* every bridge above a GPU, once */
	size_t nbridges, bridges_cap;
	/* The IOMMU: units in /sys/class/iommu (-1 unknown), groups in /sys/kernel/iommu_groups. */
	int iommu_units, iommu_groups;
	char *iommu_cmdline;		/* the iommu options of /proc/cmdline ("intel_iommu=on iommu=pt"), NULL */
};

void hw_inventory_init(struct hw_inventory *p);
void hw_inventory_release(struct hw_inventory *p);

/* The bridge with this bus id in hw->bridges, or NULL. */
const struct hw_bridge *hw_bridge_by_bdf(const struct hw_inventory *hw, const char *bdf);
/* The GPU with this bus id ("0000:18:00.0") in hw, or NULL. */
const struct hw_pci_fn *hw_gpu_by_bdf(const struct hw_inventory *hw, const char *bdf);
/* Is this driver name the in-kernel nouveau or nova-core driver? */
int hw_driver_is_nouveau(const char *driver);
/* PCIe generation of a link speed in GT/s (2.5 -> 1 ... 64 -> 6), -1 unknown. */
int hw_pcie_gen(double gts);

#endif
