/*
 * lognorm.h - turn a pasted log into the lines a person would read.
 *
 * explain matches rules against lines, but logs arrive decorated: colour
 * codes, progress bars redrawn with '\r', syslog/journal/dmesg/kmsg prefixes
 * and timestamps, rsyslog's #012 escapes, Python tracebacks, kernel messages
 * continued over several lines, and the same error printed ten thousand
 * times by eight ranks.  The normaliser removes the decoration and emits one
 * struct lognorm_line per logical line, with the original line numbers:
 *
 *  - '\r': only the text after the last carriage return is kept (what the
 *    terminal showed); ANSI CSI/OSC sequences are dropped; CRLF ends a line
 *    like LF, and a log that uses CR alone (no LF before its first CR, or in
 *    its first MiB) is split at each CR;
 *  - messages inside escaped strings (JSON, Go %q, Python repr: "\n",
 *    "\\n", "\"") are decoded, escaped newlines as spaces; colour
 *    codes that lost their ESC ("[0m") are dropped; localised glibc and
 *    Windows words become English (logunwrap.h);
 *  - pasted forms: e-mail/markdown quoting ("> ", "> > ") and a line's
 *    markdown inline code ("`text`", one span a line) are removed, and a
 *    line that carries HTML escapes (&lt; &gt; &amp; &quot; &#39; &#x27;
 *    &#NN;) is unescaped (logs copied from a web page or an issue's HTML);
 *    no-break spaces, curly quotes and zero-width spaces become ASCII;
 *  - #NNN (three octal digits, rsyslog's control-character escape) is
 *    decoded, and #012 splits a record into several lines;
 *  - prefixes are removed repeatedly: kmsg "6,123,456,-;", dmesg
 *    "[ 12.345678]" and "[Mon Nov 30 08:12:01 2026]", syslog/journal
 *    "Nov 30 08:12:01 host tag[pid]:", ISO timestamps (with an optional
 *    "host tag:" behind them), "[rank3]:"/"[default0]:" of torchrun, and
 *    the log collectors' (CRI "stderr F", MPI "[1,0]<stderr>:", compose
 *    "svc-1  | ", Ray/vLLM "(Worker pid=1)", srun -l "0: ", "[INFO]",
 *    "[launch.py:12:main]", "##[error]", "ERROR:root:", journald -o
 *    verbose "MESSAGE=", docker json-file '{"log":"', Python logging's
 *    "name - LEVEL - ", loguru's "LEVEL | mod:fn:1 - ", vLLM's "LEVEL
 *    MM-DD hh:mm:ss [file.py:1]", Lightning "[rank: 1]", kubectl --prefix
 *    "[pod/p/c]", Open MPI "[host:pid]", elastic "[role0]:", and pdsh's
 *    "host1: " when the line before had it too); text indented behind a
 *    prefix (two spaces or more) is indented (a traceback's source line);
 *    Ray's " [repeated 3x across cluster]" becomes the count 3;
 *    rsyslog's "message repeated N times: [ msg]" becomes msg with count N;
 *  - kmsg dictionary lines (" KEY=value") are dropped; an "NVRM:" line that
 *    continues the previous one (indented without a timestamp, or starting
 *    in lower case or '(' after an unfinished NVRM line) is joined to it;
 *  - a Python traceback is reduced to its exception line, which carries the
 *    frames that matter (the last one, the first and last in a GPU library,
 *    the last in the user's code); frame and source lines are not emitted;
 *    tracebacks of several writers interleaved line by line (ranks behind
 *    "[rank0]:", "[rank1]:") are followed each under its own prefix;
 *  - consecutive equal lines are folded into one with a count.
 *
 * Input may come in pieces of any size (lognorm_feed keeps a partial last
 * line); the emitted line's text is valid only during the callback.
 *
 *	struct lognorm n;
 *	lognorm_init(&n, on_line, arg);
 *	lognorm_feed(&n, data, len);	// as often as needed
 *	lognorm_finish(&n);		// flushes the last line
 *	lognorm_release(&n);
 */
#ifndef GD_LOGNORM_H
#define GD_LOGNORM_H

#include <stddef.h>

#include "core/buf.h"

