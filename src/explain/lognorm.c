/*
 * lognorm.c - log normalisation; see lognorm.h for what is removed and why.
 *
 * Everything here is hostile input: every scan is bounded by the line's
 * length, never by a NUL.  The fast path (a plain line without escapes or a
 * prefix) copies nothing but the folding candidate.  HTML entities are
 * logescape.c's; the prefix grammar (kmsg, ISO, syslog/journal, dmesg with
 * its -T and -H forms, glog, torchrun, c10) is lognorm_prefix.c's
 * (lognorm_prefix.h); the kmsg flag it sets feeds the joining of NVRM
 * continuation lines here.
 */
#include "explain/lognorm.h"

#include "explain/logescape.h"
#include "explain/lognorm_prefix.h"
#include "explain/logunwrap.h"

#include <ctype.h>
#include <string.h>

void lognorm_init(struct lognorm *n, lognorm_fn fn, void *arg)
{
	memset(n, 0, sizeof(*n));
	n->fn = fn;
	n->arg = arg;
	n->clock_last = -1;
	buf_init(&n->partial);
	buf_init(&n->scratch);
	buf_init(&n->dec);
	buf_init(&n->html);
	buf_init(&n->typo);
	buf_init(&n->esc);
	buf_init(&n->resid);
	buf_init(&n->loc);
	buf_init(&n->pend);
	buf_init(&n->pend_frames);
	for (size_t t = 0; t < LN_TB_SLOTS; t++) {
		buf_init(&n->tb[t].first_lib);
		buf_init(&n->tb[t].last_lib);
		buf_init(&n->tb[t].last_user);
		buf_init(&n->tb[t].last);
	}
}

int lognorm_newest_first(const struct lognorm *n)
{
	/* a day's wrap at midnight is one step back among many forward */
	return n->clock_down > n->clock_up;
}

void lognorm_release(struct lognorm *n)
{
	buf_release(&n->partial);
	buf_release(&n->scratch);
	buf_release(&n->dec);
	buf_release(&n->html);
	buf_release(&n->typo);
	buf_release(&n->esc);
	buf_release(&n->resid);
	buf_release(&n->loc);
	buf_release(&n->pend);
	buf_release(&n->pend_frames);
	for (size_t t = 0; t < LN_TB_SLOTS; t++) {
		buf_release(&n->tb[t].first_lib);
		buf_release(&n->tb[t].last_lib);
		buf_release(&n->tb[t].last_user);
		buf_release(&n->tb[t].last);
	}
}

/* ---- emitting and folding ---- */

static int nvrm_open(const char *s, size_t len)
{
	return len > 6 && !memcmp(s, "NVRM: ", 6) && s[len - 1] != '.';
}

static void flush_pending(struct lognorm *n)
{
	if (!n->have_pend)
		return;
	n->pl.text = n->pend.s;
	n->pl.len = n->pend.len;
	n->pl.frames = n->pl.flags & LN_EXCEPTION ? buf_cstr(&n->pend_frames) : NULL;
	n->fn(&n->pl, n->arg);
	n->have_pend = 0;
}

static void emit(struct lognorm *n, const char *s, size_t len, unsigned flags, long count,
		 const char *frames, int user_only)
{
	flags &= ~LN_KMSG;
	if (n->have_pend && n->pend.len == len && !memcmp(n->pend.s, s, len) &&
	    (n->pl.flags & LN_EXCEPTION) == (flags & LN_EXCEPTION)) {
		n->pl.count += count;
		n->pl.last = n->lineno;
		return;
	}
	flush_pending(n);
	buf_reset(&n->pend);
	buf_add(&n->pend, s, len);
	buf_reset(&n->pend_frames);
	if (frames)
		buf_puts(&n->pend_frames, frames);
	memset(&n->pl, 0, sizeof(n->pl));
	n->pl.first = n->pl.last = n->lineno;
	n->pl.count = count;
	n->pl.flags = flags;
	n->pl.writer = n->cur_writer;
	n->pl.record = n->cur_record;
	n->pl.user_frames_only = user_only;
	n->have_pend = 1;
	n->pend_nvrm_open = nvrm_open(s, len);
}

/* ---- tracebacks ---- */

