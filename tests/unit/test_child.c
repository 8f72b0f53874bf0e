/* test_child.c - isolated children: success, crash, hang, garbage, exit status. */
#include "tap.h"

#include "core/child.h"

#include <string.h>

static int sh(const char *script, double timeout, struct child_result *r)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct err e = ERR_INIT;

	return child_run_argv(argv, NULL, timeout, r, &e);
}

static void test_child_ok(void)
{
	struct child_result r = CHILD_RESULT_INIT;

	CHECK(sh("echo a=1; echo name=x y; echo end", 5, &r) == 0);
	CHECK_INT(r.outcome, CHILD_OK);
	CHECK_STR(kv_get(&r.kv, "name"), "x y");
	child_result_release(&r);
}

static void test_child_crash(void)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct buf d = BUF_INIT;

	CHECK(sh("echo a=1; kill -SEGV $$", 5, &r) == 0);
	CHECK_INT(r.outcome, CHILD_SIGNALED);
	CHECK_INT(r.signal, 11);
	CHECK(strstr(child_outcome_describe(&r, &d), "SIGSEGV") != NULL);
	CHECK_STR(kv_get(&r.kv, "a"), "1");
	buf_release(&d);
	child_result_release(&r);
}

static void test_child_hang_is_killed(void)
{
	struct child_result r = CHILD_RESULT_INIT;
	double t0 = child_now();

	/* the grandchild keeps the pipe open: the whole group must die */
	CHECK(sh("sleep 30 & echo started=1; sleep 30", 0.3, &r) == 0);
	CHECK_INT(r.outcome, CHILD_TIMEOUT);
	CHECK(child_now() - t0 < 3.0);
	CHECK_STR(kv_get(&r.kv, "started"), "1");
	child_result_release(&r);
}

static void test_child_incomplete_and_exit(void)
{
	struct child_result r = CHILD_RESULT_INIT;

	CHECK(sh("echo 'random garbage'", 5, &r) == 0);
	CHECK_INT(r.outcome, CHILD_INCOMPLETE);
	child_result_release(&r);
	CHECK(sh("echo oops >&2; exit 3", 5, &r) == 0);
	CHECK_INT(r.outcome, CHILD_EXIT_ERROR);
	CHECK_INT(r.exit_code, 3);
	CHECK(strstr(r.err.s, "oops") != NULL);
	child_result_release(&r);
}

static void test_child_missing_program(void)
{
	const char *argv[] = { "/nonexistent/prog", NULL };
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;

	CHECK(child_run_argv(argv, NULL, 5, &r, &e) == 0);
	CHECK_INT(r.outcome, CHILD_EXIT_ERROR);
	CHECK_INT(r.exit_code, 127);
	child_result_release(&r);
}

static void test_children_run_at_the_same_time(void)
{
	const char *a[] = { "/bin/sh", "-c", "sleep 0.3; echo who=a; echo end", NULL };
	const char *b[] = { "/bin/sh", "-c", "sleep 0.3; echo who=b; echo end", NULL };
	struct child_result ra = CHILD_RESULT_INIT, rb = CHILD_RESULT_INIT;
	struct child ca, cb;
	struct err e = ERR_INIT;
	double t0 = child_now();

	CHECK(child_start_argv(a, NULL, 5, &ca, &e) == 0);
	CHECK(child_start_argv(b, NULL, 5, &cb, &e) == 0);
	child_finish(&ca, &ra);
	child_finish(&cb, &rb);
	CHECK(child_now() - t0 < 0.55);
	CHECK_STR(kv_get(&ra.kv, "who"), "a");
	CHECK_STR(kv_get(&rb.kv, "who"), "b");
	child_result_release(&ra);
	child_result_release(&rb);
}

static void test_child_cancel(void)
{
	const char *a[] = { "/bin/sh", "-c", "sleep 30", NULL };
	struct child_result r = CHILD_RESULT_INIT;
	struct child c;
	struct err e = ERR_INIT;
	double t0 = child_now();

	CHECK(child_start_argv(a, NULL, 30, &c, &e) == 0);
	child_cancel(&c, &r);
	CHECK_INT(r.outcome, CHILD_TIMEOUT);
	CHECK(child_now() - t0 < 2.0);
	child_result_release(&r);
}

/* An answered child is not waited for: its teardown (here a sleep) runs on alone. */
static void test_finish_at_end_does_not_wait(void)
{
	const char *a[] = { "/bin/sh", "-c", "echo who=a; echo end; exec sleep 2", NULL };
	const char *b[] = { "/bin/sh", "-c", "echo who=b; exit 3", NULL };
	struct child c;
	struct child_result r = CHILD_RESULT_INIT;
	double t0 = child_now();

	CHECK_INT(child_start_argv(a, NULL, 10, &c, NULL), 0);
	child_finish_at_end(&c, &r);
	CHECK(child_now() - t0 < 1.0);
	CHECK_INT(r.outcome, CHILD_OK);
	CHECK_STR(kv_get(&r.kv, "who"), "a");
	child_result_release(&r);
	/* without "end" it is the usual finish: the exit status counts */
	CHECK_INT(child_start_argv(b, NULL, 10, &c, NULL), 0);
	child_finish_at_end(&c, &r);
	CHECK_INT(r.outcome, CHILD_EXIT_ERROR);
	CHECK_INT(r.exit_code, 3);
	child_result_release(&r);
	child_reap_detached();
}

int main(void)
{
	RUN(test_children_run_at_the_same_time);
	RUN(test_child_cancel);
	RUN(test_finish_at_end_does_not_wait);
	RUN(test_child_ok);
	RUN(test_child_crash);
	RUN(test_child_hang_is_killed);
	RUN(test_child_incomplete_and_exit);
	RUN(test_child_missing_program);
	return tap_done();
}
