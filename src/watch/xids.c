/*
 * xids.c - XIDs from the kernel log: reading /dev/kmsg (or --kmsg-file),
 * counting each (GPU, XID), judging it by the policy, and keeping what must
 * survive a restart or a reboot in STATE_DIR/xid-history.
 */
#include "watch/daemon.h"
#include "core/safefile.h"
#include "watch/ident.h"
#include "watch/policy.h"
#include "core/ctx.h"
#include "core/kv.h"
#include "core/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KMSG_BUF 16384
#define HISTORY_MAX (1u << 20)
#define PAST_BOOTS_KEPT WATCH_MAX_XIDS

static char kbuf[KMSG_BUF];

int xids_gpu_index(const struct wd *w, const char *bus_id)
{
	for (int i = 0; bus_id[0] && i < w->ngpus; i++)
		if (!strcmp(w->gpus[i].bus_id, bus_id))
			return w->gpus[i].index;
	return -1;
}

/* The `gpu` label of an XID: the NVML index when known, else the PCI address. */
const char *xids_gpu_label(const struct wd *w, const char *bus_id, char *out, size_t size)
{
	int i = xids_gpu_index(w, bus_id);

	if (i >= 0)
		snprintf(out, size, "%d", i);
	else
		snprintf(out, size, "%s", bus_id[0] ? bus_id : "-");
	return out;
}

/* Unix seconds of a record: the boot time plus its timestamp. */
static long long record_time(unsigned long long usec)
{
	struct timespec rt, bt;

	long long t;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	t = (long long)(rt.tv_sec - bt.tv_sec) + (long long)(usec / 1000000ull);
	/* Records of a replayed file may claim a time after now: never later than now. */
	return t > (long long)rt.tv_sec ? (long long)rt.tv_sec : t;
}

/*
 * The (GPU, XID) entry, made when new.  The table is bounded: when it is
 * full, the oldest non-fatal entry makes room (counted in xid_overflow).  A
 * fatal XID is never turned away: with every entry fatal, it takes the
 * place of the oldest fatal entry of a GPU that keeps another fatal entry,
 * so every GPU with a fatal XID still has one (only the kernel's driver
 * makes entries, so a real machine's GPUs times its fatal XIDs bound them).
 * A non-fatal XID finding the table full of fatal ones is dropped, counted.
 */
static struct wxid *xid_slot(struct wd *w, const char *bus, int xid, int fatal)
{
	int victim = -1;

	for (int i = 0; i < w->nxids; i++)
		if (w->xids[i].xid == xid && !strcmp(w->xids[i].bus_id, bus)) {
			w->xid_tick[i] = ++w->xid_clock;
			return &w->xids[i];
		}
	/* "Oldest" is the least recently seen: clock seconds tie in a burst. */
	if (w->nxids < WATCH_MAX_XIDS) {
		victim = w->nxids++;
	} else {
		for (int i = 0; i < w->nxids; i++)
			if (!w->xids[i].fatal && (victim < 0 || w->xid_tick[i] < w->xid_tick[victim]))
				victim = i;
		for (int i = 0; victim < 0 && fatal && i < w->nxids; i++) {
			int others = 0;

			for (int k = 0; k < w->nxids; k++)
				others += k != i && !strcmp(w->xids[k].bus_id, w->xids[i].bus_id);
			if (others && (victim < 0 || w->xid_tick[i] < w->xid_tick[victim]))
				victim = i;
		}
		w->xid_overflow++;
		if (victim < 0)
			return NULL;
	}
	memset(&w->xids[victim], 0, sizeof(w->xids[0]));
	w->xid_tick[victim] = ++w->xid_clock;
	snprintf(w->xids[victim].bus_id, sizeof(w->xids[0].bus_id), "%s", bus);
	w->xids[victim].xid = xid;
	return &w->xids[victim];
}

