/*
 * ack.c - `gpudoctor watch --ack GPU`: clear a GPU's unacknowledged fatal
 * XIDs.  Appends "ack=GPU UNIXTIME" to STATE_DIR/acks, which the daemon
 * applies (at start and when the file changes), and drops the GPU's XID
 * lines from STATE_DIR/state at once, so `gpudoctor health` agrees without
 * waiting for the daemon's next sweep.
 */
#include "watch/daemon.h"
#include "core/fs.h"
#include "core/termesc.h"
#include "core/xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int valid_gpu(const char *g)
{
	if (!*g || strlen(g) > 40)
		return 0;
	for (const char *p = g; *p; p++)
		if (!(*p >= '0' && *p <= '9') && !(*p >= 'a' && *p <= 'f') && !(*p >= 'A' && *p <= 'F') &&
		    *p != ':' && *p != '.')
			return !strcmp(g, "all");
	return 1;
}

int watch_ack(const char *state_dir, const char *gpu, struct buf *said, struct err *e)
{
	char *acks = xasprintf("%s/acks", state_dir), *state = xasprintf("%s/state", state_dir);
	char line[128], norm[32];
	struct buf text = BUF_INIT, out = BUF_INIT;
	const char *g = gpu;
	int fd, dropped = 0, fail = 0, warn = 0, r = 0;

	if (!valid_gpu(gpu)) {
		r = err_set(e, "--ack '%s': give a GPU index, a PCI address or all", gpu);
		goto out;
	}
	if (strchr(gpu, ':') && kmsg_norm_bus_id(gpu, strlen(gpu), norm, sizeof(norm)) == 0)
		g = norm;
	snprintf(line, sizeof(line), "ack=%s %lld\n", g, (long long)time(NULL));
	fd = open(acks, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		r = err_set_errno(e, "cannot append to '%s'", acks);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* Rewrite the state without this GPU's XID findings. */
	if (fs_read_file("/", state, 1 << 20, &text, NULL) == 0) {
		const char *p = text.s, *end = text.s + text.len;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
			char cause[48], gi[40], sev[8];

			if (!strncmp(p, "status=", 7)) {
				p = nl ? nl + 1 : end;
				continue;	/* recomputed below */
			}
			if (!strncmp(p, "active=", 7) &&
			    sscanf(p + 7, "%47s %39s %7s", cause, gi, sev) == 3) {
				if ((!strcmp(cause, "gpu-xid-error") || !strcmp(cause, "gpu-lost")) &&
				    (!strcmp(g, "all") || !strcmp(gi, g) || strstr(p, g))) {
					dropped++;
					p = nl ? nl + 1 : end;
					continue;
				}
				fail += !strcmp(sev, "fail");
				warn += !strcmp(sev, "warn");
			}
			buf_add(&out, p, (size_t)(le - p));
			buf_addc(&out, '\n');
			p = nl ? nl + 1 : end;
		}
		buf_printf(&out, "status=%s\n", fail ? "fail" : warn ? "warn" : "ok");
		if (wd_write_atomic(state, out.s, out.len, 1) < 0) {
			r = err_set_errno(e, "cannot write '%s'", state);
			goto out;
		}
	}
	/* g passed valid_gpu(); the state directory is the user's path: escaped for the terminal. */
	buf_printf(said, "acknowledged GPU %s: %d XID finding%s cleared from ", g, dropped,
		   dropped == 1 ? "" : "s");
	termesc_buf(said, state);
	buf_puts(said, "\n");
out:
	buf_release(&text);
	buf_release(&out);
	free(acks);
	free(state);
	return r;
}
