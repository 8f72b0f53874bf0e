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

int main(void)
{
	RUN(test_child_ok);
	RUN(test_child_crash);
	RUN(test_child_hang_is_killed);
	RUN(test_child_incomplete_and_exit);
	RUN(test_child_missing_program);
	return tap_done();
}
