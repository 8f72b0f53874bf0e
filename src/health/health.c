/* health.c - problems, the verdict and its one line; see health.h. */
#include "health/health.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void health_init(struct health *h)
{
	memset(h, 0, sizeof(*h));
	h->verdict = HEALTH_UNKNOWN;
}

void health_release(struct health *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->items[i].gpu);
		free(h->items[i].reason);
	}
	free(h->items);
	free(h->unknown_reason);
	health_init(h);
}

void health_add_finding(struct health *h, const struct finding *f, int from_watch)
{
	struct health_item *it;
	char gpu[24];

	if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
		return;
	if (f->gpu >= 0)
		snprintf(gpu, sizeof(gpu), "%d", f->gpu);
	else
		snprintf(gpu, sizeof(gpu), "%s", f->pci && *f->pci ? f->pci : "-");
	XGROW(h->items, h->n, h->cap);
	it = &h->items[h->n++];
	memset(it, 0, sizeof(*it));
	it->cause = f->cause;
	it->gpu = xstrdup(gpu);
	it->status = finding_node_status(f);
	it->reason = xstrdup(f->title ? f->title : "");
	it->from_watch = from_watch;
	it->xid = f->xid;
	it->xid_action = f->xid_action;
}

const char *health_cause(const struct health_item *it)
{
	const char *id = cause_id_str(it->cause);

	return id ? id : "unknown-cause";
}

void health_set_unknown(struct health *h, const char *reason)
{
	free(h->unknown_reason);
	h->unknown_reason = xstrdup(reason);
}

void health_clean(char *out, size_t outsz, const char *s)
{
	size_t o = 0;
	int blank = 0;

	if (!outsz)
		return;
	for (; s && *s && o + 1 < outsz; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			blank = o > 0;
			continue;
		}
		if (blank) {
			if (o + 2 >= outsz)
				break;
			out[o++] = ' ';
			blank = 0;
		}
		out[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	out[o] = '\0';
}

/*
 * "gpudoctor: " head + text, cut to HEALTH_LINE_MAX with "..." when the
 * text is longer; tail (may be "") is kept whole when there is room.
 */
static void health_format(struct health *h, const char *text, const char *tail)
{
	char clean[512];
	size_t room, head, cl, tl = strlen(tail);

	health_clean(clean, sizeof(clean), text);
	head = (size_t)snprintf(h->line, sizeof(h->line), "gpudoctor: ");
	room = HEALTH_LINE_MAX - head;
	if (tl + 8 > room)
		tl = 0, tail = "";
	if (strlen(clean) + tl > room) {
		size_t keep = room - tl - 3;

		while (keep > 0 && clean[keep - 1] == ' ')
			keep--;
		memcpy(clean + keep, "...", 4);
	}
	/* clean + tail fit in room now: head + room == HEALTH_LINE_MAX. */
	cl = strlen(clean);
	memcpy(h->line + head, clean, cl);
	memcpy(h->line + head + cl, tail, tl + 1);
}

void health_verdict(struct health *h)
{
	const struct health_item *first_warn = NULL;
	char text[512], tail[32] = "";

	h->worst = NULL;
	h->nfail = h->nwarn = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct health_item *it = &h->items[i];

		if (it->status == STATUS_FAIL) {
			if (!h->worst)
				h->worst = it;
			h->nfail++;
		} else if (it->status == STATUS_WARN) {
			if (!first_warn)
				first_warn = it;
			h->nwarn++;
		}
	}
	if (h->worst) {
		/* A known failure outranks an unfinished check: the node is sick. */
		h->verdict = HEALTH_UNHEALTHY;
		h->action = health_item_needs_reboot(h->worst) ? HEALTH_ACT_REBOOT
								       : HEALTH_ACT_DRAIN;
		snprintf(text, sizeof(text), "%s %s %s", health_cause(h->worst), h->worst->gpu,
			 h->worst->reason);
		if (h->nfail > 1)
			snprintf(tail, sizeof(tail), " (+%zu more)", h->nfail - 1);
	} else if (h->unknown_reason) {
		h->verdict = HEALTH_UNKNOWN;
		h->action = HEALTH_ACT_NONE;
		snprintf(text, sizeof(text), "unknown - %s", h->unknown_reason);
	} else {
		h->verdict = HEALTH_OK;
		h->action = HEALTH_ACT_NONE;
		if (first_warn)
			snprintf(text, sizeof(text), "ok; warn %s %s %s", health_cause(first_warn),
				 first_warn->gpu, first_warn->reason);
		else
			snprintf(text, sizeof(text), "ok");
	}
	health_format(h, text, tail);
}

void health_gpu_of_finding(const char *id, char *out, size_t outsz)
{
	static const char *const marks[] = { ".gpu.", ".device.", "hardware.driver.",
					     "hardware.pcie-link.", "kernel.unbound." };
	const char *p = NULL;
	size_t n = 0;

	snprintf(out, outsz, "-");
	for (size_t i = 0; id && i < sizeof(marks) / sizeof(marks[0]) && !p; i++) {
		const char *m = strstr(id, marks[i]);

		if (m)
			p = m + strlen(marks[i]);
	}
	if (!p)
		return;
	/* An index stops at the next '.', a PCI address runs to the end. */
	if (*p >= '0' && *p <= '9' && !strchr(p, ':'))
		n = strcspn(p, ".");
	else
		n = strlen(p);
	if (n == 0 || n >= outsz || n > 16)
		return;
	memcpy(out, p, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF:.", out[i])) {
			snprintf(out, outsz, "-");
			return;
		}
}
