/* devices.c - the devices part of the inventory: its lifecycle; see devices.h. */
#include "inventory/devices.h"

#include <stdlib.h>
#include <string.h>

void devices_inventory_init(struct devices_inventory *p)
{
	memset(p, 0, sizeof(*p));
	p->euid = -1;
}

void devices_inventory_release(struct devices_inventory *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->nodes[i].path);
		free(p->nodes[i].why);
	}
	free(p->nodes);
	memset(p, 0, sizeof(*p));
}
