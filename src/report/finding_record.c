/* finding_record.c - a finding as one key=value line; see finding_record.h. */
#include "report/finding_record.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_words[] = { "ok", "skipped", "warn", "fail" };

/* Copies of machine values are written only when every byte is in chars. */
static int only(const char *s, size_t n, size_t max, const char *chars)
{
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(chars, s[i]))
			return 0;
	return 1;
}

#define PCI_CHARS "0123456789abcdefABCDEF:."
#define UUID_CHARS "0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz-"

void finding_record_write(struct buf *out, const struct finding *f)
{
	const char *id = cause_id_str(f->cause);

	buf_printf(out, "cause=%s status=%s layer=%s", id ? id : "-",
		   (unsigned)f->status < 4 ? status_words[f->status] : "fail", layer_name(f->layer));
	if (f->gpu >= 0)
		buf_printf(out, " gpu=%d", f->gpu);
	if (f->pci && only(f->pci, strlen(f->pci), 31, PCI_CHARS))
		buf_printf(out, " pci=%s", f->pci);
	if (f->uuid && only(f->uuid, strlen(f->uuid), 95, UUID_CHARS))
		buf_printf(out, " uuid=%s", f->uuid);
	if (f->xid > 0)
		buf_printf(out, " xid=%d action=%s", f->xid, kb_xid_action_name(f->xid_action));
	buf_puts(out, " title=");
	/* One line: the title may quote the kernel log. */
	for (const char *p = f->title ? f->title : ""; *p; p++)
		buf_addc(out, (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p);
}

static int number(const char *v, size_t n, long lo, long hi, long *out)
{
	char tmp[16], *end;

	if (!only(v, n, sizeof(tmp) - 1, "0123456789"))
		return -1;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	*out = strtol(tmp, &end, 10);
	return *out < lo || *out > hi ? -1 : 0;
}

static int word_is(const char *v, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(v, w, n);
}

static int field(struct finding *f, const char *k, size_t kn, const char *v, size_t vn,
		 unsigned *seen, struct err *e)
{
	char tmp[64];
	long x;

	if (vn < sizeof(tmp)) {
		memcpy(tmp, v, vn);
		tmp[vn] = '\0';
	} else {
		tmp[0] = '\0';
	}
	if (word_is(k, kn, "cause")) {
		f->cause = cause_from_id(tmp);
		if (f->cause == CAUSE_NONE)
			return err_set(e, "unknown cause id '%.40s'", tmp);
		*seen |= 1;
	} else if (word_is(k, kn, "status")) {
		size_t i;

		for (i = 0; i < 4 && strcmp(tmp, status_words[i]); i++)
			;
		if (i == 4)
			return err_set(e, "unknown status '%.20s'", tmp);
		f->status = (enum status)i;
		*seen |= 2;
	} else if (word_is(k, kn, "layer")) {
		int l = layer_from_name(tmp);

		if (l < 0)
			return err_set(e, "unknown layer '%.20s'", tmp);
		f->layer = (enum layer_id)l;
	} else if (word_is(k, kn, "gpu")) {
		if (number(v, vn, 0, 9999, &x) < 0)
			return err_set(e, "gpu is not an index");
		f->gpu = (int)x;
	} else if (word_is(k, kn, "pci")) {
		if (!only(v, vn, 31, PCI_CHARS))
			return err_set(e, "pci is not a PCI address");
		free(f->pci);
		f->pci = xstrdup(tmp);
	} else if (word_is(k, kn, "uuid")) {
		if (!only(v, vn, 95, UUID_CHARS))
			return err_set(e, "uuid is not a GPU UUID");
		free(f->uuid);
		f->uuid = xstrndup(v, vn);
	} else if (word_is(k, kn, "xid")) {
		if (number(v, vn, 1, 100000, &x) < 0)
			return err_set(e, "xid is not an XID number");
		f->xid = (int)x;
	} else if (word_is(k, kn, "action")) {
		if (kb_xid_action_parse(tmp, &f->xid_action) < 0)
			return err_set(e, "unknown XID action '%.20s'", tmp);
	} else {
		return err_set(e, "unknown field '%.*s'", (int)(kn < 20 ? kn : 20), k);
	}
	return 0;
}

int finding_record_parse(const char *line, size_t len, struct finding *f, struct err *e)
{
	const char *p = line, *end = line + len;
	unsigned seen = 0;

	memset(f, 0, sizeof(*f));
	f->gpu = -1;
	while (p < end) {
		const char *sp, *eq;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			goto bad_field;
		if (eq - p == 5 && !memcmp(p, "title", 5)) {
			f->title = xstrndup(eq + 1, (size_t)(end - eq - 1));
			break;
		}
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			sp = end;
		if (sp < eq)
			goto bad_field;
		if (field(f, p, (size_t)(eq - p), eq + 1, (size_t)(sp - eq - 1), &seen, e) < 0)
			goto bad;
		p = sp;
	}
	if ((seen & 3) != 3) {
		err_set(e, "a finding needs a cause and a status");
		goto bad;
	}
	if (!f->title)
		f->title = xstrdup("");
	for (char *t = f->title; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			*t = ' ';
	if (f->xid && !(cause_flags(f->cause) & CF_ACKABLE)) {
		err_set(e, "%s carries no XID", cause_id_str(f->cause));
		goto bad;
	}
	return 0;
bad_field:
	err_set(e, "a field is not key=value");
bad:
	finding_release(f);
	return -1;
}
