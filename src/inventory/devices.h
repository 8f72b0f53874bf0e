/*
 * devices.h - the devices layer's part of the inventory: the /dev/nvidia*
 * nodes CUDA opens, and whether this user may use them, as facts.
 *
 * probe_devices() (probes/devices/devices.h) fills it; rules and renderers
 * read it through struct inventory (inventory/inventory.h).  Unknown is -1.
 *
 *	for (size_t i = 0; i < inv->devices.n; i++)
 *		use(inv->devices.nodes[i].path, inv->devices.nodes[i].usable);
 */
#ifndef GD_INVENTORY_DEVICES_H
#define GD_INVENTORY_DEVICES_H

#include <stddef.h>

struct dev_node {
	char *path;		/* "/dev/nvidia0", as the machine sees it */
	int required;		/* 0 for /dev/nvidia-uvm-tools */
	const char *bdf;	/* the GPU of a /dev/nvidiaN (points into the hw inventory), or NULL */
	int present;		/* 1 exists, 0 missing */
	int is_chr;		/* 1 character device, 0 something else, -1 unknown */
	long major, minor;	/* -1 unknown */
	long mode;		/* permission bits, -1 unknown */
	long uid, gid;		/* -1 unknown */
	int usable;		/* 1 read+write for us, 0 not, -1 unknown */
	char *why;		/* why not usable (strerror or the mode that forbids it) */
};

struct devices_inventory {
	int probed;		/* the static probe ran */
	struct dev_node *nodes;
	size_t n, cap;
	int in_container;	/* /.dockerenv or /run/.containerenv exists in the root */
	const char *container_marker;	/* which of them, or NULL */
	long euid;		/* whose permission "usable" judges */
};

void devices_inventory_init(struct devices_inventory *p);
void devices_inventory_release(struct devices_inventory *p);

#endif
