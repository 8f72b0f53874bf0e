/*
 * pcie_acs.c - parsers of the PCIe platform facts: the ACS Control register
 * from a function's configuration space image (sysfs `config`), and BAR1
 * from sysfs `resource`.  Both inputs come from the machine and are hostile:
 * any length, any bytes.  Declared in probes/hardware/hardware.h; a unit test
 * (tests/unit/test_hardware.c) and a libFuzzer target (tests/fuzz/fuzz_pcie.c).
 *
 * Config space: the extended capability list starts at 0x100; each header is
 * a little-endian dword: capability id (bits 0-15), version (16-19), next
 * offset (20-31, 0 ends the list).  ACS is id 0x000D: its Capability
 * register at +4, its Control register at +6 (PCI Express Base
 * Specification, "ACS Extended Capability"; the decoding `lspci -vvv` prints
 * as ACSCap/ACSCtl).  A reader without root sees only the first 64 bytes.
 *
 * resource: one line per region, "0xSTART 0xEND 0xFLAGS" (Linux,
 * Documentation/PCI/sysfs-pci.rst).  NVIDIA's BAR1 (the framebuffer
 * aperture, 64-bit prefetchable) is the BAR after BAR0: line 1 when BAR0 is
 * a 32-bit BAR, line 2 when BAR0 is itself 64-bit (IORESOURCE_MEM_64 in its
 * flags: it takes two registers, and the kernel leaves line 1 empty).  An
 * H200 in a VM (2026-12-01) shows the second form: BAR0 16 MiB 64-bit on
 * line 0, line 1 zeros, BAR1 256 GiB on line 2.  A region the kernel could not place is all
 * zeros, or flagged IORESOURCE_UNSET / IORESOURCE_DISABLED
 * (include/linux/ioport.h), or starts at 0 with its size kept.
 */
#include "probes/hardware/hardware.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCIE_EXT_START 0x100
#define PCIE_EXT_ID_ACS 0x000d
#define IORESOURCE_DISABLED 0x10000000ull
#define IORESOURCE_UNSET 0x20000000ull
#define IORESOURCE_MEM_64 0x00100000ull

static unsigned pcie_le32(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

int pcie_acs_ctl(const unsigned char *cfg, size_t len, int *ctl)
{
	size_t off = PCIE_EXT_START;
	unsigned hdr;

	*ctl = -1;
	if (!cfg || len < PCIE_EXT_START + 4)
		return -1;
	hdr = pcie_le32(cfg + off);
	if (hdr == 0xffffffffu)
		return -1;	/* the extended space reads as all ones: not accessible */
	/* At most one capability per dword of the extended space: no loop runs forever. */
	for (int n = 0; n < (4096 - PCIE_EXT_START) / 4 && hdr; n++) {
		size_t next = (hdr >> 20) & 0xffc;

		if ((hdr & 0xffff) == PCIE_EXT_ID_ACS) {
			if (off + 8 > len)
				return -1;
			*ctl = cfg[off + 6] | cfg[off + 7] << 8;
			return 1;
		}
		if (next < PCIE_EXT_START || next + 4 > len)
			break;
		off = next;
		hdr = pcie_le32(cfg + off);
	}
	*ctl = -2;
	return 0;
}

/* Line `n` (0-based) of a resource file as three numbers; -1 if absent or
 * not of that form. */
static int pcie_resource_line(const char *text, int n, unsigned long long v[3])
{
	const char *line = text;
	size_t len;
	char buf[128], tail;

	for (int i = 0; i < n && line; i++)
		if ((line = strchr(line, '\n')))
			line++;
	if (!line || !*line)
		return -1;
	len = strcspn(line, "\n");
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	return sscanf(buf, "%llx %llx %llx %c", &v[0], &v[1], &v[2], &tail) == 3 ? 0 : -1;
}

int pcie_resource_bar1(const char *text, long long *size, int *assigned)
{
	unsigned long long bar0[3], v[3];
	int line = 1;

	*size = -1;
	*assigned = -1;
	if (!text)
		return -1;
	/* BAR0 64-bit: its upper half is line 1, BAR1 is line 2 */
	if (pcie_resource_line(text, 0, bar0) == 0 && (bar0[2] & IORESOURCE_MEM_64))
		line = 2;
	if (pcie_resource_line(text, line, v) < 0)
		return -1;
	if (!v[0] && !v[1] && !v[2]) {
		*assigned = 0;
		return 0;
	}
	if (v[1] < v[0])
		return -1;
	{
		unsigned long long sz = v[1] - v[0] + 1;

		*size = sz == 0 || sz > (unsigned long long)LLONG_MAX ? -1 : (long long)sz;
	}
	*assigned = (v[2] & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) || v[0] == 0 ? 0 : 1;
	return 0;
}