/* An entry of the history: kept like a fatal one, the file was ours. */
static struct wxid *slot(struct wd *w, const char *bus, int xid)
{
	return xid_slot(w, bus, xid, 1);
}

static int seen_before_this_boot(const struct wd *w, const char *bus, int xid)
{
	for (int i = 0; i < w->npast; i++)
		if (w->past[i].xid == xid && !strcmp(w->past[i].bus_id, bus) &&
		    strcmp(w->past[i].boot_id, w->boot_id))
			return 1;
	return 0;
}

void xids_record(struct wd *w, const struct kmsg_rec *r)
{
	struct kmsg_event ev[8];
	size_t n;

	if (w->kseq_valid && r->seq <= w->kseq_last)
		return;		/* read twice: by the replay and by the live descriptor */
	if (w->kseq_valid && r->seq > w->kseq_last + 1)
		w->klost += r->seq - w->kseq_last - 1;
	w->kseq_last = r->seq;
	w->kseq_valid = 1;
	w->krecords++;
	if (kmsg_spoofed(r)) {
		w->kspoofed++;	/* an XID-like line the driver did not write */
		return;
	}
	n = kmsg_nvrm_scan(&w->nvrm, r, ev, 8);
	for (size_t i = 0; i < n; i++) {
		struct wxid *x;
		enum kb_xid_action a;
		int esc;

		if (w->kseq_saved && r->seq <= w->kseq_saved)
			continue;	/* counted before this process started */
		a = policy_action_for(&w->policy, w->kb, ev[i].xid, ev[i].text);
		esc = seen_before_this_boot(w, ev[i].bus_id, ev[i].xid);
		if (esc)
			a = policy_escalate(a);
		x = xid_slot(w, ev[i].bus_id, ev[i].xid, policy_severity(a) == STATUS_FAIL);
		if (!x)
			continue;
		snprintf(x->boot_id, sizeof(x->boot_id), "%s", w->boot_id);
		x->count++;
		/* A --kmsg-file's timestamps count from another boot than this
		   machine's clock: such a record happened when it was read. */
		x->last = w->kfile_fd >= 0 ? (long long)time(NULL) : record_time(r->usec);
		snprintf(x->text, sizeof(x->text), "%s", ev[i].text);
		x->escalated = esc;
		if (a > x->action || x->count == 1)
			x->action = a;
		if (policy_severity(x->action) == STATUS_FAIL)
			x->fatal = 1;
	}
}

int xids_open_kmsg(struct wd *w)
{
	int rfd;
	ssize_t n;

	w->kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->kfd < 0)
		return -1;
	/* Live records first: from the end on ... */
	lseek(w->kfd, 0, SEEK_END);
	/* ... then this boot's earlier records, once, through a second descriptor. */
	rfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rfd < 0)
		return 0;
	for (int k = 0; k < 1000000; k++) {
		struct kmsg_rec r;

		n = read(rfd, kbuf, sizeof(kbuf) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten while we read: the seq gap says how many */
		if (n <= 0)
			break;
		if (kmsg_parse_record(kbuf, (size_t)n, &r) == 0)
			xids_record(w, &r);
	}
	close(rfd);
	return 0;
}

/*
 * Records from /dev/kmsg (or a character device given as --kmsg-file), one
 * per read, at most KMSG_BATCH per call.  Past the batch, at the end of a
 * device that has one (EOF: /dev/null) or on an error other than EAGAIN,
 * the descriptor leaves the poll set until the next sweep (kfd_paused): a
 * device that is always readable must not spin the loop.
 */
#define KMSG_BATCH 4096

void xids_read_kmsg(struct wd *w, double now)
{
	int k;

	for (k = 0; w->kfd >= 0 && k < KMSG_BATCH; k++) {
		struct kmsg_rec r;
		ssize_t n = read(w->kfd, kbuf, sizeof(kbuf) - 1);

		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			w->kfd_paused = 1;
			break;
		}
		w->kmsg_at = now;
		if (kmsg_parse_record(kbuf, (size_t)n, &r) == 0)
			xids_record(w, &r);
	}
	if (k == KMSG_BATCH)
		w->kfd_paused = 1;
	if (w->kfd >= 0)
		w->kmsg_at = now;	/* read up to date */
}

