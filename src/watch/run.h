/*
 * run.h - `gpudoctor watch` as cmd_watch.c calls it.
 *
 * watch_run() runs the daemon until SIGTERM/SIGINT (or after one sweep with
 * opts.once) and returns the exit status; watch_ack() clears unacknowledged
 * fatal XIDs of one GPU from the state directory; watch_static_sweep() is
 * the child side of the static check.  Log lines (state changes, one per
 * line, with the cause id) go through opts.log, so nothing here prints.
 *
 *	struct watch_opts o = WATCH_OPTS_INIT;  o.ctx = ctx; o.log = print_line;
 *	return watch_run(&o, &e);
 */
#ifndef GD_WATCH_RUN_H
#define GD_WATCH_RUN_H

#include "core/buf.h"
#include "core/err.h"

struct gd_ctx;

struct watch_opts {
	const struct gd_ctx *ctx;
	double interval;		/* seconds */
	const char *listen;		/* "127.0.0.1:9835"; "" or "none": no HTTP */
	const char *textfile_dir;	/* or NULL */
	const char *state_dir;
	const char *policy;		/* "nvidia", "conservative" or a file */
	const char *kmsg_file;		/* or NULL: /dev/kmsg */
	int once;
	int static_every;		/* sweeps between static checks; 0: automatic */
	/*
	 * --sample-nvml: the NVML library of the process's own root (absolute,
	 * never resolved in --root), sampled even with --root: in a container,
	 * the one the NVIDIA container toolkit injected.  NULL: the library the
	 * static check found in the root, and none under --no-load.
	 */
	const char *sample_nvml;
	void (*log)(const char *line);
	void (*print)(const char *text, size_t len);	/* --once: the report */
};

#define WATCH_OPTS_INIT { NULL, 30.0, "127.0.0.1:9835", NULL, "/var/lib/gpudoctor", \
			  "nvidia", NULL, 0, 0, NULL, NULL, NULL }

int watch_run(const struct watch_opts *o, struct err *e);
/* gpu: an index, a PCI address, or "all".  Appends to the acks file. */
int watch_ack(const char *state_dir, const char *gpu, struct buf *said, struct err *e);
/* The child side of the static check: prints key=value lines. */
int watch_static_sweep(const struct gd_ctx *ctx);

#endif
