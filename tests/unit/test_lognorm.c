/* test_lognorm.c - the normaliser's launcher prefixes and writers (lognorm_prefix.c, lognorm.c):
 * each form turned back to the message, interleaved ranks' tracebacks kept apart, and a near miss
 * left alone for each. */
#include "tap.h"

#include "explain/lognorm.h"

#include <stdio.h>
#include <string.h>

struct collect {
	char text[8][256];
	char frames[8][256];
	long count[8];
	unsigned flags[8], writer[8];
	int n;
};

static void on_line(const struct lognorm_line *l, void *arg)
{
	struct collect *c = arg;

	if (c->n < 8) {
		snprintf(c->text[c->n], sizeof(c->text[0]), "%s", l->text);
		snprintf(c->frames[c->n], sizeof(c->frames[0]), "%s", l->frames ? l->frames : "");
		c->count[c->n] = l->count;
		c->flags[c->n] = l->flags;
		c->writer[c->n] = l->writer;
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

/* The text of a single line after its prefixes. */
static const char *strip(const char *s)
{
	unsigned fl = 0;

	return s + lognorm_strip_prefix(s, strlen(s), &fl);
}

static void test_logger_prefixes(void)
{
	/* Python logging's cookbook format, with and without the logger's name */
	CHECK_STR(strip("2024-05-01 10:00:00,123 - ERROR - CUDA error: x"), "CUDA error: x");
	CHECK_STR(strip("2024-05-01 10:00:00,123 - root - WARNING - CUDA error: x"), "CUDA error: x");
	/* loguru's default */
	CHECK_STR(strip("2024-05-01 10:00:00.123 | ERROR    | train:main:42 - CUDA error: x"), "CUDA error: x");
	/* vLLM: "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d]", and before 0.6 without the brackets */
	CHECK_STR(strip("(VllmWorkerProcess pid=42) ERROR 05-01 10:00:00 [worker.py:12] CUDA error: x"),
		  "CUDA error: x");
	CHECK_STR(strip("ERROR 10-14 12:32:47 multiproc_worker_utils.py:233] CUDA error: x"), "CUDA error: x");
	/* Lightning, kubectl --prefix, Open MPI's own, elastic's role template */
	CHECK_STR(strip("[rank: 1] CUDA error: x"), "CUDA error: x");
	CHECK_STR(strip("[pod/train-worker-0/pytorch] CUDA error: x"), "CUDA error: x");
	CHECK_STR(strip("[node01:12345] *** Process received signal ***"), "*** Process received signal ***");
	CHECK_STR(strip("[trainer3]:CUDA error: x"), "CUDA error: x");
	/* near misses: a level word inside a message, a Python source position in prose, a bracket with text */
	CHECK_STR(strip("ERROR something went wrong"), "ERROR something went wrong");
	CHECK_STR(strip("INFO - the run"), "the run");	/* the cookbook format without a time */
	CHECK_STR(strip("see train.py:12 for it"), "see train.py:12 for it");
	CHECK_STR(strip("[warning: x] CUDA error"), "[warning: x] CUDA error");
	CHECK_STR(strip("[trainer3] CUDA error"), "[trainer3] CUDA error");	/* no colon: not elastic's */
	CHECK_STR(strip("libcudnn.so.8: cannot open shared object file"), "libcudnn.so.8: cannot open shared object file");
}

static void test_pdsh(void)
{
	struct collect c;

	/* pdsh's "host: " goes where it repeats, and before another prefix or a traceback */
	norm("worker-1: Traceback (most recent call last):\n"
	     "worker-1:   File \"/x/train.py\", line 3, in <module>\n"
	     "worker-1:     model.cuda()\n"
	     "worker-1: RuntimeError: CUDA error: no kernel image is available for execution on the device\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "RuntimeError: CUDA error: no kernel image is available for execution on the device");
	CHECK_STR(c.frames[0], "/x/train.py:3 in <module>");
	CHECK(c.flags[0] & LN_EXCEPTION);
	/* DeepSpeed's runner with IP addresses for hosts */
	norm("10.0.0.6: [2022-12-17 19:15:38,589] [INFO] [logging.py:68:log_dist] hello\n10.0.0.6: x y\n", &c);
	CHECK_STR(c.text[0], "hello");
	CHECK_STR(c.text[1], "x y");
	/* near misses: a program's own "name: " once, a soname */
	norm("python3: can't open file 'x.py'\n", &c);
	CHECK_STR(c.text[0], "python3: can't open file 'x.py'");
	norm("libcuda.so.1: cannot open shared object file\nlibcuda.so.1: cannot open shared object file\n", &c);
	CHECK_STR(c.text[0], "libcuda.so.1: cannot open shared object file");
}

static void test_interleaved_ranks(void)
{
	struct collect c;

	/* two ranks' tracebacks line by line: each exception keeps its own frames */
	norm("[rank0]: Traceback (most recent call last):\n"
	     "[rank1]: Traceback (most recent call last):\n"
	     "[rank0]:   File \"/a/train.py\", line 12, in <module>\n"
	     "[rank1]:   File \"/a/train.py\", line 40, in <module>\n"
	     "[rank0]:     model.cuda()\n"
	     "[rank1]:     dist.barrier()\n"
	     "[rank0]: RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
	     "[rank1]: torch.distributed.DistBackendError: NCCL error\n", &c);
	CHECK_INT(c.n, 2);
	CHECK_STR(c.text[0], "RuntimeError: CUDA error: no kernel image is available for execution on the device");
	CHECK_STR(c.frames[0], "/a/train.py:12 in <module>");
	CHECK_STR(c.text[1], "torch.distributed.DistBackendError: NCCL error");
	CHECK_STR(c.frames[1], "/a/train.py:40 in <module>");
	CHECK(c.flags[1] & LN_EXCEPTION);
	CHECK(c.writer[0] && c.writer[1] && c.writer[0] != c.writer[1]);
	/* a source line behind a prefix is indented: it does not end the traceback */
	norm("[default0]:Traceback (most recent call last):\n"
	     "[default0]:  File \"/a/t.py\", line 1, in f\n"
	     "[default0]:    x = y()\n"
	     "[default0]:ValueError: boom\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "ValueError: boom");
	/* near miss: lines without a writer share one traceback as before */
	norm("Traceback (most recent call last):\n  File \"/a/t.py\", line 1, in f\nValueError: boom\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_INT((int)c.writer[0], 0);
}

static void test_ray_repeated(void)
{
	struct collect c;

	norm("(RayWorkerWrapper pid=12, ip=10.0.0.1) RuntimeError: CUDA error: x [repeated 7x across cluster]\n", &c);
	CHECK_STR(c.text[0], "RuntimeError: CUDA error: x");
	CHECK_INT(c.count[0], 8);
	/* near misses: not at the end, no count */
	norm("a [repeated 7x across cluster] b\nc [repeated x across cluster]\n", &c);
	CHECK_STR(c.text[0], "a [repeated 7x across cluster] b");
	CHECK_STR(c.text[1], "c [repeated x across cluster]");
}

static void test_records(void)
{
	struct collect c;

	/* a logger's record prefix marks its line as a record of its own */
	norm("ERROR 04-06 20:46:48 [worker.py:238] torch.x: y\nplain\n", &c);
	CHECK(c.flags[0] & LN_RECORD);
	CHECK(!(c.flags[1] & LN_RECORD));
}

static void test_inline_code(void)
{
	struct collect c;

	/* each line of a log pasted as markdown inline code (horovod#1475) */
	norm("`[1,0]<stderr>:Traceback (most recent call last):`\n"
	     "`[1,0]<stderr>:  File \"test.py\", line 104, in <module>`\n"
	     "`[1,0]<stderr>:RuntimeError: cuda runtime error (35) : x`\n", &c);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.text[0], "RuntimeError: cuda runtime error (35) : x");
	CHECK(c.flags[0] & LN_EXCEPTION);
	/* near misses: two spans, a fence */
	norm("`a` and `b`\n```\n", &c);
	CHECK_STR(c.text[0], "`a` and `b`");
	CHECK_STR(c.text[1], "```");
}

int main(void)
{
	RUN(test_logger_prefixes);
	RUN(test_pdsh);
	RUN(test_interleaved_ranks);
	RUN(test_ray_repeated);
	RUN(test_records);
	RUN(test_inline_code);
	return tap_done();
}
