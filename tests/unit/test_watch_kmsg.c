/*
 * test_watch_kmsg.c - /dev/kmsg records and the NVRM lines `watch` acts on:
 * escapes, continuation lines, every XID form, the fallen-off-the-bus report
 * in one record and over three, counting one loss once, and refusing
 * every record the NVIDIA driver did not write (spoofs).
 */
#include "watch/kmsg.h"
#include "tap.h"

#include <string.h>

static struct kmsg_rec r;

static size_t scan(struct kmsg_nvrm *st, const char *rec, struct kmsg_event *ev)
{
	if (kmsg_parse_record(rec, strlen(rec), &r) < 0)
		return (size_t)-1;
	return kmsg_nvrm_scan(st, &r, ev, 8);
}

static void test_record(void)
{
	const char *rec = "4,1201,5044302290,-;NVRM: a\\x0ab\\x5c c\\x01\n SUBSYSTEM=pci\n DEVICE=+pci:0000:19:00.0\n";

	CHECK_INT(kmsg_parse_record(rec, strlen(rec), &r), 0);
	CHECK_INT(r.prio, 4);
	CHECK_INT(r.seq, 1201);
	CHECK_INT(r.usec, 5044302290ull);
	CHECK_STR(r.text, "NVRM: a\nb\\ c?");
	CHECK_INT(kmsg_parse_record("6,1,2,-,more;x", 14, &r), 0);	/* more flags, no newline */
	CHECK_STR(r.text, "x");
	CHECK_INT(kmsg_parse_record("x,1,2,-;y\n", 10, &r), -1);
	CHECK_INT(kmsg_parse_record("4,1,2-;y\n", 9, &r), -1);
	CHECK_INT(kmsg_parse_record("4,1,2,-\n", 8, &r), -1);
	CHECK_INT(kmsg_parse_record("", 0, &r), -1);
	CHECK_INT(kmsg_parse_record("99999,1,2,-;y\n", 14, &r), -1);
}

static void test_xid_forms(void)
{
	struct kmsg_nvrm st = KMSG_NVRM_INIT;
	struct kmsg_event ev[8];

	CHECK_INT(scan(&st, "4,1,1,-;NVRM: Xid (PCI:0000:44:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n", ev), 1);
	CHECK_INT(ev[0].xid, 79);
	CHECK_STR(ev[0].bus_id, "0000:44:00.0");
	CHECK_INT(ev[0].fallen, 1);
	CHECK_INT(scan(&st, "4,20,1,-;NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104\n", ev), 1);
	CHECK_INT(ev[0].xid, 13);
	CHECK_STR(ev[0].bus_id, "0000:01:00.0");
	CHECK_INT(ev[0].fallen, 0);
	CHECK_INT(scan(&st, "4,21,1,-;NVRM: Xid (PCI:0000:00:1e.0): 31, pid=1, name=python3, MMU Fault\n", ev), 1);
	CHECK_STR(ev[0].bus_id, "0000:00:1e.0");
	CHECK_INT(scan(&st, "4,22,1,-;NVRM: GPU 0000:29:00.0: GPU has fallen off the bus.\n", ev), 1);
	CHECK_INT(ev[0].xid, 79);
	CHECK_STR(ev[0].bus_id, "0000:29:00.0");
	/* not XIDs */
	CHECK_INT(scan(&st, "4,40,1,-;NVRM: GPU at PCI:0000:18:00: GPU-34d7319c-5b19-1e75-186d-c187099e4fe5\n", ev), 0);
	CHECK_INT(scan(&st, "4,41,1,-;NVRM: Xid (PCI:0000:18:00) 13 no colon\n", ev), 0);
	CHECK_INT(scan(&st, "4,42,1,-;nouveau: Xid (PCI:0000:18:00): 13, x\n", ev), 0);
	CHECK_INT(scan(&st, "4,43,1,-;NVRM: Xid (PCI:0000:18:00): 0, zero\n", ev), 0);
}