/*
 * --kmsg-file as a regular file or a FIFO: records one per line
 * (continuations start with a space), read without blocking, at most
 * KFILE_BATCH bytes a sweep so that a writer that never stops cannot hold
 * the loop.
 */
#define KFILE_BATCH (8u << 20)

void xids_read_file(struct wd *w, double now)
{
	char tmp[8192];
	ssize_t n;
	size_t got = 0;

	if (w->kfile_fd < 0)
		return;
	while (got < KFILE_BATCH && ((n = read(w->kfile_fd, tmp, sizeof(tmp))) > 0 ||
				     (n < 0 && errno == EINTR))) {
		const char *p, *end;

		if (n < 0)
			continue;
		got += (size_t)n;
		buf_add(&w->kfile_part, tmp, (size_t)n);
		p = w->kfile_part.s;
		end = p + w->kfile_part.len;
		for (;;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			struct kmsg_rec r;

			if (!nl)
				break;
			if (p[0] != ' ' && kmsg_parse_record(p, (size_t)(nl - p + 1), &r) == 0)
				xids_record(w, &r);
			p = nl + 1;
		}
		{
			size_t rest = (size_t)(end - p);

			memmove(w->kfile_part.s, p, rest);
			w->kfile_part.len = rest;
			w->kfile_part.s[rest] = '\0';
		}
		if (w->kfile_part.len > KMSG_BUF)
			buf_reset(&w->kfile_part);	/* no record is that long */
	}
	w->kmsg_at = now;
}

/* ---- history ---- */

static char *path_in(const struct wd *w, const char *name)
{
	return xasprintf("%s/%s", w->o->state_dir, name);
}

static int read_small(const char *path, struct buf *out)
{
	char tmp[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf_reset(out);
	if (fd < 0)
		return -1;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0 && out->len < HISTORY_MAX)
		buf_add(out, tmp, (size_t)n);
	close(fd);
	return 0;
}

/* "xid=BOOT BUS XID COUNT LAST ACTION ESCALATED FATAL TEXT..." */
static void load_xid_line(struct wd *w, const char *v, const char *file_boot)
{
	char boot[40], bus[32], act[16];
	unsigned long long count;
	long long last;
	int xid, esc, fatal, off = 0;
	enum kb_xid_action a;

	if (sscanf(v, "%39s %31s %d %llu %lld %15s %d %d %n", boot, bus, &xid, &count, &last, act,
		   &esc, &fatal, &off) < 8 || kb_xid_action_parse(act, &a) < 0)
		return;
	if (!strcmp(bus, "-"))
		bus[0] = '\0';
	(void)file_boot;
	if (strcmp(boot, w->boot_id)) {
		/* An earlier boot: remembered for escalation; its fatal XIDs stay until acked. */
		if (w->npast < WATCH_MAX_XIDS) {
			struct wxid_past *p = &w->past[w->npast++];

			snprintf(p->boot_id, sizeof(p->boot_id), "%s", boot);
			snprintf(p->bus_id, sizeof(p->bus_id), "%s", bus);
			p->xid = xid;
			p->count = count;
		}
		if (!fatal)
			return;
	}
	{
		struct wxid *x = slot(w, bus, xid);

		if (!x)
			return;
		snprintf(x->boot_id, sizeof(x->boot_id), "%s", boot);
		x->count = strcmp(boot, w->boot_id) ? 0 : count;
		x->last = last;
		x->action = a;
		x->escalated = esc;
		x->fatal = fatal;
		snprintf(x->text, sizeof(x->text), "%s", off > 0 ? v + off : "");
	}
}