static int is_lib_path(const char *s, size_t len)
{
	static const char *const marks[] = { "site-packages/", "dist-packages/", "/lib/python3",
					     "<frozen " };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (memmem(s, len, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

/* `File "/x/y.py", line 12, in f` -> "/x/y.py:12 in f" into b. */
static void frame_format(struct buf *b, const char *s, size_t len)
{
	const char *q = memchr(s + 6, '"', len - 6), *ln, *in;
	size_t rest;

	buf_reset(b);
	if (!q) {
		buf_add(b, s, len);
		return;
	}
	buf_add(b, s + 6, (size_t)(q - (s + 6)));
	rest = len - (size_t)(q - s);
	ln = memmem(q, rest, ", line ", 7);
	if (ln) {
		const char *d = ln + 7;

		buf_addc(b, ':');
		while (d < s + len && ln_is_digit(*d))
			buf_addc(b, *d++);
	}
	in = memmem(q, rest, ", in ", 5);
	if (in) {
		buf_puts(b, " in ");
		buf_add(b, in + 5, (size_t)(s + len - (in + 5)));
	}
}

static void tb_frame(struct lognorm_tb *t, const char *s, size_t len)
{
	int lib = is_lib_path(s, len);

	t->frames++;
	frame_format(&t->last, s, len);
	if (lib) {
		if (!t->lib_frames++) {
			buf_reset(&t->first_lib);
			buf_add(&t->first_lib, t->last.s, t->last.len);
		}
		buf_reset(&t->last_lib);
		buf_add(&t->last_lib, t->last.s, t->last.len);
	} else {
		buf_reset(&t->last_user);
		buf_add(&t->last_user, t->last.s, t->last.len);
	}
}

static void add_frame(struct buf *out, const struct buf *f, int *k)
{
	const char *p = out->s;

	if (!f->len || *k >= LN_MAX_FRAMES)
		return;
	/* no duplicates */
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == f->len && !memcmp(p, f->s, l))
			return;
		p = e ? e + 1 : p + l;
	}
	if (out->len)
		buf_addc(out, '\n');
	buf_add(out, f->s, f->len);
	(*k)++;
}

static void tb_exception(struct lognorm *n, struct lognorm_tb *t, const char *s, size_t len,
			 unsigned flags)
{
	struct buf fr = BUF_INIT;
	int k = 0;

	/* in call order: the user's call, into the library, down to the raise */
	add_frame(&fr, &t->last_user, &k);
	add_frame(&fr, &t->first_lib, &k);
	add_frame(&fr, &t->last_lib, &k);
	add_frame(&fr, &t->last, &k);
	emit(n, s, len, flags | LN_EXCEPTION, 1, buf_cstr(&fr), t->frames > 0 && !t->lib_frames);
	buf_release(&fr);
	t->in_tb = 0;
	n->tb_open--;
}

/* The traceback slot of the writer key, or NULL; with start, one is taken for it. */
static struct lognorm_tb *tb_slot(struct lognorm *n, const char *key, size_t key_len, int start)
{
	struct lognorm_tb *t;

	if (!start && !n->tb_open)
		return NULL;
	for (size_t i = 0; i < LN_TB_SLOTS; i++) {
		t = &n->tb[i];
		if (t->key_len == key_len && !memcmp(t->key, key, key_len) && (t->in_tb || start))
			return t;
	}
	if (!start)
		return NULL;
	/* a free slot, else the oldest taken (round robin) */
	for (size_t i = 0; i < LN_TB_SLOTS; i++)
		if (!n->tb[i].in_tb)
			return &n->tb[i];
	return &n->tb[n->tb_next++ % LN_TB_SLOTS];
}

/* ---- one logical line ---- */

/* pdsh's "host: " where it repeats the line before's, or before another
   prefix, indented text or a traceback: its length, else 0 */
static size_t strip_host(struct lognorm *n, const char *s, size_t len)
{
	size_t h = ln_host_at(s, len), rest;
	unsigned fl = 0;
	int same;

	if (!h) {
		n->host_len = 0;
		return 0;
	}
	same = n->host_len == h && !memcmp(n->host, s, h);
	memcpy(n->host, s, h);
	n->host_len = h;
	if (same)
		return h;
	rest = ln_skip_spaces(s, len, h);
	/* indented text behind it (a program's "name: msg" has one space) */
	if (rest > h || lognorm_strip_prefix(s + rest, len - rest, &fl) ||
	    (len - rest >= 9 && !memcmp(s + rest, "Traceback", 9)))
		return h;
	return 0;
}

static unsigned fnv1a(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 16777619u;
	return h ? h : 1;
}


static void logical_line(struct lognorm *n, const char *s, size_t len)
{
	unsigned flags = 0;
	size_t off;
	long count = 1, ray;
	int indented;
	size_t host, key_len, kl;
	char key[LN_KEY_MAX];
	struct lognorm_tb *t;

	/* quoted by e-mail or markdown: "> text", "> > text", ">" */
	while (len && s[0] == '>' && (len == 1 || s[1] == ' ' || s[1] == '>')) {
		s++;
		len--;
		if (len && s[0] == ' ')
			s++, len--;
	}
	/* a line pasted as markdown inline code, one span a line: "`text`" */
	if (len > 2 && s[0] == '`' && s[1] != '`' && s[len - 1] == '`' && !memchr(s + 1, '`', len - 2)) {
		s++;
		len -= 2;
	}
	indented = len && (s[0] == ' ' || s[0] == '\t');
	/* kmsg dictionary lines belong to the record above */
	if (n->kmsg && len > 1 && s[0] == ' ' && s[1] != ' ' && memchr(s, '=', len))
		return;
	host = strip_host(n, s, len);
	/* "worker-1:", stripped or not: the first line of a host's run keeps it */
	key_len = n->host_len && n->host_len - 1 < LN_KEY_MAX ? n->host_len - 1 : 0;
	memcpy(key, s, key_len);
	off = host + lognorm_strip_prefix_key(s + host, len - host, &flags, key + key_len,
					      LN_KEY_MAX - key_len, &kl);
	key_len += kl;
	/* logjoin joins a wrapped line only to its own writer's, and a
	   logger's record only to a line of the same record */
	n->cur_writer = key_len ? fnv1a(key, key_len) : 0;
	n->cur_record = flags & LN_RECORD ? fnv1a(s, off) : 0;
	n->kmsg = (flags & LN_KMSG) != 0;
	if (off) {
		long c = ln_prefix_clock(s, off);

		if (c >= 0) {
			if (n->clock_last >= 0 && c != n->clock_last)
				*(c > n->clock_last ? &n->clock_up : &n->clock_down) += 1;
			n->clock_last = c;
		}
	}
	while (len > off && isspace((unsigned char)s[len - 1]))
		len--;
	if (len <= off)
		return;
	if (off && off > ln_skip_spaces(s, len, 0)) {
		/* behind a prefix, the text's own indentation: more than the one
		   space a prefix ends with (a tab counts as two) */
		size_t w = 0;

		for (size_t b = off; b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'); b--)
			w += s[b - 1] == '\t' ? 2 : 1;
		indented = w >= 2;
	}
	s += off;
	len -= off;
	if ((ray = ln_ray_repeated(s, &len)) > 0) {
		count = ray;
		while (len && s[len - 1] == ' ')
			len--;
		if (!len)
			return;
	}
	/* rsyslog: "message repeated 9999 times: [ msg]" */
	if (len > 28 && !memcmp(s, "message repeated ", 17)) {
		size_t j = ln_skip_digits(s, len, 17);

		if (j > 17 && j + 11 < len && !memcmp(s + j, " times: [ ", 10) && s[len - 1] == ']') {
			count = 0;
			for (size_t k = 17; k < j && count < 1000000000L; k++)
				count = count * 10 + (s[k] - '0');
			s += j + 10;
			len -= j + 11;
			if (!len)
				return;
		}
	}
	/* tracebacks */
	if (len == 34 && !memcmp(s, "Traceback (most recent call last):", 34)) {
		t = tb_slot(n, key, key_len, 1);
		n->tb_open += !t->in_tb;
		memcpy(t->key, key, key_len);
		t->key_len = key_len;
		t->in_tb = 1;
		t->frames = t->lib_frames = 0;
		buf_reset(&t->first_lib);
		buf_reset(&t->last_lib);
		buf_reset(&t->last_user);
		buf_reset(&t->last);
		return;
	}
	if ((t = tb_slot(n, key, key_len, 0))) {
		if (len > 6 && !memcmp(s, "File \"", 6)) {
			tb_frame(t, s, len);
			return;
		}
		if (indented || (len > 0 && (s[0] == '^' || s[0] == '~')) ||
		    (len > 23 && !memcmp(s, "[Previous line repeated", 23)))
			return;
		if (len > 3 && !memcmp(s, "...", 3))
			return;
		tb_exception(n, t, s, len, flags);
		return;
	}
	/* an NVRM message continued on the next line */
	if (n->have_pend && n->pend_nvrm_open && len > 6 && !memcmp(s, "NVRM: ", 6) &&
	    (indented || islower((unsigned char)s[6]) || s[6] == '(') && n->pend.len < 4096) {
		buf_addc(&n->pend, ' ');
		buf_add(&n->pend, s + 6, len - 6);
		n->pl.last = n->lineno;
		n->pend_nvrm_open = nvrm_open(n->pend.s, n->pend.len);
		return;
	}
	emit(n, s, len, flags, count, NULL, 0);
}

/*
 * rsyslog escapes control characters (codes 0-31 and 127) as '#' and three
 * octal digits: "#011" is a tab.  Only those are escapes: "#1237" in a
 * kernel's version ("4.4.0-19041-Microsoft #1237-Microsoft") or "#123" in an
 * issue number is text (round 9, prec: every '#' and three octal digits
 * became a space, and WSL 1's kernel string was lost).  The code, or -1.
 */
static int octal_escape(const char *p, const char *end)
{
	int c;

	if (end - p < 4 || p[0] != '#')
		return -1;
	for (int k = 1; k <= 3; k++)
		if (p[k] < '0' || p[k] > '7')
			return -1;
	c = (p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0');
	return c < 32 || c == 127 ? c : -1;
}

static int has_octal_escape(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '#', (size_t)(end - p)))) {
		if (octal_escape(p, end) >= 0)
			return 1;
		p++;
	}
	return 0;
}