static void test_fallen_multiline(void)
{
	struct kmsg_nvrm st = KMSG_NVRM_INIT;
	struct kmsg_event ev[8];

	/* one record with escaped newlines */
	CHECK_INT(scan(&st, "4,100,1,-;NVRM: The NVIDIA GPU 0000:18:00.0\\x0aNVRM: (PCI ID: 10de:2901) installed in this system has\\x0aNVRM: fallen off the bus and is not responding to commands.\n", ev), 1);
	CHECK_INT(ev[0].xid, 79);
	CHECK_STR(ev[0].bus_id, "0000:18:00.0");
	/* three records, then the XID line of the same loss: counted once */
	CHECK_INT(scan(&st, "4,200,1,-;NVRM: The NVIDIA GPU 0000:1b:00.0\n", ev), 0);
	CHECK_INT(scan(&st, "4,201,1,-;NVRM: (PCI ID: 10de:2335) installed in this system has\n", ev), 0);
	CHECK_INT(scan(&st, "4,202,1,-;NVRM: fallen off the bus and is not responding to commands.\n", ev), 1);
	CHECK_STR(ev[0].bus_id, "0000:1b:00.0");
	CHECK_INT(scan(&st, "4,203,1,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=1, GPU has fallen off the bus.\n", ev), 0);
	/* another GPU's loss right after is not merged */
	CHECK_INT(scan(&st, "4,204,1,-;NVRM: Xid (PCI:0000:1c:00): 79, pid=1, GPU has fallen off the bus.\n", ev), 1);
	/* a report whose first line is far back names no GPU */
	CHECK_INT(scan(&st, "4,300,1,-;NVRM: The NVIDIA GPU 0000:1d:00.0\n", ev), 0);
	CHECK_INT(scan(&st, "4,399,1,-;NVRM: fallen off the bus and is not responding to commands.\n", ev), 1);
	CHECK_STR(ev[0].bus_id, "");
}

/*
 * Records anyone can get into the kernel log.  The segfault texts are the
 * kernel's own format (arch/x86/mm/fault.c show_signal_msg(), as read from
 * /dev/kmsg on a 6.18 kernel), with a library file name chosen by the
 * user; a name may hold a newline, which /dev/kmsg escapes as \x0a.
 */
