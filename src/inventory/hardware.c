/* hardware.c - the hardware part of the inventory: its lifecycle and lookups; see hardware.h. */
#include "inventory/hardware.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void hw_fn_release(struct hw_pci_fn *f)
{
	free(f->bdf);
	free(f->driver);
	free(f->link_speed);
	free(f->link_max_speed);
	free(f->iommu_type);
	for (size_t i = 0; i < f->nupstream; i++)
		free(f->upstream[i]);
	free(f->upstream);
}

void hw_inventory_init(struct hw_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->iommu_units = -1;
	p->iommu_groups = -1;
}

const struct hw_bridge *hw_bridge_by_bdf(const struct hw_inventory *hw, const char *bdf)
{
	for (size_t i = 0; bdf && i < hw->nbridges; i++)
		if (!strcasecmp(hw->bridges[i].bdf, bdf))
			return &hw->bridges[i];
	return NULL;
}

void hw_inventory_release(struct hw_inventory *p)
{
	for (size_t i = 0; i < p->ngpus; i++)
		hw_fn_release(&p->gpus[i]);
	for (size_t i = 0; i < p->nnvswitches; i++)
		hw_fn_release(&p->nvswitches[i]);
	free(p->gpus);
	free(p->nvswitches);
	for (size_t i = 0; i < p->nbridges; i++)
		free(p->bridges[i].bdf);
	free(p->bridges);
	free(p->iommu_cmdline);
	free(p->error);
	memset(p, 0, sizeof(*p));
}

const struct hw_pci_fn *hw_gpu_by_bdf(const struct hw_inventory *hw, const char *bdf)
{
	for (size_t i = 0; bdf && i < hw->ngpus; i++)
		if (!strcasecmp(hw->gpus[i].bdf, bdf))
			return &hw->gpus[i];
	return NULL;
}

int hw_pcie_gen(double gts)
{
	static const double speeds[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0 };

	if (isnan(gts))
		return -1;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (fabs(gts - speeds[i]) < 0.01)
			return (int)i + 1;
	return -1;
}

int hw_driver_is_nouveau(const char *driver)
{
	/* nova-core's PCI driver registers as "NovaCore" (the NVRM message
	 * "already bound to NovaCore"); accept the module spellings too. */
	static const char *const names[] = { "nouveau", "NovaCore", "nova_core", "nova-core", "nova" };

	if (!driver)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(driver, names[i]))
			return 1;
	return 0;
}