#define LN_EXCEPTION 1u		/* the exception line of a Python traceback */
#define LN_KERNEL 2u		/* came with a kernel-log prefix (dmesg, kmsg, "kernel:") */
#define LN_RECORD 4u		/* began a logger's record ("ERROR ...", "[INFO]", glog, c10): a new message */

struct lognorm_line {
	const char *text;	/* normalised, NUL-terminated, no trailing whitespace */
	size_t len;
	long first, last;	/* 1-based input line numbers of the first and last occurrence */
	long count;		/* occurrences folded into this line (>= 1) */
	unsigned flags;		/* LN_* */
	unsigned writer;	/* a hash of the writer's prefix ("[rank1]:", "worker-1:"), 0 for none */
	unsigned record;	/* LN_RECORD: a hash of the whole prefix (vLLM repeats one record's on each of its lines) */
	/* LN_EXCEPTION only: */
	const char *frames;	/* "file:line in func" lines joined by '\n', or "" */
	int user_frames_only;	/* every frame of the traceback is outside site-packages */
};

typedef void (*lognorm_fn)(const struct lognorm_line *l, void *arg);

#define LN_MAX_FRAMES 4
#define LN_TB_SLOTS 8		/* writers whose tracebacks are followed at once */
#define LN_KEY_MAX 48

struct lognorm {
	lognorm_fn fn;
	void *arg;
	long lineno;		/* input lines seen */
	struct buf partial;	/* a line not yet ended by '\n' */
	struct buf scratch;	/* the line being cleaned */
	struct buf dec;		/* #NNN decoding */
	struct buf html;	/* HTML unescaping */
	struct buf typo;	/* typography to ASCII (logescape.h) */
	struct buf esc;		/* an escaped string's decoding (logunwrap.h) */
	struct buf resid;	/* colour codes without their ESC dropped */
	struct buf loc;		/* localised words in English */
	int nl_seen;		/* a '\n' was seen: CR alone is a progress-bar redraw */
	int cr_only;		/* lines end with CR alone */
	/* the folding candidate */
	struct buf pend;
	struct buf pend_frames;
	struct lognorm_line pl;
	int have_pend;
	int pend_nvrm_open;	/* pend is an NVRM line that does not end a sentence */
	/* traceback state, one per writer: ranks interleave their tracebacks
	 * line by line ("[rank0]:", "[rank1]:"), each under its own prefix */
	struct lognorm_tb {
		char key[LN_KEY_MAX];	/* the line's prefix without its times */
		size_t key_len;
		int in_tb;
		int lib_frames, frames;
		struct buf first_lib, last_lib, last_user, last;
	} tb[LN_TB_SLOTS];
	unsigned tb_next;	/* the slot a new writer takes when all are in use */
	int tb_open;		/* slots in a traceback now (none: no lookup a line) */
	unsigned cur_writer;	/* the line being cleaned: its writer's hash */
	unsigned cur_record;	/* and its record prefix's */
	int kmsg;		/* the previous record had a kmsg prefix */
	/* pdsh's "host: " (DeepSpeed's multi-node launcher): the previous line's
	 * candidate, so the prefix goes only when it repeats (lognorm.c host_at) */
	char host[64];
	size_t host_len;
	/* the order of the prefixes' times of day: a log pasted newest first
	 * (journalctl -r, a web console) has more steps back than forward */
	long clock_last, clock_up, clock_down;
};

/* 1 when the log's timestamps run backwards (newest first) more often than forwards. */
int lognorm_newest_first(const struct lognorm *n);

void lognorm_init(struct lognorm *n, lognorm_fn fn, void *arg);
void lognorm_feed(struct lognorm *n, const char *data, size_t len);
void lognorm_finish(struct lognorm *n);
void lognorm_release(struct lognorm *n);

/* One line without its prefixes (for tests): returns the offset of the text. */
size_t lognorm_strip_prefix(const char *s, size_t len, unsigned *flags);
/*
 * The same, and the line's writer into key (at most cap bytes, *key_len
 * set): its prefixes without those that carry a time of day, so the lines of
 * one rank share a key whatever their timestamps.
 */
size_t lognorm_strip_prefix_key(const char *s, size_t len, unsigned *flags, char *key, size_t cap,
				size_t *key_len);

#endif