static void test_spoofs(void)
{
	static const char *const spoofs[] = {
		/* user facility (1 << 3 | 3): `logger --kmsg`-style, echo > /dev/kmsg */
		"11,500,1,-;NVRM: Xid (PCI:0000:44:00): 79, pid=1, GPU has fallen off the bus.\n",
		/* a daemon's facility (3 << 3 | 4) */
		"28,501,1,-;NVRM: GPU 0000:44:00.0: GPU has fallen off the bus.\n",
		/* kernel facility, but a segfault record naming a library */
		"6,502,1,-;a.out[4242]: segfault at 0 ip 00007f58eba7e10d sp 00007ffcced1d320 error 4 in "
		"NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.so[110d,7f58eba7e000+1000]\n",
		/* ... and its file name with a newline: the second line starts right */
		"6,503,1,-;a.out[4242]: segfault at 0 ip 0 sp 0 error 4 in x\\x0aNVRM: Xid (PCI:0000:44:00): 79, "
		"GPU has fallen off the bus.so[110d,7f58eba7e000+1000]\n",
		/* another driver quoting it mid-message */
		"4,504,1,-;mydrv 0000:03:00.0: relay NVRM: Xid (PCI:0000:44:00): 48, DBE\n",
		/* an indented NVRM line (a quoted log) */
		"4,505,1,-; NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.\n",
		/* a process name (15 bytes) that starts the message "NVRM: ", and
		   the rest of a driver line in the library's name: refused as a
		   segfault record, and each form would not match anyway */
		"6,507,1,-;NVRM: GPU 18:0[8699]: segfault at 0 ip 0 sp 0 error 4 in "
		"x: GPU has fallen off the bus.so[110d,7f58eba7e000+1000]\n",
		"6,508,1,-;NVRM: x[8699]: segfault at 0 ip 0 sp 0 error 4 in "
		"fallen off the bus and is not responding to commands.so[110d,7f58eba7e000+1000]\n",
		"6,509,1,-;NVRM: Xid (PCI[8699]: segfault at 0 ip 0 sp 0 error 4 in "
		"0000:18:00): 79, x.so[110d,7f58eba7e000+1000]\n",
		/* the multi-line report's first line, from user space */
		"14,506,1,-;NVRM: The NVIDIA GPU 0000:45:00.0\n",
	};
	struct kmsg_nvrm st = KMSG_NVRM_INIT;
	struct kmsg_event ev[8];

	for (size_t i = 0; i < sizeof(spoofs) / sizeof(spoofs[0]); i++) {
		CHECK_INT(scan(&st, spoofs[i], ev), 0);
		CHECK_INT(kmsg_from_driver(&r), 0);
		CHECK_INT(kmsg_spoofed(&r), 1);
	}
	/* Round 3: the process name starts the record and may hold a newline
	   (prctl(PR_SET_NAME) takes any byte): "NVRM: " on the first line,
	   the segfault text on the second, the file name's lines after it.
	   And a kernel record of another kind that starts with the name (x86
	   signal_fault()'s "COMM[PID] bad frame in ... in FILE", arm64's
	   "COMM[PID]: unhandled ... in FILE"), where no segfault text helps. */
	{
		static const char *const named[] = {
			"6,530,1,-;NVRM: \\x0aNVRM: x[8699]: segfault at 0 ip 0 sp 0 error 4 in y\\x0a"
			"NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.so[110d,7f58eba7e000+1000]\n",
			"6,531,1,-;NVRM: a[8699] bad frame in rt_sigreturn frame:0 ip:0 sp:0 orax:0 in y\\x0a"
			"NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.so[7f58eba7e000+1000]\n",
			"6,532,1,-;NVRM: a[8699]: unhandled level 2 translation fault (11) at 0x0, esr 0x92000006, "
			"in y\\x0aNVRM: GPU 0000:44:00.0: GPU has fallen off the bus.so[aaaab0000000+1000]\n",
			"6,533,1,-;NVRM: a[8699] bad frame in rt_sigreturn in y\\x0aNVRM: The NVIDIA GPU 0000:44:00.0"
			"\\x0aNVRM: fallen off the bus and is not responding to commands.so\n",
			/* an XID that fits in the name: no GPU address */
			"6,534,1,-;NVRM: Xid (): 9[8699] bad frame in rt_sigreturn ip:0 sp:0 orax:0\n",
		};
		for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
			CHECK_INT(scan(&st, named[i], ev), 0);
		/* the segfault one is counted as spoofed; the others are just ignored */
		CHECK_INT(scan(&st, named[0], ev), 0);
		CHECK_INT(kmsg_spoofed(&r), 1);
	}
	/* the user-space first line set nothing: a real third line names no GPU */
	CHECK_INT(scan(&st, "4,510,1,-;NVRM: fallen off the bus and is not responding to commands.\n", ev), 1);
	CHECK_STR(ev[0].bus_id, "");
	/* near misses: the driver's own records at any kernel level count */
	CHECK_INT(scan(&st, "0,600,1,-;NVRM: Xid (PCI:0000:44:00): 48, pid=1, DBE\n", ev), 1);
	CHECK_INT(kmsg_spoofed(&r), 0);
	CHECK_INT(scan(&st, "7,601,1,-;NVRM: Xid (PCI:0000:44:00): 13, pid=1, Graphics Exception\n", ev), 1);
	/* the exact forms alone refuse those lines (were the segfault test gone) */
	{
		static const char *const lines[] = {
			"6,520,1,-;NVRM: GPU 18:0[8699]: x: GPU has fallen off the bus.so\n",
			"6,521,1,-;NVRM: x[8699]: y fallen off the bus and is not responding.so\n",
			"6,522,1,-;NVRM: Xid (PCI[8699]: 0000:18:00): 79, x.so\n",
		};
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			CHECK_INT(scan(&st, lines[i], ev), 0);
	}
	/* the NVSwitch driver's SXid record (kernel facility) is not a spoof,
	   the same text from user space is */
	CHECK_INT(scan(&st, "4,603,1,-;nvidia-nvswitch3: SXid (PCI:0000:89:00.0): 12028, Non-fatal, "
		       "Link 28 egress non-posted PRIV error (First)\n", ev), 0);
	CHECK_INT(kmsg_spoofed(&r), 0);
	CHECK_INT(scan(&st, "12,604,1,-;nvidia-nvswitch3: SXid (PCI:0000:89:00.0): 12028, Non-fatal\n", ev), 0);
	CHECK_INT(kmsg_spoofed(&r), 1);
	/* ... and so is a process named "nvidia-nvswitch" (15 bytes) */
	CHECK_INT(scan(&st, "6,605,1,-;nvidia-nvswitch[8699]: segfault at 0 ip 0 sp 0 error 4 in "
		       "NVRM: Xid (PCI:0000:44:00): 79, x.so[110d,7f58eba7e000+1000]\n", ev), 0);
	CHECK_INT(kmsg_spoofed(&r), 1);
	/* ordinary records are neither */
	CHECK_INT(scan(&st, "6,602,1,-;usb 1-1: new high-speed USB device\n", ev), 0);
	CHECK_INT(kmsg_spoofed(&r), 0);
}

static void test_bus_ids(void)
{
	char b[32];

	CHECK_INT(kmsg_norm_bus_id("PCI:0000:44:00", 14, b, sizeof(b)), 0);
	CHECK_STR(b, "0000:44:00.0");
	CHECK_INT(kmsg_norm_bus_id("00000000:18:00.0", 16, b, sizeof(b)), 0);	/* NVML's form */
	CHECK_STR(b, "0000:18:00.0");
	CHECK_INT(kmsg_norm_bus_id("18:00.0", 7, b, sizeof(b)), 0);
	CHECK_STR(b, "0000:18:00.0");
	CHECK_INT(kmsg_norm_bus_id("0000:1A:00.1", 12, b, sizeof(b)), 0);
	CHECK_STR(b, "0000:1a:00.1");
	CHECK_INT(kmsg_norm_bus_id("zz:00.0", 7, b, sizeof(b)), -1);
	CHECK_INT(kmsg_norm_bus_id("0000:1a:40.0", 12, b, sizeof(b)), -1);	/* device > 31 */
}

int main(void)
{
	RUN(test_record);
	RUN(test_xid_forms);
	RUN(test_fallen_multiline);
	RUN(test_spoofs);
	RUN(test_bus_ids);
	return tap_done();
}
