/* test_report.c - layer statuses, blocking, the cause catalogue contract. */
#include "tap.h"

#include "knowledge/causes.h"
#include "report/report.h"

#include <string.h>

static void test_layer_worst_and_overall(void)
{
	struct report r;

	report_init(&r);
	report_ok(&r, LAYER_HARDWARE, "hardware.gpu", "one GPU");
	report_add(&r, LAYER_KERNEL, "kernel.uvm", CAUSE_UVM_MODULE_NOT_LOADED, REACH_WORK, "uvm");
	report_skip(&r, LAYER_DEVICES, "devices.x", "skipped");
	report_finish(&r);
	CHECK_INT(r.layers[LAYER_HARDWARE].status, STATUS_OK);
	CHECK_INT(r.layers[LAYER_KERNEL].status, STATUS_WARN);
	CHECK_INT(r.layers[LAYER_DEVICES].status, STATUS_SKIPPED);
	CHECK_INT(r.status, STATUS_WARN);
	CHECK(report_find_cause(&r, CAUSE_UVM_MODULE_NOT_LOADED) != NULL);
	CHECK(report_find_cause(&r, CAUSE_GPU_LOST) == NULL);
	report_release(&r);
}

static void test_blocked_layers(void)
{
	struct report r;

	report_init(&r);
	report_add(&r, LAYER_KERNEL, "kernel.module", CAUSE_NVIDIA_MODULE_NOT_LOADED, REACH_WORK,
		   "no module");
	report_add(&r, LAYER_DRIVER, "driver.libcuda", CAUSE_LIBCUDA_MISSING, REACH_WORK, "no libcuda");
	report_block(&r, LAYER_DRIVER, LAYER_KERNEL);
	CHECK_INT(r.findings[1].status, STATUS_WARN);
	CHECK_INT(r.findings[1].nevidence, 1);
	report_finish(&r);
	CHECK_INT(r.layers[LAYER_DRIVER].status, STATUS_BLOCKED);
	CHECK_INT(r.layers[LAYER_DRIVER].blocked_by, LAYER_KERNEL);
	CHECK_INT(r.status, STATUS_FAIL);
	report_release(&r);
}

/* The status of a finding is the catalogue's policy, whatever the call site. */
static void test_status_is_policy(void)
{
	struct report r;

	report_init(&r);
	/* fail-always: a corrupt library that nothing uses is still a failure */
	report_add(&r, LAYER_LIBRARIES, "a", CAUSE_LIB_CORRUPT, REACH_LATENT, "corrupt");
	/* fail on the work path, warn while latent */
	report_add(&r, LAYER_LIBRARIES, "b", CAUSE_LIB_SHADOWED, REACH_WORK, "shadowed");
	report_add(&r, LAYER_LIBRARIES, "c", CAUSE_LIB_SHADOWED, REACH_LATENT, "shadowed");
	/* warn whatever the reach */
	report_add(&r, LAYER_DRIVER, "d", CAUSE_PERSISTENCE_MODE_OFF, REACH_WORK, "pm");
	/* an id outside the catalogue never reads as ok */
	report_add(&r, LAYER_DRIVER, "e", (enum cause_id)(CAUSE_COUNT + 3), REACH_LATENT, "?");
	CHECK_INT(r.findings[0].status, STATUS_FAIL);
	CHECK_INT(r.findings[1].status, STATUS_FAIL);
	CHECK_INT(r.findings[2].status, STATUS_WARN);
	CHECK_INT(r.findings[3].status, STATUS_WARN);
	CHECK_INT(r.findings[4].status, STATUS_FAIL);
	report_release(&r);
}

static void test_severity_table(void)
{
	CHECK_INT(severity_status(SEV_WARN, REACH_WORK), STATUS_WARN);
	CHECK_INT(severity_status(SEV_WARN, REACH_LATENT), STATUS_WARN);
	CHECK_INT(severity_status(SEV_FAIL, REACH_WORK), STATUS_FAIL);
	CHECK_INT(severity_status(SEV_FAIL, REACH_LATENT), STATUS_WARN);
	CHECK_INT(severity_status(SEV_FAIL_ALWAYS, REACH_WORK), STATUS_FAIL);
	CHECK_INT(severity_status(SEV_FAIL_ALWAYS, REACH_LATENT), STATUS_FAIL);
}

/* The catalogue as a type: every enum value has its row, ids round-trip. */
static void test_catalogue_round_trip(void)
{
	size_t n;
	const struct cause *all = cause_all(&n);

	CHECK_INT(n, CAUSE_COUNT - 1);
	CHECK(cause_get(CAUSE_NONE) == NULL);
	CHECK(cause_get(CAUSE_COUNT) == NULL);
	CHECK(cause_id_str(CAUSE_NONE) == NULL);
	CHECK_INT(cause_from_id("no-such-cause"), CAUSE_NONE);
	CHECK_INT(cause_from_id(NULL), CAUSE_NONE);
	for (size_t i = 0; i < n; i++) {
		CHECK_INT(all[i].cause, (int)i + 1);
		CHECK_INT(cause_from_id(all[i].id), all[i].cause);
		CHECK(cause_get(all[i].cause) == &all[i]);
		CHECK((unsigned)all[i].layer < LAYER_COUNT);
		CHECK(all[i].title && *all[i].title);
		CHECK(all[i].why && *all[i].why);
		CHECK(all[i].fix && *all[i].fix);
		CHECK(all[i].verify != NULL && all[i].sources != NULL);
		for (const char *p = all[i].id; *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-');
		for (size_t k = i + 1; k < n; k++)
			CHECK(strcmp(all[i].id, all[k].id) != 0);
	}
}

int main(void)
{
	RUN(test_layer_worst_and_overall);
	RUN(test_blocked_layers);
	RUN(test_status_is_policy);
	RUN(test_severity_table);
	RUN(test_catalogue_round_trip);
	return tap_done();
}
