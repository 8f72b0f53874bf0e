/* test_devices.c - permission judgement and the Device Minor parser. */
#include "tap.h"
#include "probes/devices/devices.h"

#include <string.h>
#include <sys/stat.h>

static struct stat node(mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFCHR | mode;
	st.st_uid = uid;
	st.st_gid = gid;
	return st;
}

static void test_rw_classes(void)
{
	struct stat st = node(0660, 0, 44);
	gid_t video = 44, other = 100;
	char why[160];

	CHECK_INT(devices_mode_allows_rw(&st, 1000, 1000, NULL, 0, why, sizeof(why)), 0);
	CHECK(strstr(why, "0660") != NULL);
	CHECK(strstr(why, "other users") != NULL);
	CHECK_INT(devices_mode_allows_rw(&st, 1000, 1000, &video, 1, NULL, 0), 1);
	CHECK_INT(devices_mode_allows_rw(&st, 1000, 44, &other, 1, NULL, 0), 1);
	CHECK_INT(devices_mode_allows_rw(&st, 0, 0, NULL, 0, NULL, 0), 1);
	st = node(0666, 0, 0);
	CHECK_INT(devices_mode_allows_rw(&st, 1000, 1000, NULL, 0, NULL, 0), 1);
	/* Owner bits only apply to the owner, even when "other" would allow. */
	st = node(0406, 1000, 0);
	CHECK_INT(devices_mode_allows_rw(&st, 1000, 1000, NULL, 0, why, sizeof(why)), 0);
	CHECK(strstr(why, "owner") != NULL);
	/* Read-only is not enough. */
	st = node(0444, 0, 0);
	CHECK_INT(devices_mode_allows_rw(&st, 1000, 1000, NULL, 0, NULL, 0), 0);
}

static void test_minor(void)
{
	static const char info[] = "Model: \t\t NVIDIA H200\nIRQ:   \t\t 35\n"
				   "GPU UUID: \t GPU-x\nDevice Minor: \t 3\nBus Type: \t PCIe\n";

	CHECK_INT(devices_parse_minor(info, strlen(info)), 3);
	CHECK_INT(devices_parse_minor("Device Minor: \n", 15), -1);
	CHECK_INT(devices_parse_minor("", 0), -1);
	CHECK_INT(devices_parse_minor("Device Minor: 7", 15), 7);
	CHECK_INT(devices_parse_minor("Device Minor: 7", 14), -1);
}

int main(void)
{
	RUN(test_rw_classes);
	RUN(test_minor);
	return tap_done();
}
