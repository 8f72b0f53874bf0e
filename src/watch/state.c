/*
 * state.c - STATE_DIR/state, the file `gpudoctor health` reads (format:
 * docs/watch-state.md).  key=value lines as core/kv.h writes them (values on
 * one line), rewritten atomically after every sweep:
 *	version=1
 *	updated=<unix seconds>
 *	boot_id=<boot id>
 *	status=ok|warn|fail
 *	active=<cause-id> <gpu index or -> <warn|fail> <reason>
 */
#include "watch/daemon.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sev(enum wsev s)
{
	return s == WSEV_FAIL ? "fail" : s == WSEV_WARN ? "warn" : "ok";
}

int state_write(const struct wd *w)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/state", w->o->state_dir);
	int r;

	buf_printf(&b, "version=1\nupdated=%lld\nboot_id=%s\nstatus=%s\n", w->updated, w->boot_id,
		   sev(w->status));
	for (int i = 0; i < w->nfind; i++) {
		const struct wfinding *f = &w->find[i];
		char g[16];

		if (f->sev == WSEV_OK)
			continue;
		/* Reasons were made one line by judge.c; the cause id has no spaces. */
		buf_printf(&b, "active=%s %s %s %s\n", f->cause, gpu_str(f->gpu, g, sizeof(g)),
			   sev(f->sev), f->reason);
	}
	r = wd_write_atomic(path, b.s, b.len, 1);
	free(path);
	buf_release(&b);
	return r;
}
