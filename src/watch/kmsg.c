/* kmsg.c - /dev/kmsg records and the NVRM lines in them; see kmsg.h. */
#include "watch/kmsg.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decimal number of at most 20 digits ending at one of `ends`. */
static int parse_num(const char **p, const char *end, const char *ends, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	int n = 0;

	while (s < end && isdigit((unsigned char)*s) && n < 20) {
		v = v * 10 + (unsigned long long)(*s - '0');
		s++;
		n++;
	}
	if (n == 0 || s >= end || !strchr(ends, *s))
		return -1;
	*out = v;
	*p = s;
	return 0;
}

int kmsg_parse_record(const char *data, size_t len, struct kmsg_rec *out)
{
	const char *p = data, *end = data + len, *semi, *nl;
	unsigned long long prio;
	size_t o = 0;

	memset(out, 0, offsetof(struct kmsg_rec, text) + 1);
	out->text[0] = '\0';
	if (parse_num(&p, end, ",", &prio) < 0 || prio > 1023)
		return -1;
	p++;
	if (parse_num(&p, end, ",", &out->seq) < 0)
		return -1;
	p++;
	if (parse_num(&p, end, ",;", &out->usec) < 0)
		return -1;
	out->prio = (int)prio;
	semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return -1;
	nl = memchr(semi, '\n', (size_t)(end - semi));
	if (!nl)
		nl = end;	/* a file's last line may lack its newline */
	for (p = semi + 1; p < nl && o + 1 < sizeof(out->text); p++) {
		int c = (unsigned char)*p;

		if (c == '\\' && nl - p >= 4 && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
			c = hexval(p[2]) * 16 + hexval(p[3]);
			p += 3;
		}
		/* Control bytes other than newline and tab never reach a caller. */
		if (c == '\0' || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			c = '?';
		out->text[o++] = (char)c;
	}
	out->text[o] = '\0';
	out->len = o;
	return 0;
}

int kmsg_norm_bus_id(const char *s, size_t n, char *out, size_t size)
{
	unsigned dom = 0, bus, dev, fn = 0;
	char tmp[48], *e;
	const char *t = tmp;
	int got;

	if (n >= sizeof(tmp) || size < 13)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (!strncasecmp(t, "PCI:", 4))
		t += 4;
	for (e = (char *)t; *e; e++)
		if (!isxdigit((unsigned char)*e) && *e != ':' && *e != '.')
			return -1;
	got = sscanf(t, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	if (got < 3) {
		dom = 0;
		fn = 0;
		got = sscanf(t, "%x:%x.%x", &bus, &dev, &fn);
		if (got < 2)
			return -1;
	} else if (got == 3) {
		fn = 0;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	snprintf(out, size, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static void set_text(struct kmsg_event *ev, const char *line, size_t n)
{
	if (n >= sizeof(ev->text))
		n = sizeof(ev->text) - 1;
	memcpy(ev->text, line, n);
	ev->text[n] = '\0';
}

/* Length of the PCI address at s ([0-9a-fA-F:.]). */
static size_t addr_len(const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && (isxdigit((unsigned char)s[n]) || s[n] == ':' || s[n] == '.') && n < 40)
		n++;
	return n;
}

static const char *find_in(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; s + n <= end; s++)
		if (!memcmp(s, needle, n))
			return s;
	return NULL;
}

/*
 * One line of text (no newline).  Forms, from NVIDIA's driver:
 *   NVRM: Xid (PCI:0000:44:00): 79, pid=..., GPU has fallen off the bus.
 *   NVRM: GPU 0000:44:00.0: GPU has fallen off the bus.
 *   NVRM: The NVIDIA GPU 0000:44:00.0          (first line of three)
 *   NVRM: ... fallen off the bus and is not responding to commands.
 */
static int scan_line(struct kmsg_nvrm *st, unsigned long long seq, const char *line,
		     const char *end, int first, struct kmsg_event *ev)
{
	const char *p = line;
	size_t n;

	/* The driver's own lines start with its tag; one that merely contains
	   it (a file name, a process name, another driver) is not the driver. */
	if (end - p < 6 || memcmp(p, "NVRM: ", 6))
		return 0;
	p += 6;
	memset(ev, 0, sizeof(*ev));
	if (first && end - p > 5 && !memcmp(p, "Xid (", 5)) {
		const char *a = p + 5, *q;
		char *numend;
		long x;

		n = addr_len(a + (!strncmp(a, "PCI:", 4) ? 4 : 0), end) + (!strncmp(a, "PCI:", 4) ? 4 : 0);
		/* The driver always names the GPU.  Without an address the line
		   would fit in a process name (15 bytes: "NVRM: Xid (): 9") that
		   starts a kernel record about that process. */
		if (a + n >= end || a[n] != ')' ||
		    kmsg_norm_bus_id(a, n, ev->bus_id, sizeof(ev->bus_id)) < 0)
			return 0;
		q = a + n + 1;
		if (end - q < 3 || q[0] != ':' || q[1] != ' ' || !isdigit((unsigned char)q[2]))
			return 0;
		x = strtol(q + 2, &numend, 10);
		if (numend > end || x <= 0 || x > 100000)
			return 0;
		ev->xid = (int)x;
		ev->fallen = find_in(q, end, "fallen off the bus") != NULL;
		set_text(ev, line, (size_t)(end - line));
		return 1;
	}
	if (first && end - p > 4 && !memcmp(p, "GPU ", 4)) {
		static const char tail[] = ": GPU has fallen off the bus";

		/* The address, then the report: a process name that starts
		   "NVRM: GPU 18:0" and a library named "...: GPU has fallen off
		   the bus" in one segfault record must not make one. */
		n = addr_len(p + 4, end);
		if (n && p[4 + n - 1] == ':')
			n--;
		if ((size_t)(end - (p + 4 + n)) < sizeof(tail) - 1 ||
		    memcmp(p + 4 + n, tail, sizeof(tail) - 1))
			return 0;
		if (kmsg_norm_bus_id(p + 4, n, ev->bus_id, sizeof(ev->bus_id)) < 0)
			ev->bus_id[0] = '\0';
		ev->xid = 79;
		ev->fallen = 1;
		set_text(ev, line, (size_t)(end - line));
		return 1;
	}
	if (first && end - p > 15 && !memcmp(p, "The NVIDIA GPU ", 15)) {
		n = addr_len(p + 15, end);
		if (kmsg_norm_bus_id(p + 15, n, st->pending_bus, sizeof(st->pending_bus)) < 0)
			st->pending_bus[0] = '\0';
		st->pending_seq = seq;
		return 0;
	}
	if (end - p >= 40 && !memcmp(p, "fallen off the bus and is not responding", 40)) {
		/* The report's first line came at most a few records before. */
		if (st->pending_bus[0] && seq - st->pending_seq <= 4)
			snprintf(ev->bus_id, sizeof(ev->bus_id), "%s", st->pending_bus);
		st->pending_bus[0] = '\0';
		ev->xid = 79;
		ev->fallen = 1;
		set_text(ev, line, (size_t)(end - line));
		return 1;
	}
	return 0;
}

/*
 * The driver may report one loss twice (an "Xid ... 79" line and the
 * multi-line report): one GPU's XID 79 within a few records counts once.
 */
static int repeated_79(struct kmsg_nvrm *st, unsigned long long seq, const struct kmsg_event *ev)
{
	int rep;

	if (ev->xid != 79)
		return 0;
	rep = st->last79_seq && seq - st->last79_seq <= 8 && !strcmp(st->last79_bus, ev->bus_id);
	snprintf(st->last79_bus, sizeof(st->last79_bus), "%s", ev->bus_id);
	st->last79_seq = seq;
	return rep;
}

int kmsg_from_driver(const struct kmsg_rec *r)
{
	/* Facility 0 (kern): user space cannot write it to /dev/kmsg, the
	   kernel turns facility 0 from a writer into 1 (user). */
	if ((r->prio >> 3) != 0 || r->len < 6 || memcmp(r->text, "NVRM: ", 6))
		return 0;
	/* The kernel's own report of a user's crash, "COMM[PID]: segfault at
	   ...": the process name (anyone's choice) starts the message, and a
	   newline in it moves "]: segfault at " to a later line. */
	return !find_in(r->text, r->text + r->len, "]: segfault at ");
}

int kmsg_spoofed(const struct kmsg_rec *r)
{
	const char *end = r->text + r->len;

	if (kmsg_from_driver(r))
		return 0;
	/* The NVSwitch driver's own SXid records (facility kern, its device
	   name first: "nvidia-nvswitch3: SXid (PCI:...): 12028, ..."): real,
	   not watched here, never counted as spoofs.  A process name is at
	   most 15 bytes, so one that starts a kernel record cannot add the
	   device's number. */
	if ((r->prio >> 3) == 0 && r->len > 16 && !memcmp(r->text, "nvidia-nvswitch", 15) &&
	    isdigit((unsigned char)r->text[15]) && !memchr(r->text, '\n', r->len))
		return 0;
	return find_in(r->text, end, "NVRM: ") || find_in(r->text, end, "Xid (") ||
	       find_in(r->text, end, "SXid (");
}

size_t kmsg_nvrm_scan(struct kmsg_nvrm *st, const struct kmsg_rec *r,
		      struct kmsg_event *ev, size_t max)
{
	const char *s = r->text, *end = r->text + r->len;
	size_t n = 0;
	/* A record's later lines are the driver's only as the rest of the
	   report its first line began: a record the kernel writes about a
	   user's process ("COMM[PID]: segfault at ... in FILE") starts with the
	   process name, which may hold a newline, and the file name may hold
	   more, each line then starting "NVRM: ". */
	int report = r->len > 21 && !memcmp(r->text, "NVRM: The NVIDIA GPU ", 21);

	if (!kmsg_from_driver(r))
		return 0;	/* a record the driver did not write changes no state either */

	while (s < end && n < max) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		if (s != r->text && !report)
			break;

		if (scan_line(st, r->seq, s, le, s == r->text, &ev[n]) &&
		    !repeated_79(st, r->seq, &ev[n]))
			n++;
		s = le + 1;
	}
	return n;
}
