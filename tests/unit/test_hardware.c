/* test_hardware.c - the sysfs value parsers of the hardware probe. */
#include "tap.h"
#include "probes/hardware/hardware.h"

#include <math.h>

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
	return tap_done();
}
