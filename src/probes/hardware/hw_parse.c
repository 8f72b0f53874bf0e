/*
 * hw_parse.c - the number formats of PCI sysfs attributes (vendor and class
 * in hex, widths in decimal, "32.0 GT/s PCIe" link speeds), shared by the
 * hardware probe and the PCIe platform probe (pcie_platform.c); declared in
 * hardware.h.  A leaf: it calls nothing of either probe.
 */
#include "probes/hardware/hardware.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

long hw_parse_hex(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 16);	/* accepts an optional 0x */
	if (errno || end == s || v < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : v;
}

int hw_parse_int(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v > 1 << 20)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : (int)v;
}

double hw_parse_link_speed(const char *s)
{
	char *end;
	double v;

	if (!s)
		return NAN;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return NAN;	/* "Unknown" (link down, or a VM's emulated port) */
	v = strtod(s, &end);
	while (*end == ' ')
		end++;
	if (strncmp(end, "GT/s", 4) != 0 || !(v > 0) || v > 1000)
		return NAN;
	return v;
}
