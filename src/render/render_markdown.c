/*
 * render_markdown.c - the report as a GitHub-ready block, for bug reports:
 * a summary line, a table of versions (OS and distribution, glibc, GPU,
 * kernel, driver, CUDA, the libraries the loader picks, each Python
 * environment, each framework install and the cuDNN it loads), and the findings
 * inside a collapsible <details> element.  It is what users paste instead
 * of `python -m torch.utils.collect_env`.
 *
 * Values from the machine are hostile: a path pasted into an issue must not
 * become a live @mention, an issue or commit reference (#12, GH-12,
 * owner/repo#12, a hex SHA), an autolink (URL, www., e-mail), an emoji or
 * math, or HTML.  GitHub finds those in the rendered text, after markdown's
 * backslash escapes are gone, but never inside a code span.  So a value
 * goes into a code span whose fence is longer than any backtick run in it
 * (put_code), and a sentence of ours with values inside (a title, a
 * summary) is written word by word: a word of letters, digits and plain
 * punctuation as text, any other word as a code span (put_text).  In both,
 * '|' is escaped (a table cell), line breaks become spaces (a table row is
 * one line), control bytes and bytes that are not UTF-8 a visible \xNN, and
 * bidirectional and zero-width format characters a visible \uNNNN.  That is
 * markdown's own escaping, kept apart from core/termesc.
 */
#include "render/render.h"

#include "core/ctx.h"
#include "core/termesc.h"
#include "inventory/inventory.h"
#include "rules/fw_verdict.h"
#include "report/report.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A format character that reorders or hides text (Trojan Source, CVE-2021-42574). */
static int invisible_format(unsigned cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       (cp >= 0x200b && cp <= 0x200f) || cp == 0x061c || cp == 0x2060 || cp == 0xfeff;
}

/* One character of a value at s (n bytes left): written, its length returned.
 * Line breaks and tabs become a space; control bytes, bytes that are not
 * UTF-8 and invisible format characters are written visibly. */
static size_t put_char(struct buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	if (p[0] == '\n' || p[0] == '\r' || p[0] == '\t') {
		buf_addc(out, ' ');
		return 1;
	}
	if (p[0] < 0x20 || p[0] == 0x7f) {
		buf_printf(out, "\\x%02x", p[0]);
		return 1;
	}
	if (p[0] < 0x80) {
		buf_addc(out, (char)p[0]);
		return 1;
	}
	len = utf8_seq_len(p, n);
	if (!len) {
		buf_printf(out, "\\x%02x", p[0]);
		return 1;
	}
	{
		unsigned cp = len == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu)
			    : len == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu)
				       : (unsigned)-1;

		if (invisible_format(cp))
			buf_printf(out, "\\u%04x", cp);
		else
			buf_add(out, s, len);
	}
	return len;
}

/* n bytes at s as an inline code span that no content can break. */
static void put_code_n(struct buf *out, const char *s, size_t n)
{
	size_t run = 0, longest = 0;

	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		buf_addc(out, '`');
	buf_addc(out, ' ');
	for (size_t i = 0; i < n;) {
		if (s[i] == '|') {
			buf_puts(out, "\\|");
			i++;
		} else {
			i += put_char(out, s + i, n - i);
		}
	}
	buf_addc(out, ' ');
	for (size_t i = 0; i <= longest; i++)
		buf_addc(out, '`');
}

/* `value` as an inline code span; "-" for none. */
static void put_code(struct buf *out, const char *s)
{
	if (!s || !*s) {
		buf_puts(out, "-");
		return;
	}
	put_code_n(out, s, strlen(s));
}

static int ascii_prefix_ci(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !strncasecmp(s, prefix, k);
}

/*
 * Can this word stand as markdown text, inert on GitHub?  Letters, digits
 * and . , ; ( ) ' " = + - / ? and one ':' at its end only (":x:" is an
 * emoji); not "www." (an autolink), not "GH-<digit>" (an issue), not seven
 * or more hex digits alone (a commit).  '@', '#', '<', '&', '$', '~', '*',
 * '_', '[', '`', '\\', '|', '!' and anything not ASCII make it a code span.
 */
static int plain_word(const char *s, size_t n)
{
	size_t hex = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ':' && i + 1 == n)
			continue;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(".,;()'\"=+-/?", c)))
			return 0;
		hex += (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
	}
	if (ascii_prefix_ci(s, n, "www."))
		return 0;
	if (ascii_prefix_ci(s, n, "gh-") && n > 3 && s[3] >= '0' && s[3] <= '9')
		return 0;
	if (hex == n && n >= 7)
		return 0;
	return 1;
}