static void decoded_line(struct lognorm *n, const char *s, size_t len)
{
	size_t start;

	if (!has_octal_escape(s, len)) {
		logical_line(n, s, len);
		return;
	}
	buf_reset(&n->dec);
	for (size_t i = 0; i < len; i++) {
		int c = s[i] == '#' ? octal_escape(s + i, s + len) : -1;

		if (c >= 0) {
			buf_addc(&n->dec, c == '\t' || c == '\n' ? (char)c : ' ');
			i += 3;
		} else {
			buf_addc(&n->dec, s[i]);
		}
	}
	start = 0;
	for (size_t i = 0; i <= n->dec.len; i++) {
		if (i == n->dec.len || n->dec.s[i] == '\n') {
			/* logical_line never touches n->dec */
			logical_line(n, n->dec.s + start, i - start);
			start = i + 1;
		}
	}
}

/* ESC [ ... final (0x40-0x7e); ESC ] ... BEL or ESC \; ESC X. */
static void strip_ansi(struct buf *out, const char *s, size_t len)
{
	buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\033') {
			const char *esc = memchr(s + i, '\033', len - i);
			size_t run = esc ? (size_t)(esc - (s + i)) : len - i;

			buf_add(out, s + i, run);
			i += run - 1;
			continue;
		}
		if (i + 1 >= len)
			break;
		if (s[i + 1] == '[') {
			i += 2;
			while (i < len && !(s[i] >= 0x40 && s[i] <= 0x7e))
				i++;
		} else if (s[i + 1] == ']') {
			i += 2;
			while (i < len && s[i] != '\007' && !(s[i] == '\033' && i + 1 < len && s[i + 1] == '\\'))
				i++;
			if (i < len && s[i] == '\033')
				i++;
		} else {
			i++;
		}
	}
}

