/* test_report.c - layer statuses, blocking, the cause catalogue contract. */
#include "tap.h"

#include "knowledge/causes.h"
#include "report/finding_record.h"
#include "report/report.h"
#include "watch/ident.h"

#include <stdio.h>
#include <stdlib.h>
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

/* A node's health: a GPU taken by a job is at most a warning (never drains);
   a failure of any other cause stays a failure. */
static void test_node_status(void)
{
	struct report r;

	report_init(&r);
	report_add(&r, LAYER_CUDA, "held", CAUSE_GPU_MEMORY_HELD, REACH_WORK, "held");
	report_add(&r, LAYER_CUDA, "busy", CAUSE_GPU_EXCLUSIVE_BUSY, REACH_WORK, "busy");
	report_add(&r, LAYER_LIBRARIES, "b", CAUSE_LIB_SHADOWED, REACH_WORK, "shadowed");
	report_add(&r, LAYER_DRIVER, "pm", CAUSE_PERSISTENCE_MODE_OFF, REACH_WORK, "pm");
	r.findings[0].status = r.findings[1].status = STATUS_FAIL;
	CHECK_INT(finding_node_status(&r.findings[0]), STATUS_WARN);
	CHECK_INT(finding_node_status(&r.findings[1]), STATUS_WARN);
	CHECK_INT(finding_node_status(&r.findings[2]), STATUS_FAIL);
	CHECK_INT(finding_node_status(&r.findings[3]), STATUS_WARN);
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

/* Every row of knowledge/cause_policy.def, as the table answers it. */
static void test_cause_policy(void)
{
	size_t n;
	const struct cause *all = cause_all(&n);

	CHECK_INT(cause_action(CAUSE_GPU_LOST), CAUSE_ACT_REBOOT);
	CHECK_INT(cause_action(CAUSE_NVML_HANG), CAUSE_ACT_REBOOT);
	CHECK_INT(cause_action(CAUSE_ECC_ERRORS), CAUSE_ACT_NONE);
	CHECK(cause_flags(CAUSE_GPU_XID_ERROR) & CF_XID_ACTION);
	CHECK(cause_flags(CAUSE_GPU_XID_ERROR) & CF_ACKABLE);
	CHECK(cause_flags(CAUSE_GPU_LOST) & CF_ACKABLE);
	CHECK(!(cause_flags(CAUSE_ECC_ERRORS) & CF_ACKABLE));
	/* bench refuses the whole run for these, one GPU for the others */
	CHECK(cause_flags(CAUSE_NO_NVIDIA_GPU) & CF_STOPS_BENCH);
	CHECK(cause_flags(CAUSE_LIBCUDA_MISSING) & CF_STOPS_BENCH);
	CHECK(!(cause_flags(CAUSE_GPU_COMPUTE_FAILED) & CF_STOPS_BENCH));
	CHECK(!(cause_flags(CAUSE_GPU_LOST) & CF_STOPS_BENCH));
	CHECK_INT(cause_action(CAUSE_NONE), CAUSE_ACT_NONE);
	CHECK_INT(cause_flags(CAUSE_COUNT), 0);
	/* An XID action reaches only the XID cause; every ackable cause is per GPU. */
	for (size_t i = 0; i < n; i++) {
		unsigned fl = cause_flags(all[i].cause);

		if (fl & CF_ACKABLE)
			CHECK(fl & CF_PER_GPU);
		if (fl & CF_XID_ACTION)
			CHECK_INT(all[i].cause, CAUSE_GPU_XID_ERROR);
	}
	/* The XID's action decides, and the status follows the policy. */
	struct finding f;

	memset(&f, 0, sizeof(f));
	f.cause = CAUSE_GPU_XID_ERROR;
	for (int a = 0; a < KB_XID_NACTIONS; a++) {
		f.xid_action = (enum kb_xid_action)a;
		CHECK_INT(finding_action(&f), a == KB_XID_RESET_GPU || a == KB_XID_REBOOT
						      ? CAUSE_ACT_REBOOT : CAUSE_ACT_NONE);
	}
	CHECK_INT(finding_status(CAUSE_GPU_XID_ERROR, finding_xid_reach(KB_XID_RESTART_APP)),
		  STATUS_WARN);
	CHECK_INT(finding_status(CAUSE_GPU_XID_ERROR, finding_xid_reach(KB_XID_RESET_GPU)),
		  STATUS_FAIL);
	CHECK_INT(finding_status(CAUSE_GPU_XID_ERROR, finding_xid_reach(KB_XID_INSPECT_HW)),
		  STATUS_FAIL);
}

static void test_record_round_trip(void)
{
	struct report r;
	struct finding *f, g;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	report_init(&r);
	f = report_add(&r, LAYER_DRIVER, "watch.xid", CAUSE_GPU_XID_ERROR, REACH_WORK,
		       "XID 48 on GPU 1:\tline\x01 two");
	finding_scope(f, 1, "0000:19:00.0", "GPU-34d7319c-5b19-1e75-186d-c187099e4fe5");
	finding_scope_xid(f, 48, KB_XID_RESET_GPU);
	finding_record_write(&b, f);
	CHECK_STR(b.s, "cause=gpu-xid-error status=fail layer=driver gpu=1 pci=0000:19:00.0 "
		       "uuid=GPU-34d7319c-5b19-1e75-186d-c187099e4fe5 xid=48 action=reset-gpu "
		       "title=XID 48 on GPU 1: line  two");
	CHECK_INT(finding_record_parse(b.s, b.len, &g, &e), 0);
	CHECK_INT(g.cause, CAUSE_GPU_XID_ERROR);
	CHECK_INT(g.status, STATUS_FAIL);
	CHECK_INT(g.layer, LAYER_DRIVER);
	CHECK_INT(g.gpu, 1);
	CHECK_STR(g.pci, "0000:19:00.0");
	CHECK_STR(g.uuid, "GPU-34d7319c-5b19-1e75-186d-c187099e4fe5");
	CHECK_INT(g.xid, 48);
	CHECK_INT(g.xid_action, KB_XID_RESET_GPU);
	CHECK_STR(g.title, "XID 48 on GPU 1: line  two");
	CHECK_INT(finding_action(&g), CAUSE_ACT_REBOOT);
	finding_release(&g);
	/* A machine value that is not a PCI address is left out, not written. */
	finding_scope(f, -1, "0000:19:00.0 xid=1", NULL);
	buf_reset(&b);
	finding_record_write(&b, f);
	CHECK(strstr(b.s, "pci=") == NULL);
	CHECK(strstr(b.s, " gpu=") == NULL);
	buf_release(&b);
	report_release(&r);
}

/*
 * A finding copied into another report (a record parsed from watch's static
 * check, each sweep's copy of it) keeps its status, not the policy's for
 * the cause, and owns its own strings: the source can go first.
 */
static void test_add_copy(void)
{
	struct report r, s;
	struct finding src, *f;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	report_init(&r);
	report_init(&s);
	/* A blocked layer's failure arrives as a warning: the copy stays one. */
	buf_puts(&b, "cause=driver-library-mismatch status=warn layer=driver pci=0000:18:00.0 "
		     "title=the module and libcuda differ");
	CHECK_INT(finding_record_parse(b.s, b.len, &src, &e), 0);
	finding_evidence(&src, "libcuda.so.575.57.08");
	f = report_add_copy(&s, &src);
	finding_release(&src);
	CHECK_INT(f->status, STATUS_WARN);
	CHECK_INT(finding_status(f->cause, REACH_WORK), STATUS_FAIL);
	f = report_add_copy(&r, &s.findings[0]);
	report_release(&s);
	CHECK_INT(r.n, 1);
	CHECK_INT(f->status, STATUS_WARN);
	CHECK_INT(f->cause, CAUSE_DRIVER_LIBRARY_MISMATCH);
	CHECK_INT(f->gpu, -1);
	CHECK_STR(f->pci, "0000:18:00.0");
	CHECK(f->uuid == NULL && f->id == NULL && f->fix == NULL);
	CHECK_STR(f->title, "the module and libcuda differ");
	CHECK_INT(f->nevidence, 1);
	CHECK_STR(f->evidence[0], "libcuda.so.575.57.08");
	report_finish(&r);
	CHECK_INT(r.status, STATUS_WARN);
	buf_release(&b);
	report_release(&r);
}

static void test_record_rejects(void)
{
	static const char *const bad[] = {
		"",
		"status=fail title=no cause",
		"cause=gpu-lost title=no status",
		"cause=xid-error status=fail",		/* the id nobody emits */
		"cause=GPU-LOST status=fail",
		"cause=gpu-lost status=fatal",
		"cause=gpu-lost status=fail layer=firmware",
		"cause=gpu-lost status=fail gpu=-1",
		"cause=gpu-lost status=fail gpu=99999",
		"cause=gpu-lost status=fail gpu=1x",
		"cause=gpu-lost status=fail pci=0000:19:00.0;reboot",
		"cause=gpu-lost status=fail uuid=GPU-$(x)",
		"cause=gpu-xid-error status=fail xid=0",
		"cause=gpu-xid-error status=fail xid=48 action=panic",
		"cause=ecc-errors status=fail xid=48",	/* not an XID cause */
		"cause=gpu-lost status=fail colour=red",
		"cause=gpu-lost status=fail nokey",
		"cause=gpu-lost status=fail =x",
	};
	struct finding f;
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = finding_record_parse(bad[i], strlen(bad[i]), &f, &e);

		if (r == 0)
			fprintf(stderr, "# accepted: %s\n", bad[i]);
		CHECK_INT(r, -1);
		CHECK(f.title == NULL && f.pci == NULL);
	}
	/* The title keeps '=' and runs to the end; control bytes become spaces. */
	const char *ok = "cause=gpu-lost status=warn title=a=b c\x1b[31m";
	CHECK_INT(finding_record_parse(ok, strlen(ok), &f, &e), 0);
	CHECK_STR(f.title, "a=b c [31m");
	CHECK_INT(f.gpu, -1);
	finding_release(&f);
}