/* A sentence of ours with machine values inside: plain words as text, others as code spans. */
static void put_text(struct buf *out, const char *s)
{
	const char *p = s ? s : "";

	while (*p) {
		size_t n = 0;

		if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
			buf_addc(out, ' ');
			p++;
			continue;
		}
		while (p[n] && p[n] != ' ' && p[n] != '\n' && p[n] != '\t' && p[n] != '\r')
			n++;
		if (plain_word(p, n))
			buf_add(out, p, n);
		else
			put_code_n(out, p, n);
		p += n;
	}
}

static void row(struct buf *out, const char *what, const char *value, const char *note)
{
	buf_printf(out, "| %s | ", what);
	put_code(out, value);
	buf_puts(out, " | ");
	if (note && note[0] == '/')
		put_code(out, note);
	else
		put_text(out, note ? note : "");
	buf_puts(out, " |\n");
}

/* The cuDNN a framework loads (the loader's winner for its cuDNN soname),
 * or that it finds none; nothing when it asks for no cuDNN (a CPU build). */
static void fw_cudnn_row(const struct fw_entry *f, struct buf *out)
{
	for (size_t k = 0; k < f->nlibs; k++) {
		const struct fw_lib *l = &f->libs[k];
		char what[96];

		if (l->role != FW_ROLE_CUDNN)
			continue;
		snprintf(what, sizeof(what), "cuDNN loaded by %s", f->name);
		if (l->path)
			row(out, what, l->version ? l->version : "version unknown", l->path);
		else
			row(out, what, "not found", l->soname);
		return;
	}
}

static void versions(const struct inventory *inv, struct buf *out)
{
	char tmp[256];

	buf_puts(out, "| Component | Version | Where / how |\n|---|---|---|\n");
	/* what issue templates ask first: the OS and its C library, of the
	 * inspected tree (--root), never of the machine gpudoctor runs on */
	row(out, "OS", inv->platform.os_pretty ? inv->platform.os_pretty : "unknown",
	    inv->platform.os_release_file ? inv->platform.os_release_file : "no os-release found");
	if (inv->platform.os_id) {
		snprintf(tmp, sizeof(tmp), "%s%s%s", inv->platform.os_id, inv->platform.os_version_id ? " " : "",
			 inv->platform.os_version_id ? inv->platform.os_version_id : "");
		row(out, "Distribution", tmp, "os-release ID and VERSION_ID");
	}
	if (inv->platform.glibc_version) {
		char how[300];

		snprintf(how, sizeof(how), "%s of %s", inv->platform.glibc_how, inv->platform.glibc_from);
		row(out, "glibc", inv->platform.glibc_version, how);
	} else {
		row(out, "glibc", "unknown", "no libc.so.6 with a readable version in the inspected tree");
	}
	for (size_t i = 0; i < inv->cuda.ndevices; i++) {
		const struct cuda_device *d = &inv->cuda.devices[i];

		snprintf(tmp, sizeof(tmp), "GPU %d", d->index);
		if (d->cc_major >= 0) {
			char cc[32];

			snprintf(cc, sizeof(cc), "compute capability %d.%d", d->cc_major, d->cc_minor);
			row(out, tmp, d->name, cc);
		} else {
			row(out, tmp, d->name, NULL);
		}
	}
	if (!inv->cuda.ndevices)
		for (size_t i = 0; i < inv->hw.ngpus; i++) {
			snprintf(tmp, sizeof(tmp), "10de:%04lx", (unsigned long)inv->hw.gpus[i].device);
			row(out, "GPU (PCI)", tmp, inv->hw.gpus[i].bdf);
		}
	row(out, "Linux kernel", inv->kernel.release, NULL);
	row(out, "nvidia kernel module", inv->driver.kernel_module_version, inv->driver.kernel_module_source);
	row(out, "NVML driver", inv->driver.nvml_live.driver_version, inv->driver.nvml_live.lib);
	if (inv->cuda.driver_version > 0) {
		snprintf(tmp, sizeof(tmp), "%d.%d", inv->cuda.driver_version / 1000,
			 (inv->cuda.driver_version % 1000) / 10);
		row(out, "CUDA driver API", tmp, inv->cuda.lib);
	} else {
		row(out, "libcuda.so.1", inv->driver.cuda.version, inv->driver.cuda.path);
	}
	for (size_t i = 0; i < inv->libs.nresolved; i++) {
		const struct lib_resolved *r = &inv->libs.resolved[i];
		const struct lib_copy *c = r->path ? libraries_copy_by_realpath(&inv->libs, r->realpath) : NULL;

		/* sonames of every major are asked for; only those found are facts */
		if (!r->path)
			continue;
		row(out, r->soname, c && c->version ? c->version : NULL, r->path);
	}
	for (size_t i = 0; i < inv->pyenvs.n; i++) {
		const struct pyenv *e = &inv->pyenvs.envs[i];
		char what[64];

		snprintf(what, sizeof(what), "Python (%s%s)", e->kind ? e->kind : "?", e->active ? ", active" : "");
		row(out, what, e->python_version ? e->python_version : "unknown", e->prefix);
	}
	for (size_t i = 0; i < inv->fw.n; i++) {
		const struct fw_entry *f = &inv->fw.fws[i];
		char note[512];

		/* the rules' verdict (rules/fw_verdict.h) */
		const char *pred = fw_prediction_id(fw_predict(f, NULL));

		snprintf(note, sizeof(note), "%s%s%s, Python %s, prediction: %s", f->env_prefix ? f->env_prefix : "?",
			 f->cuda_build ? ", built for CUDA " : "", f->cuda_build ? f->cuda_build : "",
			 f->python_version ? f->python_version : "?", pred ? pred : "?");
		row(out, f->name, f->version, note);
		fw_cudnn_row(f, out);
	}
}

