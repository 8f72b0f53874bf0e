/* test_explain.c - explain's literal matcher, rule-table validation, the normaliser and its table reader. */
#include "tap.h"

#include "explain/errcodes.h"
#include "explain/linememo.h"
#include "explain/logdecode.h"
#include "explain/logmatch.h"
#include "explain/lognorm.h"
#include "explain/logrules.h"
#include "explain/logtable.h"
#include "explain/rulecheck.h"

#include <stdlib.h>

#define HEAD "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"

static int one_rule(const char *pattern, struct logrules *r)
{
	char text[1024];

	snprintf(text, sizeof(text), HEAD "r\t1\tscope\tlit\t%s\t-\t-\t-\t-\t-\t-\n", pattern);
	return logrules_parse("test", text, strlen(text), r, NULL);
}

/* Match line against pattern; the captures joined by '|' into out. */
static int lit(const char *pattern, const char *line, char *out, size_t size)
{
	struct logrules r;
	size_t off[LR_MAX_CAPS], len[LR_MAX_CAPS];
	int ok;

	out[0] = 0;
	if (one_rule(pattern, &r) < 0)
		return -1;
	ok = logrules_lit_match(&r.v[0], line, strlen(line), off, len);
	for (size_t k = 0; ok && k < r.v[0].ncaps; k++)
		snprintf(out + strlen(out), size - strlen(out), "%s%.*s", k ? "|" : "", (int)len[k], line + off[k]);
	logrules_release(&r);
	return ok;
}

/* One capture decoded as logdecode() would for a rule: the text it gives.
 * A macro, so that a failure names this file's line. */
#define CHECK_DECODED(cap, value, want) do { \
	char *dec_ = logdecode(NULL, (cap), (value)); \
	CHECK_STR(dec_, (want)); \
	free(dec_); \
} while (0)

static void test_literal_captures(void)
{
	char c[256];

	CHECK_INT(lit("Could not load dynamic library '{soname}'", "W x] Could not load dynamic library 'libcudnn.so.8'; dlerror", c, sizeof(c)), 1);
	CHECK_STR(c, "libcudnn.so.8");
	/* a leading capture takes the word before the literal */
	CHECK_INT(lit("{soname}: cannot open shared object file", "ImportError: libcuda.so.1: cannot open shared object file: x", c, sizeof(c)), 1);
	CHECK_STR(c, "libcuda.so.1");
	/* a trailing capture takes one word, without trailing punctuation */
	CHECK_INT(lit("found version {v}", "too old (found version 11040).", c, sizeof(c)), 1);
	CHECK_STR(c, "11040");
	CHECK_INT(lit("found version {v:int})", "too old (found version 11040).", c, sizeof(c)), 1);
	CHECK_STR(c, "11040");
	/* typed captures refuse other text; the next occurrence is tried */
	CHECK_INT(lit("GPU{n:int} is", "GPUx is; GPU12 is lost", c, sizeof(c)), 1);
	CHECK_STR(c, "12");
	CHECK_INT(lit("GPU{n:int} is", "GPUx is", c, sizeof(c)), 0);
	/* two captures in the middle, shortest first */
	CHECK_INT(lit("version {a} but {b} was", "version 8.0.5 but 8.1.0 was compiled", c, sizeof(c)), 1);
	CHECK_STR(c, "8.0.5|8.1.0");
	/* rest of the line */
	CHECK_INT(lit("reason: {r:rest}", "init failed; reason: no device here  ", c, sizeof(c)), 1);
	CHECK_STR(c, "no device here");
	/* literal braces */
	CHECK_INT(lit("a {b c}", "x a {b c} y", c, sizeof(c)), 1);
	CHECK_INT(lit("Driver/library version mismatch", "Driver/library version", c, sizeof(c)), 0);
}

static void test_bad_tables(void)
{
	struct logrules r;
	struct err e = ERR_INIT;
	static const char *const bad[] = {
		HEAD "r\t1\tcause\tlit\tx\t-\t-\tno-such-cause\t-\t-\t-\n",
		HEAD "r\t1\tscope\tre\t(\t(\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tscope\tre\tabc\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tscope\tlit\t{a}{b}\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tscope\tlit\t{a}\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\tx\tscope\tlit\tabc\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tscope\tlit\tabc\t-\t-\t-\t-\t-\t-\nr\t2\tscope\tlit\tdef\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tweird\tlit\tabc\t-\t-\t-\t-\t-\t-\n",
		HEAD "r\t1\tscope\tre\t(a)\ta\tx,y\t-\t-\t-\t-\n",
		/* conditions: empty, an empty alternative, on an unknown cause */
		HEAD "r\t1\tcause\tlit\tx\t-\t-\tnouveau-loaded?\t-\t-\t-\n",
		HEAD "r\t1\tcause\tlit\tx\t-\t-\tnouveau-loaded?a||b\t-\t-\t-\n",
		HEAD "r\t1\tcause\tlit\tx\t-\t-\tnouveau-loaded?!\t-\t-\t-\n",
		HEAD "r\t1\tcause\tlit\tx\t-\t-\tno-such?a\t-\t-\t-\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(logrules_parse("test", bad[i], strlen(bad[i]), &r, &e) < 0);
		CHECK(e.msg[0] != 0);
	}
	/* the embedded table loads */
	CHECK(logrules_load(NULL, &r, &e) == 0);
	CHECK(r.n > 100);
	logrules_release(&r);
}

struct collect {
	char text[8][256];
	long first[8], count[8];
	int n;
};

static void on_line(const struct lognorm_line *l, void *arg)
{
	struct collect *c = arg;

	if (c->n < 8) {
		snprintf(c->text[c->n], sizeof(c->text[0]), "%s", l->text);
		c->first[c->n] = l->first;
		c->count[c->n] = l->count;
		c->n++;
	}
}

static void norm(const char *in, struct collect *c)
{
	struct lognorm n;

	memset(c, 0, sizeof(*c));
	lognorm_init(&n, on_line, c);
	/* fed one byte at a time: pieces must not matter */
	for (const char *p = in; *p; p++)
		lognorm_feed(&n, p, 1);
	lognorm_finish(&n);
	lognorm_release(&n);
}

static void test_normaliser(void)
{
	struct collect c;

	norm("Nov 30 08:12:01 gpu01 kernel: [ 12.5] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.");
	norm("2026-11-30T08:12:01.123456+00:00 host python3[1]: E1130 08:12:01.123 42 cuda_dnn.cc:8310] Loaded runtime CuDNN library: 8.0.5\n", &c);
	CHECK_STR(c.text[0], "Loaded runtime CuDNN library: 8.0.5");
	norm("a\nNov 30 08:12:01 h x: message repeated 9999 times: [ boom]\nb\n", &c);
	CHECK_INT(c.n, 3);
	CHECK_STR(c.text[1], "boom");
	CHECK_INT(c.count[1], 9999);
	/* syslog over the network: RFC 5424's header (nil and structured fields), RFC 3164's priority */
	norm("<4>1 2026-12-01T12:00:01.123Z gpu01 kernel - - - NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n", &c);
	CHECK_STR(c.text[0], "NVRM: Xid (PCI:0000:3b:00): 79, pid=1");
	norm("<14>1 2026-12-01T12:00:01Z gpu01 python 42 ID47 [exampleSDID@32473 iut=\"3\"] RuntimeError: x\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: x");
	norm("<4>Dec  1 12:00:01 gpu01 kernel: NVRM: loading\n", &c);
	CHECK_STR(c.text[0], "NVRM: loading");
	norm("<4> is less than <5>\n", &c);	/* near miss: not a header */
	CHECK_STR(c.text[0], "<4> is less than <5>");
	/* typography from a web page: curly quote, no-break space, zero-width space; entities too */
	norm("couldn\xe2\x80\x99t communicate with the\xc2\xa0NVIDIA\xe2\x80\x8b driver\n", &c);
	CHECK_STR(c.text[0], "couldn't communicate with the NVIDIA driver");
	norm("couldn&rsquo;t see &ldquo;x&rdquo;&nbsp;and&#8217;s\n", &c);
	CHECK_STR(c.text[0], "couldn't see \"x\" and's");
	norm("caf\xc3\xa9 \xe2\x80\x94 \xc2\xa9\n", &c);	/* near miss: other UTF-8 stays as it is */
	CHECK_STR(c.text[0], "caf\xc3\xa9 \xe2\x80\x94 \xc2\xa9");
	norm("x\r\n\033[1;31merror\033[0m\r\n", &c);
	CHECK_STR(c.text[1], "error");
	norm("[ 1.0] NVRM: The NVIDIA GPU 0000:b3:00.0\n        NVRM: (PCI ID: 10de:26b5) installed in this system has\n        NVRM: fallen off the bus.\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen off the bus.");
	CHECK_INT(c.first[0], 1);
}

