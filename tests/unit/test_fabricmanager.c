/* test_fabricmanager.c - the installed Fabric Manager version in dpkg's status text. */
#include "tap.h"
#include "probes/driver/driver.h"

#include <stdlib.h>

static void check_version(const char *text, const char *want, const char *want_pkg)
{
	char *pkg = NULL, *v = fabricmanager_dpkg_version(text, &pkg);

	if (want) {
		CHECK_STR(v, want);
		CHECK_STR(pkg, want_pkg);
	} else {
		CHECK(v == NULL);
		CHECK(pkg == NULL);
	}
	free(v);
	free(pkg);
}

static void test_dpkg(void)
{
	check_version("Package: libc6\nStatus: install ok installed\nVersion: 2.39-0ubuntu8\n\n"
		      "Package: nvidia-fabricmanager-580\nStatus: install ok installed\n"
		      "Version: 580.95.05-0ubuntu0.24.04.1\n", "580.95.05", "nvidia-fabricmanager-580");
	/* the CUDA repository's name, an epoch */
	check_version("Package: nvidia-fabricmanager\nStatus: install ok installed\n"
		      "Version: 1:570.172.08-1\n", "570.172.08", "nvidia-fabricmanager");
	/* removed (config files left) and -dev packages are not Fabric Manager */
	check_version("Package: nvidia-fabricmanager-550\nStatus: deinstall ok config-files\n"
		      "Version: 550.54.15-1\n\nPackage: nvidia-fabricmanager-dev-580\n"
		      "Status: install ok installed\nVersion: 580.95.05-1\n", NULL, NULL);
	check_version("Package: nvidia-fabricmanager-580\nStatus: install ok installed\n"
		      "Version: -garbage\n", NULL, NULL);
	check_version("", NULL, NULL);
	check_version("\n\n\n\nPackage: nvidia-fabricmanager", NULL, NULL);
}

int main(void)
{
	RUN(test_dpkg);
	return tap_done();
}
