/* bench_pcie.c - PCIe link arithmetic and sysfs link state; see bench_pcie.h. */
#include "bench/bench_pcie.h"
#include "core/buf.h"
#include "core/fs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	double gts;
	int gen;
	double efficiency;	/* payload share of the raw bit rate */
} rates[] = {
	{ 2.5, 1, 8.0 / 10.0 },
	{ 5.0, 2, 8.0 / 10.0 },
	{ 8.0, 3, 128.0 / 130.0 },
	{ 16.0, 4, 128.0 / 130.0 },
	{ 32.0, 5, 128.0 / 130.0 },
	{ 64.0, 6, 236.0 / 256.0 },	/* FLIT mode: TLP bytes per 256-byte flit */
};

static int bench_pcie_rate(double gts)
{
	if (!(gts > 0))
		return -1;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (fabs(rates[i].gts - gts) < 0.05)
			return (int)i;
	return -1;
}

double bench_pcie_lane_gbs(double gts)
{
	int i = bench_pcie_rate(gts);

	return i < 0 ? NAN : rates[i].gts * rates[i].efficiency / 8.0;
}

double bench_pcie_link_gbs(double gts, int width)
{
	if (width <= 0)
		return NAN;
	return bench_pcie_lane_gbs(gts) * width;
}

int bench_pcie_gen(double gts)
{
	int i = bench_pcie_rate(gts);

	return i < 0 ? -1 : rates[i].gen;
}

double bench_pcie_parse_speed(const char *s)
{
	char *end;
	double v;

	if (!s)
		return NAN;
	v = strtod(s, &end);
	if (end == s || !(v > 0) || v > 1000)
		return NAN;
	while (*end == ' ')
		end++;
	return strncmp(end, "GT/s", 4) ? NAN : v;
}

int bench_pcie_parse_width(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -1;
	v = strtol(s, &end, 10);
	if (end == s || v <= 0 || v > 64)
		return -1;
	return (int)v;
}

int bench_pcie_normalize_bdf(const char *in, char out[16])
{
	unsigned dom, bus, dev, fn;
	char tail;

	if (!in || strspn(in, "0123456789abcdefABCDEF:.") != strlen(in) ||
	    sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static void bench_pcie_attr(const char *root, const char *dir, const char *name,
			    struct buf *val)
{
	struct buf path = BUF_INIT;

	buf_printf(&path, "%s/%s", dir, name);
	if (fs_read_line(root, path.s, val, NULL) < 0)
		buf_reset(val);
	buf_release(&path);
}

void bench_pcie_read_current(const char *root, const char *bdf, double *gts, int *width)
{
	struct buf dir = BUF_INIT, v = BUF_INIT;

	buf_printf(&dir, "/sys/bus/pci/devices/%s", bdf);
	bench_pcie_attr(root, dir.s, "current_link_speed", &v);
	*gts = bench_pcie_parse_speed(v.s);
	bench_pcie_attr(root, dir.s, "current_link_width", &v);
	*width = bench_pcie_parse_width(v.s);
	buf_release(&dir);
	buf_release(&v);
}

void bench_pcie_read(const char *root, const char *bdf, struct bench_link *link)
{
	struct buf dir = BUF_INIT, v = BUF_INIT, real = BUF_INIT;
	char *slash;

	buf_printf(&dir, "/sys/bus/pci/devices/%s", bdf);
	bench_pcie_read_current(root, bdf, &link->cur_gts, &link->cur_width);
	bench_pcie_attr(root, dir.s, "max_link_speed", &v);
	link->max_gts = bench_pcie_parse_speed(v.s);
	bench_pcie_attr(root, dir.s, "max_link_width", &v);
	link->max_width = bench_pcie_parse_width(v.s);
	/* The upstream port is the parent directory of the device's real path
	 * (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0); a GPU on the
	 * root bus has none, and then the slot is unknown. */
	if (fs_resolve(root, dir.s, &real, NULL) == 0 && (slash = strrchr(real.s, '/')) &&
	    slash > real.s) {
		char bdfbuf[16];

		*slash = '\0';
		real.len = (size_t)(slash - real.s);
		slash = strrchr(real.s, '/');
		if (slash && bench_pcie_normalize_bdf(slash + 1, bdfbuf) == 0) {
			bench_pcie_attr(root, real.s, "max_link_speed", &v);
			link->port_max_gts = bench_pcie_parse_speed(v.s);
			bench_pcie_attr(root, real.s, "max_link_width", &v);
			link->port_max_width = bench_pcie_parse_width(v.s);
		}
	}
	buf_release(&dir);
	buf_release(&v);
	buf_release(&real);
}
