/*
 * hardware.c - the hardware layer's probe: NVIDIA PCI functions from sysfs.
 *
 * One directory listing plus a few tiny reads per function: the vendor file
 * first (most functions are not NVIDIA's and cost one read), then the class,
 * then the rest only for the functions we keep.
 */
#include "probes/hardware/hardware.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

/* Read one attribute of a function; NULL when absent or unreadable. */
static char *hw_attr(const char *root, const char *bdf, const char *attr, struct buf *tmp)
{
	char *path = xasprintf(PCI_DEVICES "/%s/%s", bdf, attr);
	int r = fs_read_line(root, path, tmp, NULL);

	free(path);
	return r < 0 ? NULL : xstrdup(tmp->s);
}

static long hw_attr_hex(const char *root, const char *bdf, const char *attr, struct buf *tmp)
{
	char *s = hw_attr(root, bdf, attr, tmp);
	long v = hw_parse_hex(s);

	free(s);
	return v;
}

static int hw_attr_int(const char *root, const char *bdf, const char *attr, struct buf *tmp)
{
	char *s = hw_attr(root, bdf, attr, tmp);
	int v;

	if (!s)
		return -1;
	/* numa_node prints "-1" for "none": keep it as unknown (-1). */
	v = hw_parse_int(s);
	free(s);
	return v;
}

/* "0000:00:01.0": a PCI function's directory name, as a bridge's is. */
static int hw_looks_like_bdf(const char *s)
{
	unsigned dom, bus, dev, fn;
	char tail;

	return strspn(s, "0123456789abcdefABCDEF:.") == strlen(s) &&
	       sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

/*
 * The upstream port is the parent directory of the function's real path
 * (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0); a GPU on the root
 * bus has none, and then the slot is unknown.
 */
static void hw_port(const char *root, const char *bdf, struct hw_pci_fn *f, struct buf *tmp)
{
	struct buf real = BUF_INIT;
	char *dir = xasprintf(PCI_DEVICES "/%s", bdf), *slash;

	f->port_max_speed_gts = NAN;
	f->port_max_width = -1;
	if (fs_resolve(root, dir, &real, NULL) == 0 && (slash = strrchr(real.s, '/')) &&
	    slash > real.s) {
		*slash = '\0';
		slash = strrchr(real.s, '/');
		if (slash && hw_looks_like_bdf(slash + 1)) {
			char *p = xasprintf("%s/max_link_speed", real.s);

			if (fs_read_line(root, p, tmp, NULL) == 0)
				f->port_max_speed_gts = hw_parse_link_speed(tmp->s);
			free(p);
			p = xasprintf("%s/max_link_width", real.s);
			if (fs_read_line(root, p, tmp, NULL) == 0)
				f->port_max_width = hw_parse_int(tmp->s);
			free(p);
		}
	}
	free(dir);
	buf_release(&real);
}

static void hw_fill(const char *root, const char *bdf, long vendor, long class_code,
		    struct hw_pci_fn *f, struct buf *tmp)
{
	char *path = xasprintf(PCI_DEVICES "/%s/driver", bdf);
	const char *slash;

	memset(f, 0, sizeof(*f));
	f->bdf = xstrdup(bdf);
	f->vendor = vendor;
	f->class_code = class_code;
	f->device = hw_attr_hex(root, bdf, "device", tmp);
	f->subsys_vendor = hw_attr_hex(root, bdf, "subsystem_vendor", tmp);
	f->subsys_device = hw_attr_hex(root, bdf, "subsystem_device", tmp);
	if (fs_readlink(root, path, tmp, NULL) == 0 && tmp->len) {
		slash = strrchr(tmp->s, '/');
		f->driver = xstrdup(slash ? slash + 1 : tmp->s);
	}
	free(path);
	f->link_speed = hw_attr(root, bdf, "current_link_speed", tmp);
	f->link_max_speed = hw_attr(root, bdf, "max_link_speed", tmp);
	f->speed_gts = hw_parse_link_speed(f->link_speed);
	f->max_speed_gts = hw_parse_link_speed(f->link_max_speed);
	f->width = hw_attr_int(root, bdf, "current_link_width", tmp);
	f->max_width = hw_attr_int(root, bdf, "max_link_width", tmp);
	f->numa_node = hw_attr_int(root, bdf, "numa_node", tmp);
	f->bar1_size = -1;
	f->bar1_assigned = -1;
	f->iommu_group = -1;
	hw_port(root, bdf, f, tmp);
}

void hw_read_link_now(const char *root, const char *bdf, double *gts, int *width)
{
	struct buf tmp = BUF_INIT;
	char *s = hw_attr(root, bdf, "current_link_speed", &tmp);

	*gts = hw_parse_link_speed(s);
	free(s);
	*width = hw_attr_int(root, bdf, "current_link_width", &tmp);
	buf_release(&tmp);
}

void probe_hardware(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct hw_inventory *hw = &inv->hw;
	struct buf tmp = BUF_INIT;
	struct err e = ERR_INIT;
	char **names;
	size_t n;

	hw->probed = 1;
	if (fs_list_dir(ctx->root, PCI_DEVICES, &names, &n, &e) < 0) {
		hw->error = xstrdup(e.msg);
		return;
	}
	hw->nfunctions = n;
	for (size_t i = 0; i < n; i++) {
		long vendor = hw_attr_hex(ctx->root, names[i], "vendor", &tmp);
		long cls;

		if (vendor != PCI_VENDOR_NVIDIA)
			continue;
		cls = hw_attr_hex(ctx->root, names[i], "class", &tmp);
		if (cls >= 0 && (cls >> 16) == 0x03) {
			XGROW(hw->gpus, hw->ngpus, hw->gpus_cap);
			hw_fill(ctx->root, names[i], vendor, cls, &hw->gpus[hw->ngpus++], &tmp);
		} else if (cls >= 0 && (cls >> 8) == 0x0680) {
			XGROW(hw->nvswitches, hw->nnvswitches, hw->nvswitches_cap);
			hw_fill(ctx->root, names[i], vendor, cls,
				&hw->nvswitches[hw->nnvswitches++], &tmp);
		}
		/* Other NVIDIA functions (HDMI audio 0x0403, USB-C 0x0c03) are not GPUs. */
	}
	fs_names_free(names, n);
	buf_release(&tmp);
	pcie_platform_probe(ctx->root, hw);
}

void probe_hardware_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	/* Nothing to run: the bus is read statically. */
	(void)ctx;
	(void)inv;
}
