/*
 * platform.h - the platform probe: WSL1/WSL2, a GPU Operator node's driver
 * container, kernel lockdown, the distribution and glibc (inventory/platform.h).  Files only, through
 * core/fs.h, so a --root tree (a fixture, or the host at /host inside
 * gpudoctor's own DaemonSet) is read as the machine.
 *
 *	probe_platform(&in, &inv);	// once, before the layers' probes
 */
#ifndef GD_PROBE_PLATFORM_H
#define GD_PROBE_PLATFORM_H

#include "inventory/inventory.h"

struct probe_in;

void probe_platform(const struct probe_in *in, struct inventory *inv);
/* The distribution (os-release) and glibc version of the tree at root
 * (platform_os.c); probe_platform calls it. */
void probe_platform_os(const char *root, struct platform_inventory *p);

#endif