static void test_gpu_ident(void)
{
	struct gpu_ident id;
	const char *uuid = "GPU-34d7319c-5b19-1e75-186d-c187099e4fe5";

	CHECK_INT(gpu_ident_parse("1", &id), 0);
	CHECK_INT(id.kind, GPU_ID_INDEX);
	CHECK(gpu_ident_match(&id, 1, "0000:19:00.0", NULL));
	CHECK(!gpu_ident_match(&id, 0, "0000:11:00.0", NULL));	/* "1" is in the address */
	CHECK(!gpu_ident_match(&id, 11, NULL, NULL));
	CHECK(!gpu_ident_match(&id, -1, "0000:01:00.1", NULL));
	CHECK_INT(gpu_ident_parse("0", &id), 0);
	CHECK(!gpu_ident_match(&id, 1, "0000:19:00.0", NULL));
	CHECK_INT(gpu_ident_parse("PCI:0000:19:00", &id), 0);
	CHECK_INT(id.kind, GPU_ID_PCI);
	CHECK_STR(id.text, "0000:19:00.0");
	CHECK(gpu_ident_match(&id, 7, "0000:19:00.0", NULL));
	CHECK(!gpu_ident_match(&id, 7, "0000:19:00.1", NULL));
	CHECK(!gpu_ident_match(&id, 7, NULL, NULL));
	CHECK_INT(gpu_ident_parse(uuid, &id), 0);
	CHECK_INT(id.kind, GPU_ID_UUID);
	CHECK(gpu_ident_match(&id, -1, NULL, uuid));
	CHECK(!gpu_ident_match(&id, 0, "0000:18:00.0", "GPU-34d7319c"));
	CHECK_INT(gpu_ident_parse("all", &id), 0);
	CHECK(gpu_ident_match(&id, -1, NULL, NULL));
	CHECK_INT(gpu_ident_parse("", &id), -1);
	CHECK_INT(gpu_ident_parse("12345", &id), -1);
	CHECK_INT(gpu_ident_parse("1;reboot", &id), -1);
	CHECK_INT(gpu_ident_parse("GPU-", &id), -1);
	CHECK_INT(gpu_ident_parse("GPU-x y", &id), -1);
	CHECK_INT(gpu_ident_parse("0000:zz:00.0", &id), -1);
	CHECK_INT(gpu_ident_parse("ALL", &id), -1);
}

