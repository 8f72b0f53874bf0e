/*
 * kmsg.h - the kernel log as /dev/kmsg hands it out, and the NVIDIA lines in it.
 *
 * /dev/kmsg returns one whole record per read(): "PRIO,SEQ,USEC,FLAGS;TEXT\n"
 * followed by optional continuation lines " KEY=VALUE\n".  Non-printable bytes
 * of TEXT (a newline of a multi-line message included) arrive escaped as
 * "\xNN".  When the ring buffer overwrote records we had not read, read()
 * fails with EPIPE once and the next read returns the oldest record left: the
 * gap in SEQ is the number of records lost.
 *
 * kmsg_parse_record() turns one record into a struct kmsg_rec (TEXT
 * unescaped into lines); kmsg_nvrm_scan() finds XIDs and fallen-off-the-bus
 * reports in it, remembering the first line of a report split over several
 * records.  Only the NVIDIA driver's own records count (kmsg_from_driver():
 * facility kern, the message starting "NVRM: ", each line it scans starting
 * so; an XID only on a record's first line and with the GPU's address; a
 * later line only in the fallen-off-the-bus report the first line began):
 * anyone can get a line that merely contains an XID into the kernel log,
 * e.g. as the faulting library's file name of a segfault record, as a
 * process name (15 bytes, newlines allowed) that starts a kernel record
 * about the process, or as a user-facility record.  kmsg_spoofed() tells such a record apart so
 * that it can be counted.  Both are pure functions of their input, fuzzed by
 * tests/fuzz/fuzz_kmsg.c.
 *
 *	struct kmsg_rec r;
 *	struct kmsg_nvrm nv = KMSG_NVRM_INIT;
 *	struct kmsg_event ev[8];
 *	if (kmsg_parse_record(data, len, &r) == 0) {
 *		size_t n = kmsg_nvrm_scan(&nv, &r, ev, 8);
 *		...
 *	}
 */
#ifndef GD_WATCH_KMSG_H
#define GD_WATCH_KMSG_H

#include <stddef.h>

#define KMSG_TEXT_MAX 4096

struct kmsg_rec {
	int prio;			/* syslog priority and facility */
	unsigned long long seq;
	unsigned long long usec;	/* since boot */
	char text[KMSG_TEXT_MAX];	/* unescaped; lines separated by '\n' */
	size_t len;
};

/* 0, or -1 when data is not a kmsg record. */
int kmsg_parse_record(const char *data, size_t len, struct kmsg_rec *out);

/* One finding from the kernel log. */
struct kmsg_event {
	int xid;		/* 79 for a fallen-off-the-bus report without an XID */
	char bus_id[32];	/* "0000:44:00.0", lower case, or "" when unknown */
	char text[160];		/* the line, shortened, for evidence */
	int fallen;		/* the report says the GPU fell off the bus */
};

/* Carries the first line of a multi-record fallen-off-the-bus report. */
struct kmsg_nvrm {
	char pending_bus[32];
	unsigned long long pending_seq;
	char last79_bus[32];		/* the last XID 79 counted, to count one loss once */
	unsigned long long last79_seq;
};
#define KMSG_NVRM_INIT { "", 0, "", 0 }

/* The record is the kernel's NVIDIA driver speaking: facility kern and a
 * message that starts with "NVRM: ". */
int kmsg_from_driver(const struct kmsg_rec *r);

/* Not from the driver, yet carrying a driver line ("NVRM: ", "Xid (",
 * "SXid (" anywhere): ignored, and counted as spoofed. */
int kmsg_spoofed(const struct kmsg_rec *r);

/* Events in one record from the driver, at most max; returns how many
 * (0 for any record kmsg_from_driver() refuses). */
size_t kmsg_nvrm_scan(struct kmsg_nvrm *st, const struct kmsg_rec *r,
		      struct kmsg_event *ev, size_t max);

/* "PCI:0000:44:00", "0000:44:00.0", "44:00.0" -> "0000:44:00.0"; -1 if not a PCI address. */
int kmsg_norm_bus_id(const char *s, size_t n, char *out, size_t size);

#endif
