/*
 * fuzz_procfs.c - libFuzzer target for the kernel layer's /proc and efivar
 * parsers: /proc/modules (whole file and single lines), the first line of
 * /proc/driver/nvidia/version, the SecureBoot efivar, and the "Device Minor"
 * line of /proc/driver/nvidia/gpus/BDF/information.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 * Links: src/probes/kernel/kernel.c src/probes/devices/devices.c src/probes/hardware/hardware.c
 *        src/core/buf.c src/core/err.c src/core/fs.c src/core/xalloc.c
 *
 *	clang -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=c11 -Isrc \
 *	  tests/fuzz/fuzz_procfs.c src/probes/kernel/kernel.c src/probes/devices/devices.c \
 *	  src/probes/hardware/hardware.c src/core/buf.c src/core/err.c src/core/fs.c \
 *	  src/core/xalloc.c -lm -o build-fuzz/fuzz_procfs
 *	build-fuzz/fuzz_procfs -max_total_time=60
 *
 * The input is copied into an exactly-sized heap buffer without a NUL, so
 * ASan catches any read past the length the parsers are given.
 */
#include "probes/devices/devices.h"
#include "probes/hardware/hardware.h"
#include "probes/kernel/kernel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct kmod_state mods[KMOD_COUNT], st;
	char name[64], ver[64], small[4];
	int open;

	if (!text)
		return 0;
	memcpy(text, data, size);

	kernel_parse_modules(text, size, mods);
	for (int i = 0; i < KMOD_COUNT; i++)
		if (mods[i].loaded == 1 && (strlen(mods[i].state) >= sizeof(mods[i].state) ||
					    strlen(mods[i].taint) >= sizeof(mods[i].taint)))
			abort();
	if (kernel_parse_modules_line(text, size, name, sizeof(name), &st) == 0 && !name[0])
		abort();
	if (kernel_parse_nvidia_version(text, size, ver, sizeof(ver), &open) == 0) {
		/* A version found is digits and dots, starting and ending with a digit. */
		size_t n = strlen(ver);

		if (!n || (n < sizeof(ver) - 1 && ver[n - 1] == '.') || ver[0] < '0' || ver[0] > '9' ||
		    strspn(ver, "0123456789.") != n)
			abort();
	}
	kernel_parse_nvidia_version(text, size, small, sizeof(small), &open);
	if (kernel_parse_efivar_bool(data, size) > 1)
		abort();
	if (devices_parse_minor(text, size) < -1)
		abort();
	free(text);

	/* The sysfs value parsers take C strings. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)hw_parse_hex(text);
	(void)hw_parse_int(text);
	(void)hw_pcie_gen(hw_parse_link_speed(text));
	free(text);
	return 0;
}
