/*
 * devopen_child.c - child side of the isolated 'devopen' probe:
 * "gpudoctor __probe devopen PATH...".  Opens each device node for reading
 * and writing, as libcuda and NVML do, closes it at once, and prints
 * "PATH=ERRNO" (0 when open() succeeded); then "end".  An open() that waits
 * on a wedged driver is the parent's deadline's business.
 */
#include "probes/children.h"
#include "core/kv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int probe_main_devopen(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int fd;

		if (strncmp(argv[i], "/dev/", 5))
			continue;	/* only device nodes, never anything else */
		fd = open(argv[i], O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0)
			close(fd);
		kv_emit(argv[i], "%d", fd >= 0 ? 0 : errno);
	}
	kv_end();
	return 0;
}
