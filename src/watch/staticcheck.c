/*
 * staticcheck.c - check's static layers, re-run by `watch` in a child
 * ("gpudoctor --no-load watch --static-sweep"), so that their memory, time
 * and any crash stay out of the daemon.  Started every N sweeps, and at the
 * next sweep whenever the fingerprint of the driver changes: the loaded
 * module's version, the identity (inode, times, size) of the driver's version
 * file, the loader cache and NVML's library file (an unattended upgrade
 * changes them).
 */
#include "watch/daemon.h"
#include "report/finding_record.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/xalloc.h"
#include "knowledge/layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add_stat(const char *root, const char *path, struct buf *b)
{
	struct stat st;

	if (path && fs_stat(root, path, &st) == 0)
		buf_printf(b, "%s:%llu:%lld.%09ld:%lld;", path, (unsigned long long)st.st_ino,
			   (long long)st.st_mtime, (long)st.st_mtim.tv_nsec, (long long)st.st_size);
	else if (path)
		buf_printf(b, "%s:-;", path);
}

void static_fingerprint(const struct wd *w, char *out, size_t size)
{
	const char *root = w->o->ctx->root;
	struct buf b = BUF_INIT, line = BUF_INIT;

	if (fs_read_line(root, "/sys/module/nvidia/version", &line, NULL) == 0)
		buf_printf(&b, "module=%s;", line.s);
	/* Its text is the kernel probe's to parse (kernel.c); a reloaded module
	 * recreates the procfs entry, so its inode and times change with it. */
	add_stat(root, "/proc/driver/nvidia/version", &b);
	add_stat(root, "/etc/ld.so.cache", &b);
	if (w->smp.lib) {
		/* smp.lib is the path as this machine sees it (inside --root already). */
		struct stat st;

		if (stat(w->smp.lib, &st) == 0)
			buf_printf(&b, "nvml:%lld.%09ld:%lld;", (long long)st.st_mtime,
				   (long)st.st_mtim.tv_nsec, (long long)st.st_size);
	}
	snprintf(out, size, "%s", buf_cstr(&b));
	buf_release(&b);
	buf_release(&line);
}

void static_maybe_start(struct wd *w, double now)
{
	const struct gd_ctx *ctx = w->o->ctx;
	char fp[sizeof(w->fingerprint)], tmo[32];
	const char *argv[16];
	int n = 0, due;
	struct err e = ERR_INIT;

	if (w->st_running)
		return;
	static_fingerprint(w, fp, sizeof(fp));
	due = w->st_runs == 0 || strcmp(fp, w->fingerprint) ||
	      (w->o->static_every > 0 && w->sweeps % (unsigned long long)w->o->static_every == 0);
	if (!due)
		return;
	snprintf(w->fingerprint, sizeof(w->fingerprint), "%s", fp);
	snprintf(tmo, sizeof(tmo), "%g", ctx->timeout);
	argv[n++] = ctx->self_exe;
	argv[n++] = "--root";
	argv[n++] = ctx->root;
	if (ctx->kb_dir) {
		argv[n++] = "--kb";
		argv[n++] = ctx->kb_dir;
	}
	argv[n++] = "--timeout";
	argv[n++] = tmo;
	argv[n++] = "--no-load";
	argv[n++] = "watch";
	argv[n++] = "--static-sweep";
	argv[n] = NULL;
	/* A static check reads files only; a minute is plenty even on a slow disk. */
	if (child_start_argv(argv, NULL, 60.0, &w->st_child, &e) < 0) {
		snprintf(w->st_error, sizeof(w->st_error), "%.190s", e.msg);
		return;
	}
	w->st_running = 1;
	w->st_started = now;
	w->st_runs++;
}

int static_fd(const struct wd *w)
{
	return w->st_running ? w->st_child.outfd : -1;
}

void static_readable(struct wd *w, double now)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;

	/* The check is quick and writes all at the end: wait for it to finish. */
	child_finish(&w->st_child, &r);
	w->st_running = 0;
	if (r.outcome != CHILD_OK || !r.kv.complete) {
		struct buf d = BUF_INIT;

		snprintf(w->st_error, sizeof(w->st_error), "the static check %s",
			 child_outcome_describe(&r, &d));
		buf_release(&d);
		child_result_release(&r);
		return;
	}
	w->st_error[0] = '\0';
	report_release(&w->st_rep);
	report_init(&w->st_rep);
	for (int l = 0; l < LAYER_COUNT && l < 8; l++) {
		const char *s = kv_getf(&r.kv, "layer.%d.status", l);

		w->st_layer_ok[l] = !s ? -1 : strcmp(s, "fail") != 0;
	}
	/* Each finding is one report/finding_record.h record; one that does not
	   parse (an id this build does not know) is counted, never trusted. */
	for (int i = 0; i < WATCH_MAX_FINDINGS; i++) {
		const char *rec = kv_getf(&r.kv, "finding.%d", i);
		struct finding rf;

		if (!rec)
			break;
		if (finding_record_parse(rec, strlen(rec), &rf, &e) < 0) {
			w->st_bad_records++;
			if (w->o->log) {
				char line[320];

				snprintf(line, sizeof(line), "watch: a finding of the static check "
					 "was not read: %.200s", e.msg);
				w->o->log(line);
			}
			continue;
		}
		if ((rf.status == STATUS_WARN || rf.status == STATUS_FAIL) &&
		    w->st_rep.n < WATCH_MAX_FINDINGS) {
			/* The record keeps the status the child's policy gave it.  Its
			   GPU index need not be NVML's, which watch's gpu means (the
			   child loads no NVML): the index goes, the address and UUID,
			   which name one GPU whoever counts, stay. */
			if (!rf.id)
				rf.id = xstrdup("watch.static");
			rf.gpu = -1;
			report_add_copy(&w->st_rep, &rf);
		}
		finding_release(&rf);
	}
	snprintf(w->st_nvml_lib, sizeof(w->st_nvml_lib), "%s", kv_get(&r.kv, "nvml_lib") ?
		 kv_get(&r.kv, "nvml_lib") : "");
	w->st_at = now;
	child_result_release(&r);
	/* New GPUs on the bus show up here, with the rest of the static view. */
	pci_rescan(w);
}
