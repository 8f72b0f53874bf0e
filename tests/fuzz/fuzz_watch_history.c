/*
 * fuzz_watch_history.c - libFuzzer target for the files watch reads back
 * from its state directory at start and while it runs: STATE_DIR/xid-history
 * (xid= and past= lines: what XID escalation and the unacknowledged fatal
 * XIDs survive restarts and reboots with) and STATE_DIR/acks (ack= lines
 * `watch --ack` appends).  A crashed run, a full disk or an older version
 * leaves them cut or odd; watch checks who owns them, not what they say.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * The first byte splits the input into the two files, written to a
 * directory of this process (mkdtemp) before xids_load_history(); the
 * history is then written back (xids_save_history) and read again.
 * Invariants: the tables stay within WATCH_MAX_XIDS, every action is one
 * of the catalogue's, every string ends inside its field, and the second
 * read finds no more entries than the first wrote.
 */
#include "core/ctx.h"
#include "watch/daemon.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static void check(const struct wd *w)
{
	if (w->nxids < 0 || w->nxids > WATCH_MAX_XIDS || w->npast < 0 || w->npast > WATCH_MAX_XIDS)
		abort();
	for (int i = 0; i < w->nxids; i++)
		if ((unsigned)w->xids[i].action >= KB_XID_NACTIONS ||
		    !memchr(w->xids[i].bus_id, 0, sizeof(w->xids[i].bus_id)) ||
		    !memchr(w->xids[i].boot_id, 0, sizeof(w->xids[i].boot_id)) ||
		    !memchr(w->xids[i].text, 0, sizeof(w->xids[i].text)))
			abort();
	for (int i = 0; i < w->npast; i++)
		if (!memchr(w->past[i].bus_id, 0, sizeof(w->past[i].bus_id)) ||
		    !memchr(w->past[i].boot_id, 0, sizeof(w->past[i].boot_id)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wd w;
	static struct watch_opts o;
	static struct gd_ctx ctx;
	size_t split;
	int first;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gd-fuzz-history-XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (size < 1)
		return 0;
	split = (size_t)(data[0] * (size - 1)) / 255;
	put("xid-history", data + 1, split);
	put("acks", data + 1 + split, size - 1 - split);

	memset(&w, 0, sizeof(w));
	ctx.root = "/";
	ctx.no_load = 1;
	o.ctx = &ctx;
	o.state_dir = dir;
	w.o = &o;
	w.ngpus = -1;
	w.acks_mtime = -1;
	snprintf(w.boot_id, sizeof(w.boot_id), "%s", (data[0] & 1) ? "boot-b" : "boot-a");
	xids_load_history(&w);
	check(&w);
	first = w.nxids;
	if (xids_save_history(&w) < 0)
		abort();
	memset(&w, 0, sizeof(w));
	w.o = &o;
	w.ngpus = -1;
	w.acks_mtime = -1;
	snprintf(w.boot_id, sizeof(w.boot_id), "%s", (data[0] & 1) ? "boot-b" : "boot-a");
	xids_load_history(&w);
	check(&w);
	if (w.nxids > first)
		abort();
	return 0;
}