/* acks_sum= (16 hex digits) of the history: the applied ack lines' signature. */
static void load_acks_sum(struct wd *w, const char *v)
{
	char *end;

	w->acks_sum_known = 0;
	if (!v || strlen(v) != 16)
		return;
	w->acks_sum = strtoull(v, &end, 16);
	w->acks_sum_known = !*end;
}

void xids_load_history(struct wd *w)
{
	struct buf b = BUF_INIT;
	struct kvlist kv = KVLIST_INIT;
	char *path = path_in(w, "xid-history");
	const char *boot;

	if (read_small(path, &b) == 0) {
		kvlist_parse(&kv, b.s ? b.s : "", b.len);
		boot = kv_get(&kv, "boot_id");
		if (boot && !strcmp(boot, w->boot_id))
			w->kseq_saved = (unsigned long long)kv_get_ll(&kv, "last_seq", 0);
		w->acks_done = (int)kv_get_ll(&kv, "acks_done", 0);
		if (w->acks_done < 0)
			w->acks_done = 0;
		load_acks_sum(w, kv_get(&kv, "acks_sum"));
		for (size_t i = 0; i < kv.n; i++) {
			if (!strcmp(kv.items[i].key, "xid"))
				load_xid_line(w, kv.items[i].val, boot ? boot : "");
			else if (!strcmp(kv.items[i].key, "past") && w->npast < WATCH_MAX_XIDS) {
				struct wxid_past *p = &w->past[w->npast];
				unsigned long long c;

				if (sscanf(kv.items[i].val, "%39s %31s %d %llu", p->boot_id, p->bus_id,
					   &p->xid, &c) == 4) {
					p->count = c;
					if (!strcmp(p->bus_id, "-"))
						p->bus_id[0] = '\0';
					w->npast++;
				}
			}
		}
	}
	kvlist_release(&kv);
	buf_release(&b);
	free(path);
	xids_apply_acks(w);
}

int wd_write_atomic(const char *path, const char *data, size_t len, int durable)
{
	return safefile_write(path, data, len, 0644, durable, NULL);
}

int xids_save_history(const struct wd *w)
{
	struct buf b = BUF_INIT;
	char *path = path_in(w, "xid-history");
	int r;

	buf_printf(&b, "version=1\nboot_id=%s\nlast_seq=%llu\nacks_done=%d\n", w->boot_id,
		   w->kseq_valid ? w->kseq_last : w->kseq_saved, w->acks_done);
	if (w->acks_sum_known)
		buf_printf(&b, "acks_sum=%016llx\n", w->acks_sum);
	for (int i = 0; i < w->nxids; i++) {
		const struct wxid *x = &w->xids[i];

		if (!x->count && !x->fatal)
			continue;
		buf_printf(&b, "xid=%s %s %d %llu %lld %s %d %d %s\n", x->boot_id[0] ? x->boot_id : "-",
			   x->bus_id[0] ? x->bus_id : "-", x->xid, x->count, x->last,
			   kb_xid_action_name(x->action), x->escalated, x->fatal, x->text);
	}
	for (int i = 0; i < w->npast; i++)
		buf_printf(&b, "past=%s %s %d %llu\n", w->past[i].boot_id,
			   w->past[i].bus_id[0] ? w->past[i].bus_id : "-", w->past[i].xid,
			   w->past[i].count);
	r = wd_write_atomic(path, b.s, b.len, 1);
	buf_release(&b);
	free(path);
	return r;
}

/*
 * STATE_DIR/acks: "ack=GPU UNIXTIME" lines appended by `watch --ack GPU`.
 * Each line is applied once (xid-history keeps how many were), to the fatal
 * XIDs known then that happened before it; an ack naming a GPU index waits
 * until NVML has said which address that index has.
 */
/*
 * When the acks file changed: its modification time, size and inode.  The
 * time alone missed an append in the same tick of the file system's clock
 * (a second on ext3, small ext4 inodes, NFS; a jiffy elsewhere): a loop of
 * `watch --ack` over the GPUs left all but the first unapplied, and the
 * daemon put their fatal XIDs back.  Never -1, which forces a read.
 */
