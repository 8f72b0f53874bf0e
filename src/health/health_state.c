/* health_state.c - reading the watch daemon's state file; see health_state.h. */
#include "health/health_state.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/safefile.h"
#include "core/xalloc.h"
#include "report/finding_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One active= record (report/finding_record.h) -> h when it counts; 0 parsed, -1 not. */
static int parse_active(const char *v, int take_warn, int take_fail, struct health_state *st,
			struct health *h)
{
	struct finding f;

	if (finding_record_parse(v, strlen(v), &f, NULL) < 0)
		return -1;
	if (f.status != STATUS_WARN && f.status != STATUS_FAIL) {
		finding_release(&f);
		return -1;
	}
	st->active++;
	if ((f.status == STATUS_WARN && take_warn) || (f.status == STATUS_FAIL && take_fail)) {
		if (!*f.title) {
			free(f.title);
			f.title = xstrdup("reported by gpudoctor watch");
		}
		health_add_finding(h, &f, 1);
		st->taken++;
	}
	finding_release(&f);
	return 0;
}

static long long parse_seconds(const char *v)
{
	char *end;
	long long x;

	if (!v || !*v)
		return -1;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end || x < 0)
		return -1;
	return x;
}

void health_state_parse(const char *text, size_t len, const char *cur_boot_id,
			long long now, long long max_age, struct health_state *st,
			struct health *h)
{
	struct kvlist kv = KVLIST_INIT;
	const char *version, *boot, *status;
	int same_boot = 1;

	memset(st, 0, sizeof(*st));
	st->present = 1;
	st->updated = st->age = -1;
	kvlist_parse(&kv, text, len);
	version = kv_get(&kv, "version");
	boot = kv_get(&kv, "boot_id");
	status = kv_get(&kv, "status");
	/* Only the words the format has: the file's bytes (an escape
	   sequence, invalid UTF-8) never reach --json as the daemon's status. */
	if (status && (!strcmp(status, "ok") || !strcmp(status, "warn") || !strcmp(status, "fail")))
		snprintf(st->status, sizeof(st->status), "%s", status);
	st->updated = parse_seconds(kv_get(&kv, "updated"));
	if (st->updated >= 0)
		st->age = now > st->updated ? now - st->updated : 0;
	st->fresh = st->age >= 0 && st->age <= max_age;
	if (!version || strcmp(version, "2")) {
		snprintf(st->note, sizeof(st->note), "state version %.20s is not 2: ignored",
			 version ? version : "(none)");
		goto out;
	}
	if (cur_boot_id && *cur_boot_id && boot && strcmp(boot, cur_boot_id))
		same_boot = 0;
	if (!same_boot) {
		snprintf(st->note, sizeof(st->note), "state is from an earlier boot: ignored");
		goto out;
	}
	/* Without a boot id on either side, only a fresh file is trusted. */
	if ((!boot || !cur_boot_id || !*cur_boot_id) && !st->fresh) {
		snprintf(st->note, sizeof(st->note),
			 "state is not fresh and its boot cannot be compared: ignored");
		goto out;
	}
	st->used = 1;
	if (!st->fresh)
		snprintf(st->note, sizeof(st->note),
			 st->age >= 0 ? "state is %lld s old: only its failures count"
				      : "state has no update time: only its failures count",
			 st->age);
	for (size_t i = 0; i < kv.n; i++)
		if (!strcmp(kv.items[i].key, "active") &&
		    parse_active(kv.items[i].val, st->fresh, 1, st, h) < 0)
			st->malformed++;
out:
	kvlist_release(&kv);
}

int health_state_read(const char *root, const char *state_dir, long long now,
		      long long max_age, struct health_state *st, struct health *h,
		      struct err *e)
{
	struct buf path = BUF_INIT, text = BUF_INIT, boot = BUF_INIT, host = BUF_INIT;
	struct err e2 = ERR_INIT;
	struct stat sb;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	st->updated = st->age = -1;
	buf_printf(&path, "%s/state", state_dir);
	if (fs_lstat(root, path.s, &sb) < 0) {
		if (errno == ENOENT)
			goto out;	/* no watch daemon: nothing to add */
		ret = err_set_errno(e, "cannot open '%s'", path.s);
		goto out;
	}
	/* Only a file this user (or root) could have written is trusted: anyone
	   else could make a node look healthy, or get it drained.  Nor one in
	   a directory (or below one) others can write to: they could swap
	   their own file in for the read and root's back for the check.
	   Checked before the read: a file that is not trusted is never read,
	   and one that is trusted and cannot be read is an error (unknown),
	   not a state with nothing in it. */
	if (safefile_check_stat(path.s, &sb, &e2) < 0 ||
	    (fs_path(root, path.s, &host) && safefile_check_trusted(host.s, &e2) < 0)) {
		struct finding f;

		st->present = 1;
		snprintf(st->note, sizeof(st->note), "%.150s", e2.msg);
		/* Ignored, but not silently: a warning names it. */
		memset(&f, 0, sizeof(f));
		f.cause = CAUSE_WATCH_STATE_UNTRUSTED;
		f.status = finding_status(f.cause, REACH_WORK);
		f.gpu = -1;
		f.title = e2.msg;
		health_add_finding(h, &f, 1);
		goto out;
	}
	/* As large as `watch --ack` reads: a big report (128 findings whose
	   titles quote paths) must not be cut off, nor make the file ignored. */
	if (fs_read_file(root, path.s, HEALTH_STATE_MAX_BYTES, &text, e) < 0) {
		st->present = 1;
		ret = -1;
		goto out;
	}
	if (fs_read_line(root, "/proc/sys/kernel/random/boot_id", &boot, &e2) < 0)
		buf_reset(&boot);
	health_state_parse(text.s, text.len, boot.len ? boot.s : NULL, now, max_age, st, h);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&boot);
	buf_release(&host);
	return ret;
}
