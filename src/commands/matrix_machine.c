/*
 * matrix_machine.c - what `matrix --solve` needs from the machine: the
 * NVIDIA display/3D controllers on the PCI bus (vendor, device, class from
 * /sys/bus/pci/devices) and the loaded driver's version (/proc/driver/nvidia/
 * version, else /sys/module/nvidia/version).  Nothing is loaded or run.
 */
#include "commands/matrix.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long read_hex(const struct gd_ctx *ctx, const char *dev, const char *file)
{
	struct buf path = BUF_INIT, line = BUF_INIT;
	long v = -1;
	char *end;

	buf_printf(&path, "/sys/bus/pci/devices/%s/%s", dev, file);
	if (fs_read_line(ctx->root, path.s, &line, NULL) == 0) {
		v = strtol(line.s, &end, 16);
		if (end == line.s)
			v = -1;
	}
	buf_release(&path);
	buf_release(&line);
	return v;
}

/* The first dotted number of at least two parts after `after` (or anywhere). */
static int find_version(const char *s, char *out, size_t n)
{
	for (const char *p = s; *p; p++) {
		size_t len;

		if (!isdigit((unsigned char)*p) || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		len = strspn(p, "0123456789.");
		while (len && p[len - 1] == '.')
			len--;
		if (memchr(p, '.', len) && len < n && len >= 3) {
			memcpy(out, p, len);
			out[len] = '\0';
			return 0;
		}
	}
	return -1;
}

int matrix_machine_read(const struct gd_ctx *ctx, struct matrix_machine *m)
{
	char **names = NULL;
	size_t n = 0;
	struct buf b = BUF_INIT;

	memset(m, 0, sizeof(*m));
	if (fs_list_dir(ctx->root, "/sys/bus/pci/devices", &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n && m->ngpus < 16; i++) {
			long vendor = read_hex(ctx, names[i], "vendor");
			long device = read_hex(ctx, names[i], "device");
			long klass = read_hex(ctx, names[i], "class");

			/* 0x0300xx VGA, 0x0302xx 3D controller */
			if (vendor == 0x10de && device >= 0 && (klass >> 16) == 0x03)
				m->device[m->ngpus++] = (unsigned)device;
		}
		fs_names_free(names, n);
	}
	if (fs_read_file(ctx->root, "/proc/driver/nvidia/version", 64 * 1024, &b, NULL) == 0) {
		const char *p = strstr(b.s, "Kernel Module");

		if (find_version(p ? p : b.s, m->driver, sizeof(m->driver)) == 0)
			snprintf(m->driver_from, sizeof(m->driver_from), "/proc/driver/nvidia/version");
	}
	if (!m->driver[0] && fs_read_line(ctx->root, "/sys/module/nvidia/version", &b, NULL) == 0 &&
	    find_version(b.s, m->driver, sizeof(m->driver)) == 0)
		snprintf(m->driver_from, sizeof(m->driver_from), "/sys/module/nvidia/version");
	buf_release(&b);
	return 0;
}