/* Mangled forms (logunwrap.h, collectors in lognorm_prefix.c): each turned back, and a near miss left alone. */
static void test_unwrap(void)
{
	struct collect c;

	/* a Go error quoted twice, as docker prints nvidia-container-cli's stderr */
	norm("stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda\\u003e=12.4\\\\n\\\"\": unknown\n", &c);
	CHECK_STR(c.text[0], "stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4 \"\": unknown");
	/* a Python repr; JSON's ESC */
	norm("RuntimeError('CUDA error: device-side assert triggered\\nCUDA kernel errors')\n", &c);
	CHECK_STR(c.text[0], "RuntimeError('CUDA error: device-side assert triggered CUDA kernel errors')");
	norm("{\"log\":\"\\u001b[31mRuntimeError: x\\u001b[0m\\n\",\"stream\":\"stderr\"}\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: x");
	/* one JSON record a line: the message alone, not the fields behind it */
	norm("{\"log\":\"max locked memory       (kbytes, -l) 64\\n\",\"stream\":\"stdout\",\"time\":\"2024-05-01T10:00:00Z\"}\n", &c);
	CHECK_STR(c.text[0], "max locked memory       (kbytes, -l) 64");
	norm("{\"__CURSOR\":\"s=1\",\"MESSAGE\" : \"NVRM: Xid (PCI:0000:3b:00): 79, pid=1\",\"PRIORITY\":\"4\"}\n", &c);
	CHECK_STR(c.text[0], "NVRM: Xid (PCI:0000:3b:00): 79, pid=1");
	norm("{\"level\":\"error\",\"msg\":\"x\"}\n", &c);	/* near miss: another record stays whole */
	CHECK_STR(c.text[0], "{\"level\":\"error\",\"msg\":\"x\"}");
	/* near miss: a Windows path's "\nvcuda.dll" is a file, single or doubled */
	norm("Error loading \"C:\\Windows\\System32\\nvcuda.dll\"\n", &c);
	CHECK_STR(c.text[0], "Error loading \"C:\\Windows\\System32\\nvcuda.dll\"");
	norm("at C:\\Users\\nvidia\\x.py\n", &c);
	CHECK_STR(c.text[0], "at C:\\Users\\nvidia\\x.py");
	/* colour codes that lost their ESC; "[mem ...]" is text */
	norm("[1;31mRuntimeError[0m: CUDA error[m[K\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: CUDA error");
	norm("^[[31mERROR^[[0m x\n", &c);
	CHECK_STR(c.text[0], "ERROR x");
	norm("BAR 1 [mem size 0x400000000 64bit pref]: can't assign; no space [Kernel]\n", &c);
	CHECK_STR(c.text[0], "BAR 1 [mem size 0x400000000 64bit pref]: can't assign; no space [Kernel]");
	/* localised glibc and Windows words */
	norm("libcuda.so.1: Kann die Shared-Object-Datei nicht \xc3\xb6" "ffnen: Datei oder Verzeichnis nicht gefunden\n", &c);
	CHECK_STR(c.text[0], "libcuda.so.1: cannot open shared object file: No such file or directory");
	norm("libcudart.so.12\xef\xbc\x9a\xe6\x97\xa0\xe6\xb3\x95\xe6\x89\x93\xe5\xbc\x80\xe5\x85\xb1\xe4\xba\xab\xe5\xaf\xb9\xe8\xb1\xa1\xe6\x96\x87\xe4\xbb\xb6\n", &c);
	CHECK_STR(c.text[0], "libcudart.so.12: cannot open shared object file");
	norm("/dev/nvidia0: Keine Berechtigung\n", &c);
	CHECK_STR(c.text[0], "/dev/nvidia0: Permission denied");
	norm("das ist nicht gut\n", &c);	/* near miss */
	CHECK_STR(c.text[0], "das ist nicht gut");
	/* collectors' prefixes */
	norm("2024-05-01T10:00:00.123456789Z stderr F RuntimeError: CUDA error: out of memory\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: CUDA error: out of memory");
	norm("[1,3]<stderr>:NCCL WARN Cuda failure 'out of memory'\n", &c);
	CHECK_STR(c.text[0], "NCCL WARN Cuda failure 'out of memory'");
	norm("ollama-1  | time=2024 level=INFO msg=x\n", &c);
	CHECK_STR(c.text[0], "time=2024 level=INFO msg=x");
	norm("| 0  NVIDIA A100 | 00000000:3B:00.0 Off |\n", &c);	/* near miss: a table row */
	CHECK_STR(c.text[0], "| 0  NVIDIA A100 | 00000000:3B:00.0 Off |");
	norm("(RayWorkerWrapper pid=123, ip=10.0.0.2) RuntimeError: x\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: x");
	norm("0: RuntimeError: y\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: y");
	norm("[2024-05-01 10:00:00,123] [INFO] [launch.py:146:main] WORLD INFO DICT\n", &c);
	CHECK_STR(c.text[0], "WORLD INFO DICT");
	norm("2024-05-01T10:00:00.1234567Z ##[error]Process completed with exit code 1.\n", &c);
	CHECK_STR(c.text[0], "Process completed with exit code 1.");
	norm("WARNING:tensorflow:No GPU\n", &c);
	CHECK_STR(c.text[0], "No GPU");
	norm("    MESSAGE=NVRM: Xid (PCI:0000:3b:00): 79\n", &c);
	CHECK_STR(c.text[0], "NVRM: Xid (PCI:0000:3b:00): 79");
	/* a traceback behind rank prefixes is still a traceback */
	norm("[1,0]<stderr>:Traceback (most recent call last):\n[1,0]<stderr>:  File \"/x.py\", line 1, in <module>\n[1,0]<stderr>:RuntimeError: z\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "RuntimeError: z");
}

/* A cause's condition: its literals are found anywhere in the log, ignoring case. */
static void test_conditions(void)
{
	static const char table[] = HEAD
		"r\t1\tcause\tlit\tNVIDIA-SMI has failed\t-\t-\t"
		"nvidia-module-not-loaded?!/usr/lib/wsl|WSL2;nouveau-loaded?nouveau;"
		"wsl-linux-driver-in-wsl?+/usr/lib/wsl|wsl2\t-\t-\t-\n";
	struct logrules r;
	struct logmatch m;
	struct lognorm n;
	const struct logrule *rule;

	CHECK(logrules_parse("test", table, strlen(table), &r, NULL) == 0);
	rule = &r.v[0];
	CHECK_INT((int)rule->ncauses, 3);
	CHECK_INT((int)r.nev, 3);	/* "/usr/lib/wsl" and "wsl2" once each, lower case */
	CHECK(rule->cond[0].kind == LR_COND_UNLESS && rule->cond[1].kind == LR_COND_GUESS &&
	      rule->cond[2].kind == LR_COND_IF);
	CHECK(rule->cond[0].ev[0] == rule->cond[2].ev[0]);
	logmatch_init(&m, &r);
	lognorm_init(&n, logmatch_line_cb, &m);
	{
		static const char log[] = "Linux h 5.15.90.1-microsoft-standard-WSL2\nNVIDIA-SMI has failed\n";

		lognorm_feed(&n, log, strlen(log));
	}
	lognorm_finish(&n);
	CHECK(logmatch_cond_seen(&m, &rule->cond[0]));	/* "WSL2" matched "wsl2" */
	CHECK(!logmatch_cond_seen(&m, &rule->cond[1]));
	logmatch_clear(&m);
	CHECK(!logmatch_cond_seen(&m, &rule->cond[0]));	/* a new log starts with no evidence */
	lognorm_release(&n);
	logmatch_release(&m);
	logrules_release(&r);
}

/* Named evidence sets: "#@evset" lines, "@name" in a condition stands for their literals. */
#define ROW(causes) "r\t1\tcause\tlit\tNVIDIA-SMI has failed\t-\t-\t" causes "\t-\t-\t-\n"
static int parse_err(const char *text, struct err *e)
{
	struct logrules r;

	if (logrules_parse("test", text, strlen(text), &r, e) == 0) {
		logrules_release(&r);
		return 0;
	}
	return -1;
}

static void test_evsets(void)
{
	static const char good[] =
		"#@evset\twsl\t/usr/lib/wsl|WSL2\twhy\n"
		"#@evset\twsl1\tmicrosoft@microsoft.com\twhy\n" HEAD
		ROW("nvidia-module-not-loaded?!@wsl|@wsl1;wsl-linux-driver-in-wsl?+@wsl|dxgkrnl");
	struct logrules r;
	struct err e;
	const struct logrule *rule;

	CHECK(logrules_parse("test", good, strlen(good), &r, &e) == 0);
	rule = &r.v[0];
	CHECK_INT((int)r.nsets, 2);
	CHECK_INT((int)rule->cond[0].nev, 3);	/* @wsl's two and @wsl1's one */
	CHECK_INT((int)rule->cond[1].nev, 3);
	CHECK_INT((int)r.nev, 4);		/* each literal once, lower case */
	CHECK(!strcmp(r.ev[rule->cond[0].ev[1]], "wsl2"));
	CHECK(!strcmp(r.ev[rule->cond[0].ev[2]], "microsoft@microsoft.com"));
	CHECK(rule->cond[0].ev[0] == rule->cond[1].ev[0]);
	CHECK(rule->cond[0].kind == LR_COND_UNLESS && rule->cond[1].kind == LR_COND_IF);
	logrules_release(&r);

	/* an unknown set: an error with the row's line, the rule and the name */
	CHECK(parse_err("#@evset\twsl\twsl2\twhy\n" HEAD ROW("nouveau-loaded?@nope"), &e) < 0);
	CHECK(strstr(e.msg, ":3:") && strstr(e.msg, "rule r") && strstr(e.msg, "@nope"));
	/* a set may not refer to another set, nor carry a rule's syntax */
	CHECK(parse_err("#@evset\ta\twsl2\tw\n#@evset\tb\tx|@a\tw\n" HEAD ROW("nouveau-loaded?@b"), &e) < 0);
	CHECK(strstr(e.msg, ":2:") && strstr(e.msg, "@b"));
	CHECK(parse_err("#@evset\ta\t@a\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	CHECK(parse_err("#@evset\ta\t+x|y\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	CHECK(parse_err("#@evset\ta\tx;gpu-lost\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	CHECK(parse_err("#@evset\ta\tx?y\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	/* malformed definitions */
	CHECK(parse_err("#@evset\ta\tx|y\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);	/* no why */
	CHECK(parse_err("#@evset\tA b\tx\tw\n" HEAD ROW("nouveau-loaded?x"), &e) < 0);
	CHECK(parse_err("#@evset\t\tx\tw\n" HEAD ROW("nouveau-loaded?x"), &e) < 0);
	CHECK(parse_err("#@evset\ta\tx||y\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	CHECK(parse_err("#@evset\ta\tx\tw\n#@evset\ta\ty\tw\n" HEAD ROW("nouveau-loaded?@a"), &e) < 0);
	CHECK(strstr(e.msg, "twice") != NULL);
	/* "@" inside a literal is text; a plain comment is no set */
	CHECK(parse_err("#@evsets are described above\n" HEAD ROW("nouveau-loaded?a@b"), &e) == 0);
	/* the limits hold with sets: at most LR_MAX_EVLITS literals in one condition */
	{
		char text[4096];
		size_t o = 0;

		o += (size_t)snprintf(text + o, sizeof(text) - o, "#@evset\tbig\t");
		for (int i = 0; i < LR_MAX_EVLITS; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%sl%d", i ? "|" : "", i);
		o += (size_t)snprintf(text + o, sizeof(text) - o, "\tw\n" HEAD);
		snprintf(text + o, sizeof(text) - o, ROW("nouveau-loaded?@big"));
		CHECK(parse_err(text, &e) == 0);	/* exactly the limit */
		snprintf(text + o, sizeof(text) - o, ROW("nouveau-loaded?@big|x"));	/* one more */
		CHECK(parse_err(text, &e) < 0);
		CHECK(strstr(e.msg, "nouveau-loaded") != NULL);
		snprintf(text + o, sizeof(text) - o, ROW("nouveau-loaded?x|@big"));
		CHECK(parse_err(text, &e) < 0);
		CHECK(strstr(e.msg, "@big") != NULL);
	}
	/* hostile: a set of too many literals, too many sets, a huge name: refused, not crashed */
	{
		size_t cap = 1u << 20, o = 0;
		char *text = malloc(cap);

		CHECK(text != NULL);
		if (!text)
			return;
		o += (size_t)snprintf(text, cap, "#@evset\thuge\t");
		for (int i = 0; i < 20000; i++)
			o += (size_t)snprintf(text + o, cap - o, "%sx%d", i ? "|" : "", i);
		snprintf(text + o, cap - o, "\tw\n" HEAD ROW("nouveau-loaded?@huge"));
		CHECK(parse_err(text, &e) < 0);
		o = 0;
		for (int i = 0; i < LR_MAX_EVSETS + 1; i++)
			o += (size_t)snprintf(text + o, cap - o, "#@evset\ts%d\tx\tw\n", i);
		snprintf(text + o, cap - o, HEAD ROW("nouveau-loaded?@s0"));
		CHECK(parse_err(text, &e) < 0);
		o = (size_t)snprintf(text, cap, "#@evset\t");
		memset(text + o, 'a', 100000);
		o += 100000;
		snprintf(text + o, cap - o, "\tx\tw\n" HEAD ROW("nouveau-loaded?x"));
		CHECK(parse_err(text, &e) < 0);
		o = (size_t)snprintf(text, cap, "#@evset\ta\t");
		memset(text + o, 'x', 500000);
		o += 500000;
		snprintf(text + o, cap - o, "\tw\n" HEAD ROW("nouveau-loaded?@a|@a|@a"));
		CHECK(parse_err(text, &e) == 0);	/* a long literal is only text */
		free(text);
	}
}

static void test_decode(void)
{
	char bdf[32], *d;
	int a, b;

	CHECK(logdecode_pci("PCI:0000:3b:00", bdf, sizeof(bdf)) == 0);
	CHECK_STR(bdf, "0000:3b:00.0");
	CHECK(logdecode_pci("3b:00.1", bdf, sizeof(bdf)) == 0);
	CHECK_STR(bdf, "0000:3b:00.1");
	CHECK(logdecode_pci("zz", bdf, sizeof(bdf)) < 0);
	CHECK(logdecode_cc("sm_120", &a, &b) == 0 && a == 12 && b == 0);
	CHECK(logdecode_cc("8.6", &a, &b) == 0 && a == 8 && b == 6);
	CHECK(logdecode_cc("compute_90a", &a, &b) == 0 && a == 9 && b == 0);
	CHECK(logdecode_cc("sm_", &a, &b) < 0);
	CHECK(logdecode_cc("0x601", &a, &b) == 0 && a == 6 && b == 1);
	CHECK(logdecode_cc("0xc00", &a, &b) == 0 && a == 12 && b == 0);
	CHECK(logdecode_cc("0x6a1", &a, &b) < 0);
	CHECK(logdecode_cc("0x60", &a, &b) < 0);
	CHECK(logdecode_cc("0x601z", &a, &b) < 0);
	CHECK_DECODED("driver_int", "11040", "CUDA 11.4 is the newest the driver supports");
	CHECK_DECODED("cuda_error", "209", "cudaError_t 209 = cudaErrorNoKernelImageForDevice");
	CHECK_DECODED("found_cudnn_int", "90100", "cuDNN 9.1.0");
	/* a cudaError_t name: today's number (8 is ProfilerAlreadyStopped since CUDA 10.1), never an NCCL name */
	CHECK_DECODED("cuda_name", "cudaErrorProfilerAlreadyStopped", "cudaErrorProfilerAlreadyStopped = cudaError_t 8");
	CHECK_DECODED("cuda_name", "cudaErrorInsufficientDriver", "cudaErrorInsufficientDriver = cudaError_t 35");
	CHECK(logdecode(NULL, "cuda_name", "ncclUnhandledCudaError") == NULL);
	CHECK(logdecode(NULL, "driver_int", "abc") == NULL);
	/* what paths give away (issue 20) */
	d = logdecode(NULL, "path", "/mnt/c/Users/me/AppData/Local/Programs/Python/python.exe");
	CHECK(d && strstr(d, "WSL") && strstr(d, "C:"));
	free(d);
	d = logdecode(NULL, "path", "/usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so");
	CHECK(d && strstr(d, "stub"));
	free(d);
	CHECK(logdecode(NULL, "path", "/mnt/data/x") == NULL);	/* near miss: a Linux mount */
	/* the error-code table: by name (pynvml's spelling too) and the OOM arithmetic */
	CHECK_DECODED("err_name", "NVMLError_GpuIsLost", "nvmlReturn_t 15 = NVMLError_GpuIsLost");
	CHECK(errcode_by_name("CUDA_ERROR_STUB_LIBRARY", 23) &&
	      errcode_by_name("CUDA_ERROR_STUB_LIBRARY", 23)->causes[0] == CAUSE_LIBCUDA_STUB_ON_PATH);
	CHECK(errcode_by_number(ERR_CUDART, 35) &&
	      !strcmp(errcode_by_number(ERR_CUDART, 35)->name, "cudaErrorInsufficientDriver"));
	CHECK(errcode_by_name("cudaSuccess", 11) && errcode_by_name("cudaSuccess", 11)->causes[0] == CAUSE_NONE);
	/* numbers by the family their capture names (issue 20: numbers in context) */
	CHECK_INT(errcode_family_of_capture("nccl_code"), ERR_NCCL);
	CHECK_INT(errcode_family_of_capture("nvml_code"), ERR_NVML);
	CHECK_INT(errcode_family_of_capture("cu_result"), ERR_CU);
	CHECK_INT(errcode_family_of_capture("bytes"), -1);
	CHECK_DECODED("nccl_code", "2", "ncclResult_t 2 = ncclSystemError");
	CHECK_DECODED("nvml_code", "9", "nvmlReturn_t 9 = NVML_ERROR_DRIVER_NOT_LOADED");
	CHECK_DECODED("cudnn_code", "1001", "cudnnStatus_t 1001 = CUDNN_STATUS_NOT_INITIALIZED");
	CHECK(logdecode(NULL, "nccl_code", "77") == NULL);	/* no such code */
	/* Windows DLL names: the version is in the name, minor included for CUDA <= 11 */
	CHECK_DECODED("soname", "cudart64_110.dll", "the CUDA runtime, CUDA 11.0's (Windows DLL)");
	CHECK_DECODED("soname", "cudart64_12.dll", "the CUDA runtime, major version 12 (Windows DLL)");
	CHECK_DECODED("soname", "cudnn64_8.dll", "cuDNN, major version 8 (Windows DLL)");
	CHECK_DECODED("soname", "cudart64_92.dll", "the CUDA runtime, CUDA 9.2's (Windows DLL)");
	CHECK(logdecode(NULL, "soname", "zlib64_1.dll") == NULL);	/* not a CUDA library */
	CHECK(logdecode(NULL, "soname", "cudart64_110.dll.bak") == NULL);
	CHECK(logdecode(NULL, "soname", "cudart64_.dll") == NULL);
	/* wrappers' names without the API's prefix (go-nvml, CUDA.jl), by the capture's family */
	CHECK_DECODED("nvml_short", "ERROR_LIBRARY_NOT_FOUND", "nvmlReturn_t 12 = NVML_ERROR_LIBRARY_NOT_FOUND");
	CHECK_DECODED("cu_short", "ERROR_NO_DEVICE", "CUresult 100 = CUDA_ERROR_NO_DEVICE");
	/* the same short name is another family's code under another capture */
	CHECK(errcode_by_short_name(ERR_CU, "ERROR_NOT_SUPPORTED", 19) &&
	      errcode_by_short_name(ERR_CU, "ERROR_NOT_SUPPORTED", 19)->family == ERR_CU);
	CHECK(errcode_by_short_name(ERR_NVML, "ERROR_NOT_SUPPORTED", 19) &&
	      errcode_by_short_name(ERR_NVML, "ERROR_NOT_SUPPORTED", 19)->code == 3);
	/* already prefixed: kept, but only in its own family */
	CHECK(errcode_by_short_name(ERR_CU, "CUDA_ERROR_UNKNOWN", 18) &&
	      errcode_by_short_name(ERR_CU, "CUDA_ERROR_UNKNOWN", 18)->code == 999);
	CHECK(errcode_by_short_name(ERR_NVML, "CUDA_ERROR_UNKNOWN", 18) == NULL);
	CHECK(errcode_by_short_name(ERR_CU, "ERROR_NO_SUCH_THING", 19) == NULL);
	CHECK(errcode_by_short_name(ERR_CUDART, "ERROR_NO_DEVICE", 15) == NULL);	/* no short form */
	CHECK_INT(errcode_family_of_short_capture("nvml_short"), ERR_NVML);
	CHECK_INT(errcode_family_of_short_capture("err_name"), -1);
	/* cudaError_t renumbered in CUDA 10.1: both tables, the era's choice, the line's text */
	CHECK(errcode_by_number(ERR_CUDART_OLD, 8) &&
	      !strcmp(errcode_by_number(ERR_CUDART_OLD, 8)->name, "cudaErrorInvalidDeviceFunction"));
	CHECK(errcode_by_number(ERR_CUDART, 98) &&
	      !strcmp(errcode_by_number(ERR_CUDART, 98)->name, "cudaErrorInvalidDeviceFunction"));
	CHECK(errcode_by_number(ERR_CUDART_OLD, 38) &&
	      errcode_by_number(ERR_CUDART_OLD, 38)->causes[0] == CAUSE_GPU_HIDDEN_BY_ENV);
	CHECK(errcode_by_number(ERR_CUDART_OLD, 48) &&
	      errcode_by_number(ERR_CUDART_OLD, 48)->causes[0] == CAUSE_GPU_ARCH_UNSUPPORTED);
	CHECK(errcode_by_number(ERR_CUDART_OLD, 30) &&
	      !strcmp(errcode_by_number(ERR_CUDART_OLD, 30)->name, "cudaErrorUnknown"));
	CHECK(errcode_by_number(ERR_CUDART_OLD, 100) == NULL);	/* 100 is 10.1's cudaErrorNoDevice */
	/* a name finds its current number first */
	CHECK(errcode_by_name("cudaErrorNoDevice", 17) && errcode_by_name("cudaErrorNoDevice", 17)->code == 100);
	CHECK(errcode_cudart(8, CUDART_ERA_OLD, NULL) &&
	      !strcmp(errcode_cudart(8, CUDART_ERA_OLD, NULL)->name, "cudaErrorInvalidDeviceFunction"));
	CHECK(errcode_cudart(8, CUDART_ERA_NEW, NULL) &&
	      !strcmp(errcode_cudart(8, CUDART_ERA_NEW, NULL)->name, "cudaErrorProfilerAlreadyStopped"));
	CHECK(errcode_cudart(8, CUDART_ERA_UNKNOWN, "cudaError_t 8") == NULL);	/* never a wrong one */
	CHECK(errcode_cudart(8, CUDART_ERA_UNKNOWN, "(8 vs. 0)  Invalid Device Function") &&
	      errcode_cudart(8, CUDART_ERA_UNKNOWN, "(8 vs. 0)  Invalid Device Function")->family == ERR_CUDART_OLD);
	CHECK(errcode_cudart(4, CUDART_ERA_UNKNOWN, "error 4: driver shutting down") &&
	      errcode_cudart(4, CUDART_ERA_UNKNOWN, "error 4: driver shutting down")->family == ERR_CUDART);
	CHECK(errcode_cudart(4, CUDART_ERA_UNKNOWN, "error 4: unspecified launch failure") &&
	      errcode_cudart(4, CUDART_ERA_UNKNOWN, "error 4: unspecified launch failure")->family == ERR_CUDART_OLD);
	/* the same name in both: either era, no doubt */
	CHECK(errcode_cudart(35, CUDART_ERA_UNKNOWN, NULL) &&
	      !strcmp(errcode_cudart(35, CUDART_ERA_UNKNOWN, NULL)->name, "cudaErrorInsufficientDriver"));
	CHECK(errcode_cudart(2, CUDART_ERA_OLD, NULL) && errcode_cudart(2, CUDART_ERA_OLD, NULL)->causes[0] == CAUSE_GPU_MEMORY_HELD);
	/* only one numbering has it */
	CHECK(errcode_cudart(38, CUDART_ERA_UNKNOWN, NULL) && errcode_cudart(38, CUDART_ERA_UNKNOWN, NULL)->family == ERR_CUDART_OLD);
	CHECK(errcode_cudart(209, CUDART_ERA_UNKNOWN, NULL) && errcode_cudart(209, CUDART_ERA_UNKNOWN, NULL)->family == ERR_CUDART);
	/* an era without the number: the other's only on its text */
	CHECK(errcode_cudart(209, CUDART_ERA_OLD, "Check failed: error == cudaSuccess (209 vs. 0)") == NULL);
	CHECK(errcode_cudart(38, CUDART_ERA_NEW, "cuda runtime error (38) : no CUDA-capable device is detected") &&
	      errcode_cudart(38, CUDART_ERA_NEW, "cuda runtime error (38) : no CUDA-capable device is detected")->family == ERR_CUDART_OLD);
	CHECK(errcode_cudart(-1, CUDART_ERA_UNKNOWN, NULL) == NULL);
	CHECK(errcode_cudart_other(8, errcode_by_number(ERR_CUDART, 8)) &&
	      errcode_cudart_other(8, errcode_by_number(ERR_CUDART, 8))->family == ERR_CUDART_OLD);
	CHECK(errcode_cudart_other(35, errcode_by_number(ERR_CUDART, 35)) == NULL);
	CHECK_DECODED("cuda_error", "35", "cudaError_t 35 = cudaErrorInsufficientDriver");
	d = logdecode(NULL, "cuda_error", "8");
	CHECK(d && strstr(d, "cudaErrorProfilerAlreadyStopped since CUDA 10.1") &&
	      strstr(d, "cudaErrorInvalidDeviceFunction in CUDA 10.0 and older"));
	free(d);
	d = logdecode_cudart("48", CUDART_ERA_UNKNOWN, NULL);
	CHECK(d && !strcmp(d, "cudaError_t 48 = cudaErrorNoKernelImageForDevice (the numbering of CUDA 10.0 and older)"));
	free(d);
	d = logdecode_cudart("8", CUDART_ERA_NEW, NULL);
	CHECK(d && !strcmp(d, "cudaError_t 8 = cudaErrorProfilerAlreadyStopped (the numbering of CUDA 10.1 and newer)"));
	free(d);
	CHECK(logdecode_cudart("x", CUDART_ERA_OLD, NULL) == NULL);
	CHECK(logdecode(NULL, "nvml_short", "ERROR_NO_DEVICE") == NULL);	/* CUDA's name, NVML's context */
	d = logdecode_oom("10.76 GiB", "996.23 MiB", "8.81 MiB");
	CHECK(d && strstr(d, "outside this process"));
	free(d);
	d = logdecode_oom("4.00 GiB", "3.08 GiB", "0 bytes");
	CHECK(d && strstr(d, "do not fit"));
	free(d);
	CHECK(logdecode_oom("4.00 GiB", "9 GiB", "1 GiB") == NULL);	/* more than the total */
	CHECK(logdecode_oom("x", "1 GiB", "1 GiB") == NULL);
	/* the verdict that decides the cause: held elsewhere, the job's own, or unknown */
	CHECK(logdecode_oom_verdict("10.76 GiB", "996.23 MiB", "8.81 MiB") == OOM_HELD);
	CHECK(logdecode_oom_verdict("7.93 GiB", "6.19 GiB", "340.00 MiB") == OOM_OWN);
	CHECK(logdecode_oom_verdict("4.00 GiB", "9 GiB", "1 GiB") == OOM_UNKNOWN);
	CHECK(logdecode_oom_verdict("x", "1 GiB", "1 GiB") == OOM_UNKNOWN);
	/* a number too large for a double is no size: no verdict, no "inf GiB" */
	{
		char huge[400];

		memset(huge, '9', 320);
		strcpy(huge + 320, " GiB");
		CHECK(logdecode_size(huge) < 0);
		CHECK(logdecode_oom_verdict(huge, "1 GiB", "1 GiB") == OOM_UNKNOWN);
		CHECK(logdecode_oom(huge, "1 GiB", "1 GiB") == NULL);
		CHECK(logdecode_oom("40 GiB", huge, "1 GiB") == NULL);
	}
}

/* logtable: the derived line a p2pBandwidthLatencyTest log ends with, or none */
struct derived {
	int lines, derived;
	char text[512];
};

static void derived_cb(const struct lognorm_line *l, void *arg)
{
	struct derived *d = arg;

	d->lines++;
	if (!strncmp(l->text, "[gpudoctor] ", 12)) {
		d->derived++;
		snprintf(d->text, sizeof(d->text), "%s", l->text);
	}
}

static void table(const char *log, struct derived *d)
{
	struct logtable t;
	struct lognorm n;

	memset(d, 0, sizeof(*d));
	logtable_init(&t, derived_cb, d);
	lognorm_init(&n, logtable_line_cb, &t);
	lognorm_feed(&n, log, strlen(log));
	lognorm_finish(&n);
	logtable_finish(&t);
	logtable_release(&t);
	lognorm_release(&n);
}

#define DIS "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n"
#define EN "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"

static void test_table(void)
{
	struct derived d;
	char big[8192];

	/* peer writes at a fifth of the staged copy: the worst pair is named, every line still passes */
	table(DIS "     0 673.20  13.15\n     1  12.99 673.20\n" EN "     0 673.49   2.60\n     1   6.50 672.33\n", &d);
	CHECK_INT(d.derived, 1);
	CHECK_INT(d.lines, 9);
	CHECK(strstr(d.text, "GPU0 -> GPU1 with P2P enabled: 2.60 GB/s, with P2P disabled: 13.15 GB/s") != NULL);
	/* near misses: P2P faster (NVLink); only one matrix; the enabled matrix without a disabled one */
	table(DIS "     0 673.20  13.15\n     1  12.99 673.20\n" EN "     0 673.49  24.60\n     1  24.50 672.33\n", &d);
	CHECK_INT(d.derived, 0);
	table(DIS "     0 673.20  13.15\n     1  12.99 673.20\nBidirectional P2P=Disabled\n", &d);
	CHECK_INT(d.derived, 0);
	table(EN "     0 673.49   2.60\n     1   2.12 672.33\n", &d);
	CHECK_INT(d.derived, 0);
	/* a line between the matrices ends the table: no pair from two tables */
	table(DIS "     0 673.20  13.15\nsomething else\n" EN "     0 673.49   2.60\n", &d);
	CHECK_INT(d.derived, 0);
	/* hostile rows: a GPU index out of range, cells that are not numbers, a row far too wide */
	table(DIS "    99 1.0 13.15\n     0 nan 13.15\n     0 1e308 13.15\n" EN "    99 1.0 0.01\n", &d);
	CHECK_INT(d.derived, 0);
	snprintf(big, sizeof(big), "%s     0 1.0", DIS);
	for (size_t i = strlen(big); i + 8 < sizeof(big) - 64; i += 6)
		memcpy(big + i, " 13.15", 7);
	strcat(big, "\n");
	table(big, &d);
	CHECK_INT(d.derived, 0);
	/* nccl-tests: a table the log ends in is a run that stopped; a summary or a failure closes it */
	table("#  (B)    (elements)   (us)\n       8     2  float  sum  -1  8.49\n    2048   512  float  sum  -1  8.38\n", &d);
	CHECK_INT(d.derived, 1);
	CHECK(strstr(d.text, "after 2 rows (last size 2048 bytes)") != NULL);
	table("#  (B)    (elements)   (us)\n       8     2  float  sum  -1  8.49\n# Out of bounds values : 0 OK\n", &d);
	CHECK_INT(d.derived, 0);
	table("#  (B)    (elements)   (us)\nhost: Test NCCL failure common.cu:958 'internal error'\n", &d);
	CHECK_INT(d.derived, 0);
	table("       8     2  float  sum  -1  8.49\n", &d);	/* rows without the header: no table */
	CHECK_INT(d.derived, 0);
	table("#  (B)    (elements)   (us)\n 99999999999999999999999999 2 float\n", &d);	/* a size that overflows stays bounded */
	CHECK_INT(d.derived, 1);
	/* nvidia-smi -q Temperature: at the max operating temperature (within 1 C) or the slowdown temperature */
	table("    Temperature\n        GPU Current Temp : 56 C\n        GPU Slowdown Temp : 97 C\n"
	      "        GPU Max Operating Temp : 57 C\n", &d);
	CHECK_INT(d.derived, 1);
	CHECK(strstr(d.text, "GPU temperature 56 C is at its max operating temperature 57 C") != NULL);
	table("    Temperature\n        GPU Current Temp : 92 C\n        GPU Slowdown Temp : 91 C\n"
	      "        GPU Max Operating Temp : 94 C\n", &d);
	CHECK_INT(d.derived, 1);
	CHECK(strstr(d.text, "at its slowdown temperature 91 C") != NULL);
	/* near misses: a cool GPU; N/A limits; a hostile number; the next GPU's limit against this GPU's temperature */
	table("    Temperature\n        GPU Current Temp : 57 C\n        GPU Slowdown Temp : 97 C\n"
	      "        GPU Max Operating Temp : 94 C\n", &d);
	CHECK_INT(d.derived, 0);
	table("    Temperature\n        GPU Current Temp : 57 C\n        GPU Slowdown Temp : N/A\n"
	      "        GPU Max Operating Temp : N/A\n", &d);
	CHECK_INT(d.derived, 0);
	table("        GPU Current Temp : 99999999999999 C\n        GPU Max Operating Temp : 57 C\n", &d);
	CHECK_INT(d.derived, 0);
	table("GPU 00000000:01:00.0\n    Temperature\n        GPU Current Temp : 80 C\n"
	      "GPU 00000000:02:00.0\n    Temperature\n        GPU Max Operating Temp : 70 C\n", &d);
	CHECK_INT(d.derived, 0);
}

/* Every number explain reads from a log is checked (issue 20, hostile numbers). */
static void test_hostile_numbers(void)
{
	struct oom_figures f;
	char bdf[32];
	int a, b;

	CHECK(logdecode_number("11040") == 11040);
	CHECK(logdecode_number("999999999999999999") == 999999999999999999L);
	CHECK(logdecode_number("9999999999999999999") < 0);	/* 19 digits: junk, not an overflow */
	CHECK(logdecode_number("-1") < 0);
	CHECK(logdecode_number("+5") < 0);
	CHECK(logdecode_number(" 5") < 0);
	CHECK(logdecode_number("5x") < 0);
	CHECK(logdecode_number("0x10") < 0);
	CHECK(logdecode_number("") < 0);
	CHECK(logdecode_number(NULL) < 0);
	CHECK(logdecode_size("1e309 GiB") < 0);
	CHECK(logdecode_size("1e3 GiB") < 0);	/* an exponent is no size a log prints */
	CHECK(logdecode_size("0x10 GiB") < 0);
	CHECK(logdecode_size("-1 GiB") < 0);
	CHECK(logdecode_size("inf GiB") < 0);
	CHECK(logdecode_size("nan bytes") < 0);
	CHECK(logdecode_size("9999999999 TiB") < 0);	/* beyond an exabyte */
	CHECK(logdecode_size("1,073,741,824 bytes") == 1073741824.0);
	CHECK(logdecode_size("1,07,3 bytes") < 0);
	CHECK(logdecode_size("1,073, bytes") < 0);
	CHECK(logdecode_size("1,0737 bytes") < 0);
	CHECK(logdecode_size("10.91GiB") > 10.9 * 1073741824.0);
	CHECK(logdecode_size("12.18") < 0);		/* a bare number has no unit */
	CHECK(logdecode_size_in("12.18", 1073741824.0) > 12 * 1073741824.0);
	CHECK(logdecode_size_in("17179869184", 1) == 17179869184.0);
	CHECK(logdecode_size("1.") < 0);
	/* sscanf would have read these; the bounded fields refuse them */
	CHECK(logdecode_cc("99999999999.6", &a, &b) < 0);
	CHECK(logdecode_cc("8.6.1", &a, &b) < 0);
	CHECK(logdecode_cc("-8.6", &a, &b) < 0);
	CHECK(logdecode_pci("PCI:fffffffffffffffff:3b:00", bdf, sizeof(bdf)) < 0);
	CHECK(logdecode_pci("0000:3b:00.0junk", bdf, sizeof(bdf)) < 0);
	CHECK(logdecode_pci("3b:00", bdf, sizeof(bdf)) < 0);
	/* the figures stay numbers: a request larger than the GPU is the job's own */
	logdecode_oom_figures_init(&f);
	f.total = 12.0 * 1073741824.0;
	f.request = 55.57 * 1073741824.0;
	CHECK(logdecode_oom_judge(&f) == OOM_OWN);
	/* a 2 GiB laptop GPU: what the context and display take is no other holder */
	CHECK(logdecode_oom_verdict("2.00 GiB", "1175.00 MiB", "87.44 MiB") == OOM_OWN);
	CHECK(logdecode_oom_verdict("11.17 GiB", "530.00 MiB", "12.50 MiB") == OOM_HELD);
}

static void ignore_line(const struct lognorm_line *l, void *arg)
{
	(void)l;
	(void)arg;
}

static int newest_first(const char *in)
{
	struct lognorm n;
	int r;

	lognorm_init(&n, ignore_line, NULL);
	lognorm_feed(&n, in, strlen(in));
	lognorm_finish(&n);
	r = lognorm_newest_first(&n);
	lognorm_release(&n);
	return r;
}

/* the order of a log's timestamps (round 9, prec): explain.c reads a job's size by it */
static void test_log_order(void)
{
	static const char fwd[] = "E1201 19:12:12.035524 2004 a.cc:1] one\nE1201 19:12:22.1 2004 a.cc:1] two\n"
				  "E1201 19:12:23.1 2004 a.cc:1] three\n";
	static const char rev[] = "Dec 01 19:12:23 node01 kernel: three\nDec 01 19:12:22 node01 kernel: two\n"
				  "Dec 01 19:12:12 node01 kernel: one\n";

	CHECK(!newest_first(fwd));
	CHECK(newest_first(rev));
	CHECK(!newest_first("no times here\nat all 12:00:00 in the text, not a prefix\n09:00:00 x\n"));
	/* midnight: one step back among steps forward */
	CHECK(!newest_first("2024-01-01T23:59:58 a\n2024-01-01T23:59:59 b\n2024-01-02T00:00:01 c\n"
			    "2024-01-02T00:00:02 d\n"));
	/* the rsyslog escape is a control character only: '#123' of a kernel version is text */
	{
		struct collect c;

		norm("Linux 4.4.0-19041-Microsoft #1237-Microsoft\n", &c);
		CHECK(c.n == 1 && strstr(c.text[0], "#1237-Microsoft"));
		norm("a#011b\n", &c);
		CHECK(c.n == 1 && !strstr(c.text[0], "#011"));
	}
}

/* A --kb rule table is outside input: ids printed raw, regexes glibc runs. */
static void test_rulecheck(void)
{
	const char *why = NULL;

	CHECK_INT(rulecheck_row("nvrm-xid-79", "NVRM: Xid \\(PCI:([0-9a-f:.]+)\\): ([0-9]+)", &why), 0);
	CHECK_INT(rulecheck_row("a", "x{0,200} y{0,40}(z{0,4})?[{}\\1]{2}", &why), 0);	/* side by side, in brackets */
	CHECK_INT(rulecheck_row("a", "(ab)*c{1,3}", &why), 0);
	CHECK_INT(rulecheck_row("a", "a{", &why), 0);			/* a literal brace: regcomp decides */
	CHECK_INT(rulecheck_row("id-\x1b[31m", NULL, &why), -1);
	CHECK(strstr(why, "rule id") != NULL);
	CHECK_INT(rulecheck_row("Upper", NULL, &why), -1);
	CHECK_INT(rulecheck_row("", NULL, &why), -1);
	CHECK_INT(rulecheck_row("a", "handle(a*)*\\1(a*)*\\2x", &why), -1);
	CHECK(strstr(why, "back-reference") != NULL);
	CHECK_INT(rulecheck_row("a", "a{1,255}{1,255}{1,255}", &why), -1);
	CHECK(strstr(why, "on a bounded repetition") != NULL);
	CHECK_INT(rulecheck_row("a", "(x(a{1,9})){1,9}", &why), -1);
	CHECK_INT(rulecheck_row("a", "a{1,256}", &why), -1);
	CHECK_INT(rulecheck_row("a", "a{3,}", &why), 0);
	CHECK_INT(rulecheck_row("a", "a{300,}", &why), -1);
	CHECK_INT(rulecheck_row("a", "[[:alpha:]", &why), -1);
	/* the same text as a lit rule's pattern is not a regex */
	CHECK_INT(rulecheck_row("a", NULL, &why), 0);
}

/* A repeated line is answered from the memo: the same rule, captures and window; evidence still seen. */
static void test_linememo(void)
{
	static const char table[] = HEAD
		"hi\t1\tcause\tre\tXid \\(PCI:([0-9a-f:.]+)\\): ([0-9]+)\txid\t-,-\tgpu-xid-error\t-\t-\t-\n"
		"lo\t2\tcause\tlit\tfallen off the bus\t-\t-\tgpu-lost?!nvlink\t-\t-\t-\n";
	static const char line[] = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.";
	struct logrules r;
	struct logmatch m;
	size_t off[LR_MAX_CAPS], clen[LR_MAX_CAPS], off2[LR_MAX_CAPS], clen2[LR_MAX_CAPS];
	const struct logrule *a, *b;
	char longer[LINEMEMO_MAX_LINE + 64];

	if (logrules_parse("test", table, strlen(table), &r, NULL) != 0) {
		CHECK(!"the table parses");
		return;
	}
	logmatch_init(&m, &r);
	a = logmatch_line(&m, line, strlen(line), off, clen);
	CHECK(a == &r.v[0]);
	CHECK_INT((int)m.memo.found, 0);
	b = logmatch_line(&m, line, strlen(line), off2, clen2);
	CHECK(b == a);
	CHECK_INT((int)m.memo.found, 1);
	CHECK(memcmp(off, off2, sizeof(off)) == 0 && memcmp(clen, clen2, sizeof(clen)) == 0);
	CHECK_INT((int)clen2[1], 2);	/* "79" */
	/* a bound at or before the winner: no rule before it matched */
	CHECK(logmatch_line_before(&m, line, strlen(line), &r.v[0], off2, clen2) == NULL);
	CHECK(logmatch_line_before(&m, line, strlen(line), &r.v[1], off2, clen2) == &r.v[0]);
	/* a line that differs in one byte is matched anew */
	{
		char other[sizeof(line)];

		memcpy(other, line, sizeof(line));
		other[30] = '8';	/* "79," becomes "798" */
		CHECK(logmatch_line(&m, other, strlen(other), off2, clen2) == &r.v[0]);
		CHECK_INT((int)clen2[1], 3);
		CHECK(memcmp(other + off2[1], "798", 3) == 0);
	}
	/* a miss is remembered too, and the evidence literal is still seen after a clear */
	CHECK(logmatch_line(&m, "nvlink down, xid later", 22, off2, clen2) == NULL);
	logmatch_clear(&m);
	CHECK(logmatch_line(&m, "nvlink down, xid later", 22, off2, clen2) == NULL);
	CHECK(logmatch_cond_seen(&m, &r.v[1].cond[0]));
	/* a line too long to remember still matches */
	memset(longer, 'y', sizeof(longer));
	memcpy(longer + sizeof(longer) - sizeof(line), line, sizeof(line));
	{
		unsigned long before = m.memo.found;

		CHECK(logmatch_line(&m, longer, strlen(longer), off2, clen2) == &r.v[0]);
		CHECK(logmatch_line(&m, longer, strlen(longer), off2, clen2) == &r.v[0]);
		CHECK(m.memo.found == before);
	}
	logmatch_release(&m);
	logrules_release(&r);
}

/* Sibling causes: "#@beside" lines add a condition to every row that names their cause. */
static void test_beside(void)
{
	static const char good[] =
		"#@evset\tctr\tdocker run|in a container\twhy\n"
		"#@beside\tlibcuda-missing\tcontainer-gpu-not-requested?+@ctr;wsl1-no-gpu?+wsl1\twhy\n"
		"#@beside\tcontainer-gpu-not-requested\tcontainer-runtime-missing?+--gpus\twhy\n"
		"#@beside\tgpu-lost\tgpu-lost?!xid 48\twhy\n" HEAD
		"a\t1\tcause\tlit\tA\t-\t-\tlibcuda-missing\t-\t-\t-\n"
		"b\t1\tcause\tlit\tB\t-\t-\tlibcuda-missing;wsl1-no-gpu?+microsoft\t-\t-\t-\n"
		"c\t1\tcause\tlit\tC\t-\t-\tno-nvidia-gpu\t-\t-\t-\n"
		"d\t1\tcause\tlit\tD\t-\t-\tgpu-lost?+bus\t-\t-\t-\n"
		"e\t1\tcause\tlit\tE\t-\t-\tgpu-lost\t-\t-\t-\n";
	struct logrules r;
	struct err e;
	const struct logrule *a, *b, *c, *d, *x;

	CHECK(logrules_parse("test", good, strlen(good), &r, &e) == 0);
	CHECK_INT((int)r.nbeside, 4);
	a = logrules_find(&r, "a");
	b = logrules_find(&r, "b");
	c = logrules_find(&r, "c");
	d = logrules_find(&r, "d");
	x = logrules_find(&r, "e");
	/* the siblings after the row's own causes, in order; the chained one last */
	CHECK_INT((int)a->ncauses, 4);
	CHECK(a->causes[1] == cause_from_id("container-gpu-not-requested") && a->cond[1].kind == LR_COND_IF &&
	      a->cond[1].nev == 2);
	CHECK(a->causes[2] == cause_from_id("wsl1-no-gpu"));
	CHECK(a->causes[3] == cause_from_id("container-runtime-missing"));
	/* a row that writes the sibling keeps its own condition, and names it once */
	CHECK_INT((int)b->ncauses, 4);
	CHECK(b->causes[1] == cause_from_id("wsl1-no-gpu") && b->cond[1].nev == 1 &&
	      !strcmp(r.ev[b->cond[1].ev[0]], "microsoft"));
	/* a row that does not name the cause gets nothing */
	CHECK_INT((int)c->ncauses, 1);
	/* the exception form: joins a "?+" cause's exception, or is a bare cause's only condition */
	CHECK_INT((int)d->ncauses, 1);
	CHECK(d->cond[0].kind == LR_COND_IF && d->except[0].kind == LR_COND_UNLESS && d->except[0].nev == 1);
	CHECK(x->cond[0].kind == LR_COND_UNLESS && !strcmp(r.ev[x->cond[0].ev[0]], "xid 48"));
	logrules_release(&r);

	/* malformed lines: errors with the line */
	CHECK(parse_err("#@beside\tlibcuda-missing\tcontainer-gpu-not-requested?+x\n" HEAD ROW("nouveau-loaded"), &e) < 0);
	CHECK(strstr(e.msg, ":1:") && strstr(e.msg, "#@beside"));	/* no why */
	CHECK(parse_err("#@beside\tno-such-cause\tgpu-lost?+x\tw\n" HEAD ROW("nouveau-loaded"), &e) < 0);
	CHECK(strstr(e.msg, ":1:") && strstr(e.msg, "no-such-cause"));
	CHECK(parse_err("#@evset\ta\tx\tw\n#@beside\tgpu-lost\tno-such-cause?+x\tw\n" HEAD ROW("nouveau-loaded"), &e) < 0);
	CHECK(strstr(e.msg, ":2:") && strstr(e.msg, "no-such-cause"));
	CHECK(parse_err("#@beside\tgpu-lost\tnouveau-loaded\tw\n" HEAD ROW("nouveau-loaded"), &e) < 0);
	CHECK(strstr(e.msg, "needs a condition") != NULL);
	CHECK(parse_err("#@beside\tgpu-lost\tnouveau-loaded?+@nope\tw\n" HEAD ROW("nouveau-loaded"), &e) < 0);
	CHECK(strstr(e.msg, "@nope") != NULL);
	CHECK(parse_err("#@beside\tgpu-lost\tgpu-lost?+x\tw\n" HEAD ROW("gpu-lost"), &e) < 0);
	CHECK(strstr(e.msg, "only an exception") != NULL);
	CHECK(parse_err("#@beside\tgpu-lost\tnouveau-loaded?+x;;\tw\n" HEAD ROW("gpu-lost"), &e) < 0);
	CHECK(parse_err("#@beside\t\tnouveau-loaded?+x\tw\n" HEAD ROW("gpu-lost"), &e) < 0);
	/* too many causes with the siblings: the row and the line named */
	{
		char text[4096];
		size_t o = 0;
		static const char *const sibs[] = { "nouveau-loaded", "gpu-lost", "no-nvidia-gpu", "ecc-errors",
						    "device-node-missing", "device-node-permission", "cudnn-missing",
						    "cudnn-incomplete", "nvml-missing", "wsl1-no-gpu", "shm-too-small",
						    "memlock-limited", "nccl-hang", "gpu-throttled", "inforom-corrupted",
						    "fabric-manager-not-running" };

		o += (size_t)snprintf(text + o, sizeof(text) - o, "#@beside\tlibcuda-missing\t");
		for (size_t i = 0; i < sizeof(sibs) / sizeof(sibs[0]); i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s?+x", i ? ";" : "", sibs[i]);
		snprintf(text + o, sizeof(text) - o, "\tw\n" HEAD ROW("libcuda-missing"));
		CHECK(parse_err(text, &e) < 0);
		CHECK(strstr(e.msg, "rule r") && strstr(e.msg, "#@beside line 1"));
	}
	/* a plain comment that starts alike is no sibling line */
	CHECK(parse_err("#@besides are described above\n" HEAD ROW("nouveau-loaded"), &e) == 0);
}

int main(void)
{
	RUN(test_literal_captures);
	RUN(test_bad_tables);
	RUN(test_normaliser);
	RUN(test_unwrap);
	RUN(test_conditions);
	RUN(test_evsets);
	RUN(test_beside);
	RUN(test_decode);
	RUN(test_table);
	RUN(test_hostile_numbers);
	RUN(test_log_order);
	RUN(test_rulecheck);
	RUN(test_linememo);
	return tap_done();
}