/* One line of text, cleaned of what a terminal, a web page or a locale put in it. */
static void clean_piece(struct lognorm *n, const char *s, size_t len)
{
	if (memchr(s, '\033', len)) {
		strip_ansi(&n->scratch, s, len);
		s = n->scratch.s;
		len = n->scratch.len;
	}
	if (memchr(s, '[', len) && logunwrap_residue_found(s, len)) {
		logunwrap_residue(&n->resid, s, len);
		s = n->resid.s;
		len = n->resid.len;
	}
	if (memchr(s, '&', len) && logescape_html_found(s, len)) {
		logescape_html(&n->html, s, len);
		s = n->html.s;
		len = n->html.len;
	}
	if ((memchr(s, 0xc2, len) || memchr(s, 0xe2, len)) && logescape_typo_found(s, len)) {
		logescape_typo(&n->typo, s, len);
		s = n->typo.s;
		len = n->typo.len;
	}
	if (logunwrap_locale_found(s, len)) {
		logunwrap_locale(&n->loc, s, len);
		s = n->loc.s;
		len = n->loc.len;
	}
	decoded_line(n, s, len);
}

static void raw_piece(struct lognorm *n, const char *s, size_t len)
{
	const char *cr;
	size_t off, mlen;

	while (len && s[len - 1] == '\r')
		len--;
	/* progress bars: keep what the terminal showed last */
	while ((cr = memrchr(s, '\r', len))) {
		size_t after = len - (size_t)(cr + 1 - s);

		if (after) {
			s = cr + 1;
			len = after;
			break;
		}
		len = (size_t)(cr - s);
	}
	/* a JSON record: its message alone (logunwrap.h) */
	if (len && s[len - 1] == '}' && logunwrap_json_message(s, len, &off, &mlen)) {
		s += off;
		len = mlen;
	}
	/* a quoted string: its escapes decoded, its escaped newlines as
	 * spaces (logunwrap.h says why the line is not split there) */
	if (memchr(s, '\\', len) && logunwrap_escaped_found(s, len)) {
		logunwrap_escaped(&n->esc, s, len);
		s = n->esc.s;
		len = n->esc.len;
	}
	clean_piece(n, s, len);
}