static long long acks_stamp(const struct stat *st)
{
	unsigned long long h = (unsigned long long)st->st_mtime * 1000000000ull +
			       (unsigned long long)st->st_mtim.tv_nsec;

	h = h * 1099511628211ull ^ (unsigned long long)st->st_size;
	h = h * 1099511628211ull ^ (unsigned long long)st->st_ino;
	return (long long)(h & 0x7fffffffffffffffull);
}

/* FNV-1a over an applied ack line, chained: the applied lines' signature. */
static unsigned long long acks_sum_add(unsigned long long h, const char *line)
{
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (h ^ '\n') * 1099511628211ull;
}

void xids_apply_acks(struct wd *w)
{
	char *path = path_in(w, "acks");
	struct stat st;
	struct buf b = BUF_INIT;
	struct kvlist kv = KVLIST_INIT;
	const char **line;
	unsigned long long sum = ACKS_SUM_NONE;
	int n = 0;

	if (stat(path, &st) < 0 || acks_stamp(&st) == w->acks_mtime) {
		free(path);
		return;
	}
	if (read_small(path, &b) == 0)
		kvlist_parse(&kv, b.s ? b.s : "", b.len);
	/* The well-formed ack= lines, in order: what acks_done counts. */
	line = xcalloc(kv.n + 1, sizeof(*line));
	for (size_t i = 0; i < kv.n; i++) {
		char gpu[64];
		struct gpu_ident id;
		long long t;

		if (!strcmp(kv.items[i].key, "ack") &&
		    sscanf(kv.items[i].val, "%63s %lld", gpu, &t) == 2 && gpu_ident_parse(gpu, &id) == 0)
			line[n++] = kv.items[i].val;
	}
	/*
	 * The file only grows, so the lines applied so far are its first
	 * acks_done lines, whose signature is acks_sum.  Fewer lines, or other
	 * ones, mean the file was removed or cut and written anew (an
	 * operator's clean-up, a restored backup): its lines are new acks, all
	 * to apply.  Counting on from the old number skipped them: `watch
	 * --ack` said "cleared" and the daemon put the fatal XID back.  A
	 * history written before the signature existed trusts the prefix.
	 */
	for (int k = 0; k < w->acks_done && k < n; k++)
		sum = acks_sum_add(sum, line[k]);
	if (w->acks_done > n || (w->acks_sum_known && sum != w->acks_sum)) {
		w->acks_done = 0;
		sum = ACKS_SUM_NONE;
	}
	w->acks_sum = sum;
	w->acks_sum_known = 1;
	for (int k = w->acks_done; k < n; k++) {
		char gpu[64];
		struct gpu_ident id;
		long long t = 0;

		if (sscanf(line[k], "%63s %lld", gpu, &t) != 2 || gpu_ident_parse(gpu, &id) < 0)
			continue;	/* not reached: line[] holds only these */
		/* An index or a UUID waits until NVML has said which address it has. */
		if ((id.kind == GPU_ID_INDEX || id.kind == GPU_ID_UUID) && w->ngpus < 0 &&
		    (!w->o->ctx->no_load || w->o->sample_nvml))
			goto out;
		for (int j = 0; j < w->nxids; j++) {
			struct wxid *x = &w->xids[j];
			int gi = xids_gpu_index(w, x->bus_id);

			if (x->fatal && x->last <= t &&
			    gpu_ident_match(&id, gi, x->bus_id, gi >= 0 ? w->gpus[gi].uuid : NULL))
				x->fatal = 0;
		}
		w->acks_done = k + 1;
		w->acks_sum = acks_sum_add(w->acks_sum, line[k]);
	}
	w->acks_mtime = acks_stamp(&st);
out:
	free(line);
	kvlist_release(&kv);
	buf_release(&b);
	free(path);
}
