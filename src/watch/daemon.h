/*
 * daemon.h - the state of one `gpudoctor watch` process, shared by the
 * files of src/watch/ (callers outside use watch_run() in run.h).
 *
 * loop.c owns the struct and the event loop; the other files each do one
 * job on it: xids.c (the kernel log's XIDs and their history), pci.c (GPUs
 * on the bus, AER), staticcheck.c (check's static layers in a child),
 * judge.c (findings), prom.c (/metrics and --textfile), report.c (/),
 * state.c (--state-dir), server.c (HTTP); selfstat.c (the clock, the
 * daemon's own RSS and CPU time) is a leaf that needs none of them.
 */
#ifndef GD_WATCH_DAEMON_H
#define GD_WATCH_DAEMON_H

#include "core/buf.h"
#include "core/child.h"
#include "watch/kmsg.h"
#include "watch/notify.h"
#include "watch/run.h"
#include "watch/sampler.h"
#include "watch/watch.h"
#include "report/report.h"

struct kb;

#define WD_MAX_CONNS 256
#define WD_MAX_PCI 64

struct wconn {
	int fd;
	double born;			/* accepted at (monotonic) */
	double deadline;		/* read deadline, then write deadline */
	size_t inlen;
	char *in;			/* HTTP_REQ_MAX bytes, allocated on accept */
	struct buf out;
	size_t outoff;
	int writing;
};

struct wd {
	const struct watch_opts *o;
	const struct kb *kb;
	struct wpolicy policy;
	char boot_id[40];
	double t0;			/* monotonic start */
	unsigned long long sweeps;

	/* NVML */
	struct sampler smp;
	struct wgpu gpus[WATCH_MAX_GPUS];
	int ngpus;			/* -1 unknown */
	double nvml_at;			/* monotonic time of the last sample; 0 never */

	/* PCI */
	char pci[WD_MAX_PCI][16];	/* NVIDIA GPUs' addresses on the bus */
	int npci;			/* entries in pci[]; -1 unknown */
	int pci_present[WD_MAX_PCI];	/* still on the bus at the last sweep */
	long long pci_aer[WD_MAX_PCI][3];	/* correctable, nonfatal, fatal; -1 unknown */
	int pci_count;			/* GPUs present at the last sweep */
	double pci_at;

	/* static check */
	struct child st_child;
	int st_running;
	double st_at, st_started;
	struct report st_rep;		/* its warn and fail findings, as the child sent them */
	int st_layer_ok[8];		/* per layer: 1 ok, 0 failed, -1 unknown */
	char st_error[200];
	char st_nvml_lib[4096];		/* NVML's library as the static check found it */
	char nvml_refused[4096];	/* the last one refused as untrusted (logged once) */
	char fingerprint[512];		/* what the driver's files looked like */
	unsigned long long st_runs;
	unsigned long long st_bad_records;	/* findings of the child that did not parse */

	/* kernel log */
	int kfd;			/* /dev/kmsg (or a --kmsg-file device) or -1 */
	int kfd_paused;			/* out of the poll set until the next sweep */
	int kfile_fd;			/* --kmsg-file (a file or a FIFO) or -1 */
	struct buf kfile_part;		/* an incomplete last line of the file */
	struct kmsg_nvrm nvrm;
	unsigned long long kseq_last;	/* the last record read */
	int kseq_valid;
	unsigned long long kseq_saved;	/* records up to this were counted before a restart */
	unsigned long long klost;
	unsigned long long krecords;
	unsigned long long kspoofed;	/* XID-like records the driver did not write */
	unsigned long long xid_overflow;	/* entries evicted or dropped from a full table */
	unsigned long long xid_tick[WATCH_MAX_XIDS];	/* when each entry was last touched */
	unsigned long long xid_clock;
	double kmsg_at;
	struct wxid xids[WATCH_MAX_XIDS];
	int nxids;
	struct wxid_past past[WATCH_MAX_XIDS];
	int npast;
	long long acks_mtime;		/* the acks file's stamp when read (xids.c); -1: read again */
	int acks_done;			/* lines of STATE_DIR/acks applied so far */
	unsigned long long acks_sum;	/* their signature (xids.c), to tell a file written anew */
	int acks_sum_known;		/* 0: a history without it, the prefix is trusted */

	/* verdicts: judge() rebuilds rep every sweep (at most WATCH_MAX_FINDINGS
	   findings, released before the next), rep.status the worst of them */
	struct report rep;
	char prev_keys[WATCH_MAX_FINDINGS][160];	/* identities of the last sweep's findings */
	int nprev;
	int ready_sent;
	long long updated;		/* unix seconds of the last sweep */

	/* serving */
	int lfd;
	struct wconn conns[WD_MAX_CONNS];
	unsigned long long http_requests, http_rejected;
	unsigned long long http_evicted;	/* slow connections closed to make room */
	double accept_retry;		/* out of descriptors: accept again then; 0 when polling */
	struct notify nt;
	double next_watchdog;
	double loop_progress;		/* monotonic time the loop last went round */
};

/* xids.c */
#define ACKS_SUM_NONE 14695981039346656037ull	/* FNV-1a's offset basis: no line */
int xids_open_kmsg(struct wd *w);
void xids_read_kmsg(struct wd *w, double now);
void xids_read_file(struct wd *w, double now);
void xids_record(struct wd *w, const struct kmsg_rec *r);
void xids_load_history(struct wd *w);
int xids_save_history(const struct wd *w);
void xids_apply_acks(struct wd *w);
const char *xids_gpu_label(const struct wd *w, const char *bus_id, char *out, size_t size);
int xids_gpu_index(const struct wd *w, const char *bus_id);

/* pci.c */
void pci_rescan(struct wd *w);
void pci_refresh(struct wd *w, double now);

/* staticcheck.c */
void static_fingerprint(const struct wd *w, char *out, size_t size);
void static_maybe_start(struct wd *w, double now);
int static_fd(const struct wd *w);
void static_readable(struct wd *w, double now);

/* judge.c */
void judge(struct wd *w);		/* rebuilds w->rep */
const char *gpu_str(int gpu, char *out, size_t size);	/* "3" or "-" */
void gpus_from_sample(struct wd *w);

/* prom.c */
void prom_render(const struct wd *w, struct buf *out);
int prom_write_textfile(const struct wd *w);

/* report.c */
void report_plain(const struct wd *w, struct buf *out);

/* state.c */
int state_write(const struct wd *w);

/* server.c */
int server_listen(struct wd *w);
void server_accept(struct wd *w, double now);
int server_poll_fd(struct wd *w, double now, double *wake);
void server_io(struct wd *w, int i, short revents, double now);
void server_expire(struct wd *w, double now);

/* xids.c: write path atomically (temporary file in the same directory, then
 * rename); durable: fsync before the rename. */
int wd_write_atomic(const char *path, const char *data, size_t len, int durable);

/* The clock and the daemon's own resource use: watch/selfstat.h. */

#endif