static const char *mark(enum status s)
{
	switch (s) {
	case STATUS_OK: return "ok";
	case STATUS_WARN: return "WARN";
	case STATUS_FAIL: return "FAIL";
	case STATUS_SKIPPED: return "skip";
	case STATUS_BLOCKED: return "blocked";
	}
	return "?";
}

void render_markdown(const struct gd_ctx *ctx, const struct report *rep, const struct inventory *inv,
		     struct buf *out)
{
	size_t nfail = 0, nwarn = 0, nok = 0;
	const struct finding *first = NULL;

	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		nfail += f->status == STATUS_FAIL;
		nwarn += f->status == STATUS_WARN;
		nok += f->status == STATUS_OK;
	}
	for (int l = 0; l < LAYER_COUNT && !first; l++)
		for (size_t i = 0; i < rep->n && !first; i++)
			if (rep->findings[i].layer == (enum layer_id)l && rep->findings[i].status == STATUS_FAIL)
				first = &rep->findings[i];
	buf_puts(out, "**gpudoctor check:** ");
	if (first) {
		buf_printf(out, "FAIL at the %s layer: ", layer_name(first->layer));
		put_text(out, first->title);
		buf_printf(out, " (`%s`)", cause_id_str(first->cause) ? cause_id_str(first->cause) : "-");
	} else {
		buf_puts(out, "ok");
	}
	buf_printf(out, "; %zu failed, %zu warnings, %zu ok (gpudoctor %s, knowledge as of %s%s)\n\n", nfail, nwarn,
		   nok, GD_VERSION, rep->kb_as_of[0] ? rep->kb_as_of : "unknown",
		   ctx->no_load ? ", --no-load" : "");
	versions(inv, out);
	buf_printf(out, "\n<details><summary>Findings: %zu failed, %zu warnings, %zu ok</summary>\n\n", nfail,
		   nwarn, nok);
	buf_puts(out, "| Layer | Status | Summary |\n|---|---|---|\n");
	for (int l = 0; l < LAYER_COUNT; l++) {
		buf_printf(out, "| %s | %s | ", layer_name((enum layer_id)l), mark(rep->layers[l].status));
		put_text(out, rep->layers[l].summary);
		buf_puts(out, " |\n");
	}
	buf_addc(out, '\n');
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		if (f->status == STATUS_OK && !ctx->verbose)
			continue;
		buf_printf(out, "- **%s** %s: ", mark(f->status), layer_name(f->layer));
		put_text(out, f->title);
		if (f->cause != CAUSE_NONE)
			buf_printf(out, " (`%s`)", cause_id_str(f->cause));
		buf_addc(out, '\n');
		for (size_t k = 0; k < f->nevidence; k++) {
			buf_puts(out, "  - evidence: ");
			put_code(out, f->evidence[k]);
			buf_addc(out, '\n');
		}
		if (f->fix) {
			buf_puts(out, "  - fix: ");
			put_code(out, f->fix);
			buf_addc(out, '\n');
		}
	}
	if (!ctx->verbose && nok)
		buf_printf(out, "\n%zu passing checks not listed (gpudoctor -v check --format markdown lists them).\n",
			   nok);
	buf_puts(out, "\n</details>\n");
}