/* Fixes as word lists (issue 22): each word one shell word, markers between. */
static void test_fix_words(void)
{
	struct report r;
	struct finding *f, *g;
	struct fixwords w = FIXWORDS_INIT;

	report_init(&r);
	f = report_add(&r, LAYER_KERNEL, "kernel.uvm", CAUSE_UVM_MODULE_NOT_LOADED, REACH_WORK, "uvm");
	finding_fix_cmd(f, "sudo", "ln", "-sfn", "/usr/local/cuda-13.0", "/usr/local/cuda", NULL);
	CHECK_STR(f->fix, "sudo ln -sfn /usr/local/cuda-13.0 /usr/local/cuda");
	/* a value with shell code, a space and a newline is one quoted word */
	finding_fix_cmd(f, "sudo", "rm", "/a b$(x);c\nd'e", FIX_AND, "sudo", "ldconfig", NULL);
	CHECK_STR(f->fix, "sudo rm '/a b$(x);c\nd'\\''e' && sudo ldconfig");
	/* glue: no space, each part quoted on its own; FIX_SH: our own text as it is */
	finding_fix_cmd(f, "export", "LD_LIBRARY_PATH=", FIX_GLUE, "/o p", FIX_GLUE, FIX_SH,
			"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", NULL);
	CHECK_STR(f->fix, "export LD_LIBRARY_PATH='/o p'${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}");
	finding_fix_cmd(f, "echo", "0000:18:00.0", FIX_PIPE, "sudo", "tee", "/x", FIX_SEMI, "a", FIX_OR, "b",
			NULL);
	CHECK_STR(f->fix, "echo 0000:18:00.0 | sudo tee /x; a || b");
	finding_fix_note(f, "prose");
	CHECK_STR(f->fix, "echo 0000:18:00.0 | sudo tee /x; a || b  (prose)");
	/* a list built at run time; an empty value is the empty word */
	fixwords_add(&w, "unset");
	fixwords_add(&w, "CUDA_LAUNCH_BLOCKING");
	fixwords_add(&w, "");
	CHECK_INT((int)w.n, 3);
	CHECK(w.w[3] == NULL);
	finding_fix_argv(f, w.w);
	fixwords_release(&w);
	CHECK_STR(f->fix, "unset CUDA_LAUNCH_BLOCKING ''");
	/* the catalogue's fix, and another finding's */
	finding_fix_catalogue(f);
	CHECK_STR(f->fix, cause_fix(CAUSE_UVM_MODULE_NOT_LOADED));
	g = report_add(&r, LAYER_KERNEL, "kernel.x", CAUSE_UVM_MODULE_NOT_LOADED, REACH_WORK, "x");
	finding_fix_copy(g, report_find_cause(&r, CAUSE_UVM_MODULE_NOT_LOADED)->fix);
	CHECK_STR(g->fix, cause_fix(CAUSE_UVM_MODULE_NOT_LOADED));
	/* a note alone is the whole fix */
	g = report_add(&r, LAYER_KERNEL, "kernel.y", CAUSE_UVM_MODULE_NOT_LOADED, REACH_WORK, "y");
	finding_fix_note(g, "reboot into the driver's kernel");
	CHECK_STR(g->fix, "reboot into the driver's kernel");
	report_release(&r);
}

int main(void)
{
	RUN(test_layer_worst_and_overall);
	RUN(test_blocked_layers);
	RUN(test_status_is_policy);
	RUN(test_node_status);
	RUN(test_severity_table);
	RUN(test_catalogue_round_trip);
	RUN(test_cause_policy);
	RUN(test_record_round_trip);
	RUN(test_add_copy);
	RUN(test_record_rejects);
	RUN(test_gpu_ident);
	RUN(test_fix_words);
	return tap_done();
}
