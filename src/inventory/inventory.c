/* inventory.c - lifecycle of the whole inventory; each part owns its release. */
#include "inventory/inventory.h"

#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

void inventory_init(struct inventory *inv)
{
	memset(inv, 0, sizeof(*inv));
	platform_inventory_init(&inv->platform);
	hw_inventory_init(&inv->hw);
	kernel_inventory_init(&inv->kernel);
	devices_inventory_init(&inv->devices);
	containers_inventory_init(&inv->containers);
	driver_inventory_init(&inv->driver);
	cuda_inventory_init(&inv->cuda);
	libraries_inventory_init(&inv->libs);
	frameworks_inventory_init(&inv->fw);
}

void inventory_release(struct inventory *inv)
{
	platform_inventory_release(&inv->platform);
	hw_inventory_release(&inv->hw);
	kernel_inventory_release(&inv->kernel);
	devices_inventory_release(&inv->devices);
	containers_inventory_release(&inv->containers);
	driver_inventory_release(&inv->driver);
	cuda_inventory_release(&inv->cuda);
	libraries_inventory_release(&inv->libs);
	frameworks_inventory_release(&inv->fw);
	pyenv_list_release(&inv->pyenvs);
}
