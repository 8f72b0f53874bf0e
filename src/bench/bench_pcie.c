/* bench_pcie.c - PCIe link arithmetic and sysfs link state; see bench_pcie.h. */
#include "bench/bench_pcie.h"
#include "probes/hardware/hardware.h"

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

void bench_pcie_read_current(const char *root, const char *bdf, double *gts, int *width)
{
	/* the hardware probe owns PCI sysfs: one reader of the link state */
	hw_read_link_now(root, bdf, gts, width);
	if (*width <= 0)
		*width = -1;
}

void bench_pcie_from_probe(const struct hw_pci_fn *f, struct bench_link *link)
{
	link->cur_gts = f->speed_gts;
	link->cur_width = f->width > 0 ? f->width : -1;
	link->max_gts = f->max_speed_gts;
	link->max_width = f->max_width > 0 ? f->max_width : -1;
	link->port_max_gts = f->port_max_speed_gts;
	link->port_max_width = f->port_max_width > 0 ? f->port_max_width : -1;
}
