/* fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers) */
/*
 * fuzz_elf.c - libFuzzer target for the ELF reader: the input is written to
 * a file (elf_open maps files), then every query is run on it.
 */
#include "loader/elf.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char path[64];
	struct elf_file ef;
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/gd-fuzz-elf-%d", (int)getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	if (elf_open(path, &ef, NULL) == 0) {
		char **names;
		size_t n;
		const unsigned char *d;
		size_t sz;

		elf_has_symbol(&ef, "cuInit");
		elf_has_symbol(&ef, "a");
		if (elf_version_defs(&ef, &names, &n, NULL) == 0) {
			for (size_t i = 0; i < n; i++)
				free(names[i]);
			free(names);
		}
		if (elf_section(&ef, ".nv_fatbin", &d, &sz) == 0 && sz)
			(void)(volatile unsigned char)d[sz - 1];
		elf_section(&ef, ".dynstr", &d, &sz);
	}
	elf_close(&ef);
	return 0;
}
