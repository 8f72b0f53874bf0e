/*
 * fuzz_pcie.c - libFuzzer target for the PCIe platform parsers of the
 * hardware probe (probes/hardware/pcie_acs.c): any bytes as a PCI
 * configuration space image (the ACS walk), and as the text of sysfs
 * `resource` (BAR1).
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "probes/hardware/hardware.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *cfg = malloc(size ? size : 1);
	char *text = malloc(size + 1);
	long long bar1;
	int ctl, assigned;

	if (!cfg || !text) {
		free(cfg);
		free(text);
		return 0;
	}
	/* An exact-size copy, so ASan sees any read past the image. */
	memcpy(cfg, data, size);
	pcie_acs_ctl(cfg, size, &ctl);
	memcpy(text, data, size);
	text[size] = '\0';
	pcie_resource_bar1(text, &bar1, &assigned);
	free(cfg);
	free(text);
	return 0;
}
