/* test_hardware.c - the sysfs value parsers of the hardware probe. */
#include "tap.h"
#include "probes/hardware/hardware.h"

#include <math.h>
#include <string.h>

/* A config space image with ext caps: AER at 0x100 -> (id at 0x148) */
static void cfg_cap(unsigned char *c, size_t off, unsigned id, size_t next)
{
	unsigned hdr = id | 1u << 16 | (unsigned)next << 20;

	c[off] = hdr & 0xff;
	c[off + 1] = hdr >> 8 & 0xff;
	c[off + 2] = hdr >> 16 & 0xff;
	c[off + 3] = hdr >> 24 & 0xff;
}

static void test_acs(void)
{
	static unsigned char c[4096];
	int ctl;

	memset(c, 0, sizeof(c));
	cfg_cap(c, 0x100, 0x0001, 0x148);
	cfg_cap(c, 0x148, 0x000d, 0);
	c[0x14e] = 0x1d;
	CHECK_INT(pcie_acs_ctl(c, sizeof(c), &ctl), 1);
	CHECK_INT(ctl, 0x1d);
	/* a non-root reader gets 64 bytes: unknown */
	CHECK_INT(pcie_acs_ctl(c, 64, &ctl), -1);
	CHECK_INT(ctl, -1);
	/* the image ends inside the ACS capability */
	CHECK_INT(pcie_acs_ctl(c, 0x14a, &ctl), 0);
	CHECK_INT(pcie_acs_ctl(c, 0x14c, &ctl), -1);
	/* no ACS in the list */
	cfg_cap(c, 0x148, 0x0010, 0);
	CHECK_INT(pcie_acs_ctl(c, sizeof(c), &ctl), 0);
	CHECK_INT(ctl, -2);
	/* a list that points at itself ends */
	cfg_cap(c, 0x100, 0x0001, 0x100);
	CHECK_INT(pcie_acs_ctl(c, sizeof(c), &ctl), 0);
	/* all ones: the extended space is not readable */
	memset(c + 0x100, 0xff, 4);
	CHECK_INT(pcie_acs_ctl(c, sizeof(c), &ctl), -1);
	CHECK_INT(pcie_acs_ctl(NULL, 0, &ctl), -1);
}

static void test_bar1(void)
{
	long long size;
	int a;

	CHECK_INT(pcie_resource_bar1("0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
				     "0x0000038000000000 0x0000039fffffffff 0x000000000014220c\n", &size, &a), 0);
	CHECK(size == 128ll << 30);
	CHECK_INT(a, 1);
	CHECK_INT(pcie_resource_bar1("0x1 0x2 0x3\n0x0000000000000000 0x0000000000000000 "
				     "0x0000000000000000\n", &size, &a), 0);
	CHECK_INT(a, 0);
	CHECK(size == -1);
	/* IORESOURCE_UNSET: the size stays, the address does not */
	CHECK_INT(pcie_resource_bar1("x\n0x0000000000000000 0x000000000fffffff 0x000000002014220c\n",
				     &size, &a), 0);
	CHECK_INT(a, 0);
	CHECK(size == 256ll << 20);
	CHECK_INT(pcie_resource_bar1("only one line\n", &size, &a), -1);
	CHECK_INT(pcie_resource_bar1("x\n0x10 0x1 0x200\n", &size, &a), -1);	/* end < start */
	CHECK_INT(pcie_resource_bar1("x\n0x10 0x20 0x200 junk\n", &size, &a), -1);
	/* An H200 in a VM, read on 2026-12-01: BAR0 is 64-bit (line 1 its empty
	 * upper half), BAR1 256 GiB on line 2.  Read as line 1, it looked
	 * unassigned: a false pcie-bar1-unmapped on a healthy GPU. */
	CHECK_INT(pcie_resource_bar1("0x0000104002000000 0x0000104002ffffff 0x000000000014220c\n"
				     "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
				     "0x0000100000000000 0x0000103fffffffff 0x000000000014220c\n"
				     "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
				     "0x0000104000000000 0x0000104001ffffff 0x000000000014220c\n", &size, &a), 0);
	CHECK_INT(a, 1);
	CHECK_INT(size, 256ll << 30);
	/* the same with BAR1 unplaced: still unassigned */
	CHECK_INT(pcie_resource_bar1("0x0000104002000000 0x0000104002ffffff 0x000000000014220c\n"
				     "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
				     "0x0000000000000000 0x0000000000000000 0x0000000000000000\n", &size, &a), 0);
	CHECK_INT(a, 0);
	CHECK_INT(pcie_resource_bar1(NULL, &size, &a), -1);
	CHECK_INT(a, -1);
}

static void test_hex(void)
{
	CHECK_INT(hw_parse_hex("0x10de\n"), 0x10de);
	CHECK_INT(hw_parse_hex("0x030200"), 0x030200);
	CHECK_INT(hw_parse_hex("10DE"), 0x10de);
	CHECK_INT(hw_parse_hex(""), -1);
	CHECK_INT(hw_parse_hex("0xzz"), -1);
	CHECK_INT(hw_parse_hex("0x10de junk"), -1);
	CHECK_INT(hw_parse_hex(NULL), -1);
	CHECK_INT(hw_parse_hex("-0x1"), -1);
}

static void test_int(void)
{
	CHECK_INT(hw_parse_int("16\n"), 16);
	CHECK_INT(hw_parse_int("0"), 0);
	CHECK_INT(hw_parse_int("-1\n"), -1);	/* numa_node "none" */
	CHECK_INT(hw_parse_int("x16"), -1);
	CHECK_INT(hw_parse_int("99999999999999999999"), -1);
	CHECK_INT(hw_parse_int(NULL), -1);
}

static void test_link_speed(void)
{
	CHECK(hw_parse_link_speed("32.0 GT/s PCIe") == 32.0);
	CHECK(hw_parse_link_speed("8 GT/s") == 8.0);
	CHECK(hw_parse_link_speed("2.5 GT/s PCIe\n") == 2.5);
	CHECK(isnan(hw_parse_link_speed("Unknown")));
	CHECK(isnan(hw_parse_link_speed("Unknown speed")));
	CHECK(isnan(hw_parse_link_speed("16.0")));
	CHECK(isnan(hw_parse_link_speed("")));
	CHECK(isnan(hw_parse_link_speed(NULL)));
}

static void test_gen(void)
{
	CHECK_INT(hw_pcie_gen(2.5), 1);
	CHECK_INT(hw_pcie_gen(8.0), 3);
	CHECK_INT(hw_pcie_gen(32.0), 5);
	CHECK_INT(hw_pcie_gen(64.0), 6);
	CHECK_INT(hw_pcie_gen(7.0), -1);
	CHECK_INT(hw_pcie_gen(NAN), -1);
}

static void test_nouveau_names(void)
{
	CHECK(hw_driver_is_nouveau("nouveau"));
	CHECK(hw_driver_is_nouveau("NovaCore"));
	CHECK(hw_driver_is_nouveau("nova_core"));
	CHECK(!hw_driver_is_nouveau("nvidia"));
	CHECK(!hw_driver_is_nouveau("vfio-pci"));
	CHECK(!hw_driver_is_nouveau(NULL));
}

int main(void)
{
	RUN(test_hex);
	RUN(test_int);
	RUN(test_link_speed);
	RUN(test_gen);
	RUN(test_nouveau_names);
	RUN(test_acs);
	RUN(test_bar1);
	return tap_done();
}
