/*
 * state.c - STATE_DIR/state, the file `gpudoctor health` and `watch --ack`
 * read (format: docs/watch-state.md).  key=value lines as core/kv.h writes
 * them, rewritten atomically after every sweep; each active finding is one
 * report/finding_record.h record:
 *	version=2
 *	updated=<unix seconds>
 *	boot_id=<boot id>
 *	status=ok|warn|fail
 *	active=cause=<id> status=<warn|fail> layer=<layer> [gpu=N] [pci=BDF] [uuid=U] [xid=N action=A] title=<reason>
 */
#include "watch/daemon.h"
#include "core/xalloc.h"
#include "report/finding_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void state_finding_record(const struct wd *w, const struct wfinding *f, struct buf *out)
{
	struct finding rf;

	memset(&rf, 0, sizeof(rf));
	rf.cause = f->cause;
	rf.status = f->status;
	rf.layer = f->layer;
	rf.gpu = f->gpu;
	rf.pci = f->pci[0] ? (char *)f->pci : NULL;
	rf.uuid = f->gpu >= 0 && f->gpu < w->ngpus && w->gpus[f->gpu].uuid[0]
			  ? (char *)w->gpus[f->gpu].uuid
			  : NULL;
	rf.xid = f->xid;
	rf.xid_action = f->xid_action;
	rf.title = (char *)f->reason;
	finding_record_write(out, &rf);
}

int state_write(const struct wd *w)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/state", w->o->state_dir);
	int r;

	buf_printf(&b, "version=2\nupdated=%lld\nboot_id=%s\nstatus=%s\n", w->updated, w->boot_id,
		   status_name(w->status));
	for (int i = 0; i < w->nfind; i++) {
		const struct wfinding *f = &w->find[i];

		if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
			continue;
		buf_puts(&b, "active=");
		state_finding_record(w, f, &b);
		buf_addc(&b, '\n');
	}
	r = wd_write_atomic(path, b.s, b.len, 1);
	free(path);
	buf_release(&b);
	return r;
}