/*
 * A NUL separates records (a binary log, a ring buffer dumped whole, a
 * C string written with its terminator); it never ends the line: the text
 * after it is read as a line of its own, with the same line number.
 */
static void raw_line(struct lognorm *n, const char *s, size_t len)
{
	const char *nul;

	n->lineno++;
	while ((nul = memchr(s, '\0', len))) {
		size_t before = (size_t)(nul - s);

		if (before)
			raw_piece(n, s, before);
		s = nul + 1;
		len -= before + 1;
	}
	raw_piece(n, s, len);
}

/* Lines that end with CR alone: each CR ends one. */
static void cr_lines(struct lognorm *n, const char *s, size_t len, int last)
{
	const char *p = s, *end = s + len, *cr;

	while (p < end && (cr = memchr(p, '\r', (size_t)(end - p)))) {
		raw_line(n, p, (size_t)(cr - p));
		p = cr + 1;
	}
	if (p < end) {
		if (last)
			raw_line(n, p, (size_t)(end - p));
		else
			buf_add(&n->partial, p, (size_t)(end - p));
	}
}

/*
 * Before the first LF: a CR not followed by LF in the first MiB means a log
 * whose lines end with CR alone (old Mac files, some serial consoles); a
 * progress bar redraws with CR too, but its log has LFs around it.
 */
static int cr_only_start(struct lognorm *n, const char *data, size_t len)
{
	const char *cr;

	if (n->nl_seen)
		return 0;
	if (memchr(data, '\n', len)) {
		n->nl_seen = 1;
		return 0;
	}
	cr = memchr(data, '\r', len);
	return cr && cr + 1 < data + len && n->partial.len + len > 0 && cr[1] != '\n' &&
	       n->partial.len < (1u << 20);
}

void lognorm_feed(struct lognorm *n, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;

	if (!n->cr_only && cr_only_start(n, data, len))
		n->cr_only = 1;
	if (n->cr_only) {
		buf_add(&n->partial, data, len);
		struct buf whole = n->partial;

		buf_init(&n->partial);
		cr_lines(n, whole.s, whole.len, 0);
		buf_release(&whole);
		return;
	}

	if (n->partial.len) {
		nl = memchr(p, '\n', len);
		if (!nl) {
			buf_add(&n->partial, p, len);
			return;
		}
		buf_add(&n->partial, p, (size_t)(nl - p));
		raw_line(n, n->partial.s, n->partial.len);
		buf_reset(&n->partial);
		p = nl + 1;
	}
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		raw_line(n, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (p < end)
		buf_add(&n->partial, p, (size_t)(end - p));
}

void lognorm_finish(struct lognorm *n)
{
	if (n->partial.len) {
		struct buf whole = n->partial;

		buf_init(&n->partial);
		/* a CR-only log shorter than a chunk ends here, unsplit */
		if (n->cr_only || (!n->nl_seen && memchr(whole.s, '\r', whole.len)))
			cr_lines(n, whole.s, whole.len, 1);
		else
			raw_line(n, whole.s, whole.len);
		buf_release(&whole);
	}
	for (size_t t = 0; t < LN_TB_SLOTS; t++)
		n->tb[t].in_tb = 0;
	n->tb_open = 0;
	flush_pending(n);
}
