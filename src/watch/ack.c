/*
 * ack.c - `gpudoctor watch --ack GPU`: clear a GPU's unacknowledged fatal
 * XIDs.  Appends "ack=GPU UNIXTIME" to STATE_DIR/acks, which the daemon
 * applies (at start and when the file changes), and drops the GPU's
 * acknowledgeable findings (CF_ACKABLE in knowledge/cause_policy.def) from
 * STATE_DIR/state at once, so `gpudoctor health` agrees without waiting for
 * the daemon's next sweep.  The GPU is one exact identity (watch/ident.h)
 * compared with each finding's scope fields, never searched for in a line.
 */
#include "watch/daemon.h"
#include "watch/ident.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/safefile.h"
#include "core/termesc.h"
#include "core/xalloc.h"
#include "report/finding_record.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The state without the acknowledged findings; -1 when it is not ours to rewrite. */
static int drop_acked(const char *text, size_t len, const struct gpu_ident *id, struct buf *out,
		      int *dropped, struct err *e)
{
	struct kvlist kv = KVLIST_INIT;
	const char *version;
	enum status worst = STATUS_OK;

	kvlist_parse(&kv, text, len);
	version = kv_get(&kv, "version");
	if (!version || strcmp(version, "2")) {
		kvlist_release(&kv);
		return err_set(e, "the state file is not version 2: left for the daemon to rewrite");
	}
	for (size_t i = 0; i < kv.n; i++) {
		const char *k = kv.items[i].key, *v = kv.items[i].val;
		struct finding f;

		if (!strcmp(k, "status"))
			continue;	/* recomputed below */
		if (strcmp(k, "active")) {
			buf_printf(out, "%s=%s\n", k, v);
			continue;
		}
		if (finding_record_parse(v, strlen(v), &f, NULL) < 0)
			continue;	/* not trusted, not kept */
		if ((cause_flags(f.cause) & CF_ACKABLE) && gpu_ident_match(id, f.gpu, f.pci, f.uuid)) {
			(*dropped)++;
		} else {
			if (f.status > worst)
				worst = f.status;
			buf_printf(out, "active=%s\n", v);
		}
		finding_release(&f);
	}
	buf_printf(out, "status=%s\n", status_name(worst));
	kvlist_release(&kv);
	return 0;
}

int watch_ack(const char *state_dir, const char *gpu, struct buf *said, struct err *e)
{
	char *acks = xasprintf("%s/acks", state_dir), *state = xasprintf("%s/state", state_dir);
	char line[160];
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct gpu_ident id;
	struct err e2 = ERR_INIT;
	int dropped = 0, r = 0, kept = 0;

	if (gpu_ident_parse(gpu, &id) < 0) {
		r = err_set(e, "--ack '%s': give a GPU index, a PCI address, a GPU UUID or all", gpu);
		goto out;
	}
	if (safefile_check_dir(state_dir, &e2) < 0 || safefile_check_file(state, &e2) < 0) {
		r = err_set(e, "--state-dir refused: %s", e2.msg);
		goto out;
	}
	snprintf(line, sizeof(line), "ack=%s %lld\n", id.text, (long long)time(NULL));
	if (safefile_append(acks, line, strlen(line), 0644, &e2) < 0) {
		r = err_set(e, "%s", e2.msg);
		goto out;
	}
	/* Rewrite the state without this GPU's acknowledgeable findings. */
	if (fs_read_file("/", state, 1 << 20, &text, NULL) == 0) {
		if (drop_acked(text.s, text.len, &id, &out, &dropped, &e2) < 0)
			kept = 1;
		else if (safefile_write(state, out.s, out.len, 0644, 1, &e2) < 0) {
			r = err_set(e, "%s", e2.msg);
			goto out;
		}
	}
	/* id.text passed gpu_ident_parse(); the state directory is the user's path. */
	buf_printf(said, "acknowledged GPU %s: %d XID finding%s cleared from ", id.text, dropped,
		   dropped == 1 ? "" : "s");
	termesc_buf(said, state);
	if (kept) {
		buf_puts(said, " (");
		termesc_buf(said, e2.msg);
		buf_puts(said, ")");
	}
	buf_puts(said, "\n");
out:
	buf_release(&text);
	buf_release(&out);
	free(acks);
	free(state);
	return r;
}
