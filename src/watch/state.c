/*
 * state.c - STATE_DIR/state, the file `gpudoctor health` and `watch --ack`
 * read (format: docs/watch-state.md).  key=value lines as core/kv.h writes
 * them, rewritten atomically after every sweep; each active finding of the
 * sweep's report (w->rep) is one report/finding_record.h record:
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

int state_write(const struct wd *w)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/state", w->o->state_dir);
	int r;

	buf_printf(&b, "version=2\nupdated=%lld\nboot_id=%s\nstatus=%s\n", w->updated, w->boot_id,
		   status_name(w->rep.status));
	for (size_t i = 0; i < w->rep.n; i++) {
		const struct finding *f = &w->rep.findings[i];

		if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
			continue;
		buf_puts(&b, "active=");
		finding_record_write(&b, f);
		buf_addc(&b, '\n');
	}
	r = wd_write_atomic(path, b.s, b.len, 1);
	free(path);
	buf_release(&b);
	return r;
}
