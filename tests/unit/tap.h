/*
 * tap.h - the unit-test harness: one function per case, TAP output.
 *
 *	static void test_parse_empty(void) { CHECK(parse("") == NULL); }
 *	int main(void) { RUN(test_parse_empty); return tap_done(); }
 *
 * Each RUN prints "ok N - name" or "not ok N - name" with the failed checks
 * as "#" lines; tap_done() prints the plan and returns the exit status.
 *
 * A case that cannot run here says so and why, and returns: it is reported
 * as "ok N - name # SKIP reason" (TAP's directive), never as a silent pass.
 *
 *	static void test_real_lib(void) {
 *		if (access(p, R_OK) != 0)
 *			SKIP("%s absent", p);
 *		...
 *	}
 */
#ifndef GD_TAP_H
#define GD_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed_cases, tap_case_failed, tap_case_skipped, tap_skipped_cases;
static char tap_skip_reason[256];

#define CHECK(cond) do { \
	if (!(cond)) { \
		tap_case_failed = 1; \
		printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_INT(a, b) do { \
	long long tap_a = (long long)(a), tap_b = (long long)(b); \
	if (tap_a != tap_b) { \
		tap_case_failed = 1; \
		printf("#   %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
		       #a, tap_a, #b, tap_b); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *tap_sa = (a), *tap_sb = (b); \
	if (!tap_sa || !tap_sb || strcmp(tap_sa, tap_sb) != 0) { \
		tap_case_failed = 1; \
		printf("#   %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
		       #a, tap_sa ? tap_sa : "(null)", tap_sb ? tap_sb : "(null)"); \
	} \
} while (0)

/* Leave the current case as skipped, with the reason (printf format). */
#define SKIP(...) do { \
	tap_case_skipped = 1; \
	snprintf(tap_skip_reason, sizeof(tap_skip_reason), __VA_ARGS__); \
	return; \
} while (0)

#define RUN(fn) do { \
	tap_case_failed = 0; \
	tap_case_skipped = 0; \
	fn(); \
	tap_n++; \
	if (tap_case_failed) \
		tap_failed_cases++; \
	else if (tap_case_skipped) \
		tap_skipped_cases++; \
	if (tap_case_skipped && !tap_case_failed) \
		printf("ok %d - %s # SKIP %s\n", tap_n, #fn, tap_skip_reason); \
	else \
		printf("%sok %d - %s\n", tap_case_failed ? "not " : "", tap_n, #fn); \
	fflush(stdout); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_skipped_cases)
		printf("# skipped %d of %d\n", tap_skipped_cases, tap_n);
	return tap_failed_cases ? 1 : 0;
}

#endif
