/* test_report.c - layer statuses, blocking, the cause catalogue contract. */
#include "tap.h"

#include "knowledge/causes.h"
#include "report/report.h"

#include <string.h>

static void test_layer_worst_and_overall(void)
{
	struct report r;

	report_init(&r);
	report_add(&r, LAYER_HARDWARE, "hardware.gpu", STATUS_OK, NULL, "one GPU");
	report_add(&r, LAYER_KERNEL, "kernel.uvm", STATUS_WARN, "uvm-module-not-loaded", "uvm");
	report_add(&r, LAYER_DEVICES, "devices.x", STATUS_SKIPPED, NULL, "skipped");
	report_finish(&r);
	CHECK_INT(r.layers[LAYER_HARDWARE].status, STATUS_OK);
	CHECK_INT(r.layers[LAYER_KERNEL].status, STATUS_WARN);
	CHECK_INT(r.layers[LAYER_DEVICES].status, STATUS_SKIPPED);
	CHECK_INT(r.status, STATUS_WARN);
	CHECK(report_find_cause(&r, "uvm-module-not-loaded") != NULL);
	CHECK(report_find_cause(&r, "gpu-lost") == NULL);
	report_release(&r);
}

static void test_blocked_layers(void)
{
	struct report r;

	report_init(&r);
	report_add(&r, LAYER_KERNEL, "kernel.module", STATUS_FAIL, "nvidia-module-not-loaded", "no module");
	report_add(&r, LAYER_DRIVER, "driver.libcuda", STATUS_FAIL, "libcuda-missing", "no libcuda");
	report_block(&r, LAYER_DRIVER, LAYER_KERNEL);
	CHECK_INT(r.findings[1].status, STATUS_WARN);
	CHECK_INT(r.findings[1].nevidence, 1);
	report_finish(&r);
	CHECK_INT(r.layers[LAYER_DRIVER].status, STATUS_BLOCKED);
	CHECK_INT(r.layers[LAYER_DRIVER].blocked_by, LAYER_KERNEL);
	CHECK_INT(r.status, STATUS_FAIL);
	report_release(&r);
}

/* The public contract of issue 2: these ids exist, with the layer they belong to. */
static void test_catalogue_has_every_cause(void)
{
	static const char *const ids[] = {
		"no-nvidia-gpu", "nouveau-loaded", "gpu-bound-to-other-driver",
		"nvidia-module-not-loaded", "secure-boot-blocks-module",
		"module-missing-for-kernel", "uvm-module-not-loaded", "pcie-link-degraded",
		"device-node-missing", "device-node-permission",
		"driver-library-mismatch", "libcuda-missing", "libcuda-stub-on-path",
		"nvml-missing", "nvml-failed", "gpu-hidden-by-env", "cuda-debug-env-set",
		"gpu-memory-held", "persistence-mode-off", "ecc-errors", "gpu-lost",
		"cuda-init-failed", "fabric-manager-not-running",
		"compat-lib-on-unsupported-gpu", "gpu-compute-failed",
		"cuda-runtime-missing", "cuda-runtime-too-new-for-driver", "cudnn-missing",
		"cudnn-version-mismatch", "cudnn-incomplete", "lib-unreadable", "lib-corrupt",
		"lib-shadowed", "lib-dependency-missing", "cuda-symlink-broken", "nccl-missing",
		"framework-cpu-only", "framework-cuda-mismatch", "framework-driver-too-old",
		"gpu-arch-unsupported",
	};
	size_t n;
	const struct cause *all = cause_all(&n);

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct cause *c = cause_lookup(ids[i]);

		CHECK(c != NULL);
		if (!c)
			printf("#   missing cause %s\n", ids[i]);
	}
	for (size_t i = 0; i < n; i++) {
		CHECK(all[i].title && *all[i].title);
		CHECK(all[i].why && *all[i].why);
		CHECK(all[i].fix && *all[i].fix);
		for (size_t k = i + 1; k < n; k++)
			CHECK(strcmp(all[i].id, all[k].id) != 0);
	}
}

int main(void)
{
	RUN(test_layer_worst_and_overall);
	RUN(test_blocked_layers);
	RUN(test_catalogue_has_every_cause);
	return tap_done();
}
