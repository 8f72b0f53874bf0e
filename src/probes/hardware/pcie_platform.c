/*
 * pcie_platform.c - the PCIe platform around the GPUs, from sysfs (and
 * config space where it is readable): each GPU's BAR1 and IOMMU group, the
 * bridges between it and its root port with their ACS Control register, and
 * the IOMMU's mode.  Called by probe_hardware() after the GPUs are listed;
 * declared in probes/hardware/hardware.h, parsers in pcie_acs.c.
 *
 * The bridges above a GPU are the PCI addresses in the real path of its
 * sysfs directory (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/
 * 0000:02:08.0/0000:04:00.0): a PCIe switch shows as its upstream port and
 * one downstream port per slot.  ACS matters on those ports: NCCL's
 * troubleshooting guide (PCI Access Control Services),
 * https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html
 */
#include "probes/hardware/hardware.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/strmap.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

/* "0000:02:08.0": a PCI function's directory name. */
static int pcie_is_bdf(const char *s, size_t n)
{
	unsigned dom, bus, dev, fn;
	char c[16], tail;

	if (n < 7 || n >= sizeof(c) || strspn(s, "0123456789abcdefABCDEF:.") < n)
		return 0;
	memcpy(c, s, n);
	c[n] = '\0';
	return sscanf(c, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

static void pcie_bridge_acs(const char *root, const char *dir, struct hw_bridge *b)
{
	struct buf cfg = BUF_INIT;
	char *path = xasprintf("%s/config", dir);

	b->acs_ctl = -1;
	if (fs_read_head(root, path, 4096, &cfg, NULL) == 0)
		pcie_acs_ctl((const unsigned char *)cfg.s, cfg.len, &b->acs_ctl);
	free(path);
	buf_release(&cfg);
}

/* The bridges of the GPU's real path, nearest first; new ones join hw->bridges. */
static void pcie_upstream(const char *root, struct hw_inventory *hw, struct hw_pci_fn *g,
			  struct strmap *seen)
{
	struct buf real = BUF_INIT;
	char *dir = xasprintf(PCI_DEVICES "/%s", g->bdf);
	char *slash;

	if (fs_resolve(root, dir, &real, NULL) < 0 || !(slash = strrchr(real.s, '/')))
		goto out;
	*slash = '\0';		/* the GPU itself */
	while ((slash = strrchr(real.s, '/')) && pcie_is_bdf(slash + 1, strlen(slash + 1))) {
		const char *bdf = slash + 1;
		size_t at;

		if (g->nupstream < 16) {
			g->upstream = xrealloc(g->upstream, (g->nupstream + 1) * sizeof(*g->upstream));
			g->upstream[g->nupstream++] = xstrdup(bdf);
		}
		if (!strmap_get(seen, bdf, &at) && hw->nbridges < 1024) {
			struct hw_bridge *b;

			XGROW(hw->bridges, hw->nbridges, hw->bridges_cap);
			b = &hw->bridges[hw->nbridges];
			memset(b, 0, sizeof(*b));
			b->bdf = xstrdup(bdf);
			pcie_bridge_acs(root, real.s, b);
			strmap_put(seen, b->bdf, hw->nbridges++);
		}
		*slash = '\0';
	}
out:
	free(dir);
	buf_release(&real);
}

static void pcie_bar1(const char *root, struct hw_pci_fn *g)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf(PCI_DEVICES "/%s/resource", g->bdf);

	if (fs_read_file(root, path, 64 * 1024, &b, NULL) == 0)
		pcie_resource_bar1(b.s, &g->bar1_size, &g->bar1_assigned);
	free(path);
	buf_release(&b);
}

static void pcie_iommu_group(const char *root, struct hw_pci_fn *g)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf(PCI_DEVICES "/%s/iommu_group", g->bdf);
	const char *slash;

	if (fs_readlink(root, path, &b, NULL) == 0 && (slash = strrchr(b.s, '/'))) {
		int n = hw_parse_int(slash + 1);

		g->iommu_group = n;
		free(path);
		path = xasprintf("/sys/kernel/iommu_groups/%d/type", n);
		if (n >= 0 && fs_read_line(root, path, &b, NULL) == 0 && b.len)
			g->iommu_type = xstrdup(b.s);
	}
	free(path);
	buf_release(&b);
}

static int pcie_count_dir(const char *root, const char *dir)
{
	char **names;
	size_t n;

	if (fs_list_dir(root, dir, &names, &n, NULL) < 0)
		return fs_is_dir(root, "/sys/kernel") ? 0 : -1;
	fs_names_free(names, n);
	return (int)n;
}

/* The IOMMU options of the kernel command line, as they are written there. */
static void pcie_iommu_cmdline(const char *root, struct hw_inventory *hw)
{
	struct buf b = BUF_INIT, opts = BUF_INIT;
	char *save = NULL;

	if (fs_read_line(root, "/proc/cmdline", &b, NULL) < 0)
		goto out;
	for (char *t = strtok_r(b.s, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if (!strncmp(t, "iommu", 5) || !strncmp(t, "intel_iommu=", 12) ||
		    !strncmp(t, "amd_iommu=", 10))
			buf_printf(&opts, "%s%s", opts.len ? " " : "", t);
	if (opts.len)
		hw->iommu_cmdline = xstrdup(opts.s);
out:
	buf_release(&b);
	buf_release(&opts);
}

void pcie_platform_probe(const char *root, struct hw_inventory *hw)
{
	struct strmap seen = STRMAP_INIT;

	for (size_t i = 0; i < hw->ngpus; i++) {
		struct hw_pci_fn *g = &hw->gpus[i];

		pcie_bar1(root, g);
		pcie_iommu_group(root, g);
		pcie_upstream(root, hw, g, &seen);
	}
	strmap_release(&seen);
	if (!hw->ngpus)
		return;
	hw->iommu_units = pcie_count_dir(root, "/sys/class/iommu");
	hw->iommu_groups = pcie_count_dir(root, "/sys/kernel/iommu_groups");
	pcie_iommu_cmdline(root, hw);
}
