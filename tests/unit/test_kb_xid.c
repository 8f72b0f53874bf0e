/*
 * test_kb_xid.c - the XID catalogue (data/xid.tsv) through kb_xid.h: rows
 * that monitors act on, the action mapping, and a --kb DIR override.
 */
#include "knowledge/kb.h"
#include "knowledge/kb_xid.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct kb *kb;

static void test_known_xids(void)
{
	static const struct { int xid; const char *name; enum kb_xid_action a; } rows[] = {
		{ 13, "ROBUST_CHANNEL_GR_EXCEPTION/ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY", KB_XID_RESTART_APP },
		{ 31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", KB_XID_RESTART_APP },
		{ 45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", KB_XID_NONE },
		{ 48, "ROBUST_CHANNEL_GPU_ECC_DBE", KB_XID_RESET_GPU },
		{ 63, "INFOROM_DRAM_RETIREMENT_EVENT", KB_XID_NONE },
		{ 64, "INFOROM_DRAM_RETIREMENT_FAILURE", KB_XID_RESET_GPU },
		{ 79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", KB_XID_REBOOT },
		{ 94, "ROBUST_CHANNEL_CONTAINED_ERROR", KB_XID_RESTART_APP },
		{ 95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", KB_XID_RESET_GPU },
		{ 119, "GSP_RPC_TIMEOUT", KB_XID_RESET_GPU },
		{ 144, "NVLINK_SAW_ERROR", KB_XID_DRAIN },
		{ 151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", KB_XID_REBOOT },
		{ 54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", KB_XID_INSPECT_HW },
	};
	struct kb_xid x;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_INT(kb_xid_find(kb, rows[i].xid, &x), 0);
		CHECK_INT(x.xid, rows[i].xid);
		CHECK_STR(x.name, rows[i].name);
		CHECK_INT(x.action, rows[i].a);
		CHECK(x.meaning != NULL && x.source != NULL);
		CHECK(strstr(x.source, "nvidia-xid-catalog") != NULL);
		CHECK(kb_source_url(kb, x.source) != NULL);
	}
	CHECK_INT(kb_xid_find(kb, 79, &x), 0);
	CHECK_STR(x.meaning, "GPU has fallen off the bus");
	CHECK_STR(x.nvidia_immediate, "RESTART_BM");
	CHECK_STR(x.nvidia_investigatory, "CONTACT_SUPPORT");
	/* no bucket in the catalogue: unknown, and our judgement says so */
	CHECK_INT(kb_xid_find(kb, 167, &x), 0);
	CHECK(x.nvidia_immediate == NULL);
	CHECK(strstr(x.source, "gpudoctor-xid-judgement") != NULL);
}

static void test_every_row(void)
{
	int n = kb_xid_count(kb);

	CHECK_INT(n, 172);
	for (int i = 0; i < n; i++) {
		const struct kb_xid *r = kb_xid_at(kb, i);

		CHECK(r != NULL && r->xid == i + 1);	/* 1..172, in order, once */
		CHECK(r && (unsigned)r->action < KB_XID_NACTIONS);
	}
	CHECK(kb_xid_at(kb, n) == NULL && kb_xid_at(kb, -1) == NULL);
}

static void test_unknown(void)
{
	struct kb_xid x;

	CHECK_INT(kb_xid_find(kb, 0, &x), -1);
	CHECK_INT(kb_xid_find(kb, 9999, &x), -1);
	CHECK_INT(kb_xid_find(NULL, 79, &x), -1);
}

static void test_action_names(void)
{
	enum kb_xid_action a;

	for (int i = 0; i < KB_XID_NACTIONS; i++) {
		CHECK_INT(kb_xid_action_parse(kb_xid_action_name((enum kb_xid_action)i), &a), 0);
		CHECK_INT(a, i);
	}
	CHECK_STR(kb_xid_action_name(KB_XID_INSPECT_HW), "inspect-hw");
	CHECK_INT(kb_xid_action_parse("reboot-now", &a), -1);
	CHECK_INT(kb_xid_action_parse(NULL, &a), -1);
}

static void put(const char *dir, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/xid.tsv", dir);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_kb_dir_override(void)
{
	static const char hdr[] = "xid\tname\tmeaning\taction\tnvidia_immediate\t"
				  "nvidia_investigatory\tsource\n";
	char dir[] = "/tmp/gd-kb-xid.XXXXXX", text[512], path[300];
	struct err e = ERR_INIT;
	struct kb *k = NULL;
	struct kb_xid x;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(text, sizeof(text), "%s79\tFALLEN\tgone\tdrain\t-\t-\tnvidia-xid-catalog\n", hdr);
	put(dir, text);
	CHECK_INT(kb_open(dir, &k, &e), 0);
	if (k) {
		CHECK_INT(kb_xid_count(k), 1);
		CHECK_INT(kb_xid_find(k, 79, &x), 0);
		CHECK_INT(x.action, KB_XID_DRAIN);
		CHECK_INT(kb_xid_find(k, 48, &x), -1);
		kb_close(k);
	}
	snprintf(text, sizeof(text), "%s79\tX\tgone\treboot-now\t-\t-\tnvidia-xid-catalog\n", hdr);
	put(dir, text);
	CHECK_INT(kb_open(dir, &k, &e), -1);
	CHECK(strstr(e.msg, "xid.tsv:2:") != NULL && strstr(e.msg, "action") != NULL);
	snprintf(text, sizeof(text), "%s7\tA\ta\tnone\t-\t-\tnvidia-xid-catalog\n"
		 "7\tB\tb\tnone\t-\t-\tnvidia-xid-catalog\n", hdr);
	put(dir, text);
	CHECK_INT(kb_open(dir, &k, &e), -1);
	CHECK(strstr(e.msg, "xid.tsv:3:") != NULL && strstr(e.msg, "twice") != NULL);
	snprintf(text, sizeof(text), "%s7\tA\ta\tnone\t-\t-\tmade-up\n", hdr);
	put(dir, text);
	CHECK_INT(kb_open(dir, &k, &e), -1);
	CHECK(strstr(e.msg, "made-up") != NULL);
	snprintf(path, sizeof(path), "%s/xid.tsv", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	struct err e = ERR_INIT;

	if (kb_open(NULL, &kb, &e) < 0) {
		printf("not ok 1 - kb_open: %s\n1..1\n", e.msg);
		return 1;
	}
	RUN(test_known_xids);
	RUN(test_every_row);
	RUN(test_unknown);
	RUN(test_action_names);
	RUN(test_kb_dir_override);
	kb_close(kb);
	return tap_done();
}
