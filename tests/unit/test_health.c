/* test_health.c - health's verdict, line, watch state, reboot policy and Slurm plan. */
#include "health/health.h"
#include "core/buf.h"
#include "health/health_layers.h"
#include "health/health_slurm.h"
#include "health/health_state.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOT "0f3c6b9e-6c1d-4b53-9e83-8c3f6a3b0d11"

/* A finding as check or watch hands it to health: cause, status, scope. */
static void health_add(struct health *h, const char *cause, const char *gpu, enum status st,
		       const char *reason, int from_watch)
{
	struct finding f;

	memset(&f, 0, sizeof(f));
	f.cause = cause_from_id(cause);
	CHECK(f.cause != CAUSE_NONE);
	f.status = st;
	f.gpu = -1;
	if (gpu && strchr(gpu, ':'))
		f.pci = (char *)gpu;
	else if (gpu)
		f.gpu = atoi(gpu);
	f.title = (char *)reason;
	health_add_finding(h, &f, from_watch);
}

static void test_line_healthy(void)
{
	struct health h;

	health_init(&h);
	health_verdict(&h);
	CHECK_INT(h.verdict, HEALTH_OK);
	CHECK_INT(h.action, HEALTH_ACT_NONE);
	CHECK_STR(h.line, "gpudoctor: ok");
	health_add(&h, "persistence-mode-off", "0", STATUS_WARN, "persistence mode is off", 1);
	health_verdict(&h);
	CHECK_INT(h.verdict, HEALTH_OK);
	CHECK_STR(h.line, "gpudoctor: ok; warn persistence-mode-off 0 persistence mode is off");
	health_release(&h);
}

static void test_line_unhealthy_first_fail_wins(void)
{
	struct health h;

	health_init(&h);
	health_add(&h, "persistence-mode-off", "0", STATUS_WARN, "off", 0);
	health_add(&h, "nvml-failed", NULL, STATUS_FAIL, "nvmlInit failed: 999", 0);
	health_add(&h, "gpu-lost", "3", STATUS_FAIL, "GPU 3 fell off the bus", 1);
	health_set_unknown(&h, "ignored: a failure is known");
	health_verdict(&h);
	CHECK_INT(h.verdict, HEALTH_UNHEALTHY);
	CHECK_INT(h.action, HEALTH_ACT_DRAIN);
	CHECK_STR(health_cause(h.worst), "nvml-failed");
	CHECK_STR(h.line, "gpudoctor: nvml-failed - nvmlInit failed: 999 (+1 more)");
	health_release(&h);
}

static void test_line_unknown(void)
{
	struct health h;

	health_init(&h);
	health_add(&h, "persistence-mode-off", "0", STATUS_WARN, "off", 0);
	health_set_unknown(&h, "checks did not finish within 6.5 s");
	health_verdict(&h);
	CHECK_INT(h.verdict, HEALTH_UNKNOWN);
	CHECK_STR(h.line, "gpudoctor: unknown - checks did not finish within 6.5 s");
	health_release(&h);
}

static void test_line_is_cut_and_clean(void)
{
	struct health h;
	char reason[400];

	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memcpy(reason, "\x1b[31mred\ttab\n\xc3\xa9", 15);
	health_init(&h);
	health_add(&h, "ecc-errors", "12", STATUS_FAIL, reason, 1);
	health_add(&h, "ecc-errors", "13", STATUS_FAIL, "b", 1);
	health_verdict(&h);
	CHECK_INT(strlen(h.line), HEALTH_LINE_MAX);
	CHECK(strncmp(h.line, "gpudoctor: ecc-errors 12 ?[31mred tab ??xxx", 43) == 0);
	CHECK(strstr(h.line, "... (+1 more)") != NULL);
	for (const char *p = h.line; *p; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
	health_release(&h);
}

static void test_clean(void)
{
	char out[16];

	health_clean(out, sizeof(out), "  a \r\n b\x7f");
	CHECK_STR(out, "a b?");
	health_clean(out, 4, "abcdef");
	CHECK_STR(out, "abc");
	health_clean(out, sizeof(out), NULL);
	CHECK_STR(out, "");
}

static void test_gpu_of_finding(void)
{
	char g[24];

	health_gpu_of_finding("driver.gpu.3.ecc", g, sizeof(g));
	CHECK_STR(g, "3");
	health_gpu_of_finding("cuda.device.12", g, sizeof(g));
	CHECK_STR(g, "12");
	health_gpu_of_finding("hardware.driver.0000:17:00.0", g, sizeof(g));
	CHECK_STR(g, "0000:17:00.0");
	health_gpu_of_finding("kernel.module", g, sizeof(g));
	CHECK_STR(g, "-");
	health_gpu_of_finding("driver.gpu.$(x)", g, sizeof(g));
	CHECK_STR(g, "-");
	health_gpu_of_finding(NULL, g, sizeof(g));
	CHECK_STR(g, "-");
}

static void test_reboot_policy(void)
{
	struct health_item it = { 0 };

	it.cause = CAUSE_GPU_LOST;
	CHECK(health_item_needs_reboot(&it));
	it.cause = CAUSE_ECC_ERRORS;
	CHECK(!health_item_needs_reboot(&it));
	/* issue 22: the policy matched "xid-error", an id nobody emits; watch
	   emits gpu-xid-error with NVIDIA's action as a typed field. */
	it.cause = CAUSE_GPU_XID_ERROR;
	it.xid = 48;
	it.xid_action = KB_XID_RESET_GPU;
	CHECK(health_item_needs_reboot(&it));
	it.xid_action = KB_XID_REBOOT;
	CHECK(health_item_needs_reboot(&it));
	it.xid_action = KB_XID_RESTART_APP;
	CHECK(!health_item_needs_reboot(&it));
	it.xid_action = KB_XID_DRAIN;
	CHECK(!health_item_needs_reboot(&it));
	it.xid_action = KB_XID_INSPECT_HW;
	CHECK(!health_item_needs_reboot(&it));
	/* the action of another cause is its own, whatever XID it carries */
	it.cause = CAUSE_ECC_ERRORS;
	it.xid_action = KB_XID_REBOOT;
	CHECK(!health_item_needs_reboot(&it));
	CHECK(!health_item_needs_reboot(NULL));
}

static void parse_state(const char *text, const char *boot, long long now, long long max_age,
			struct health_state *st, struct health *h)
{
	health_init(h);
	health_state_parse(text, strlen(text), boot, now, max_age, st, h);
}

static void test_state_fresh(void)
{
	struct health_state st;
	struct health h;

	parse_state("version=2\nupdated=1000\nboot_id=" BOOT "\nstatus=fail\n"
		    "active=cause=gpu-lost status=fail layer=driver gpu=3 pci=0000:1b:00.0 xid=79 "
		    "action=reset-gpu title=GPU 3 fell off the bus\n"
		    "active=cause=persistence-mode-off status=warn title=off\n",
		    BOOT, 1100, 300, &st, &h);
	CHECK(st.present && st.used && st.fresh);
	CHECK_INT(st.age, 100);
	CHECK_INT(st.active, 2);
	CHECK_INT(st.taken, 2);
	CHECK_STR(st.status, "fail");
	CHECK_INT(h.n, 2);
	CHECK_STR(health_cause(&h.items[0]), "gpu-lost");
	CHECK_STR(h.items[0].gpu, "3");
	CHECK_STR(h.items[0].reason, "GPU 3 fell off the bus");
	CHECK(h.items[0].from_watch);
	CHECK_INT(h.items[0].xid, 79);
	CHECK_INT(h.items[0].xid_action, KB_XID_RESET_GPU);
	CHECK_STR(h.items[1].gpu, "-");
	CHECK_INT(h.items[1].status, STATUS_WARN);
	health_release(&h);
}

static void test_state_stale_and_other_boot(void)
{
	struct health_state st;
	struct health h;
	const char *text = "version=2\nupdated=1000\nboot_id=" BOOT "\n"
			   "active=cause=gpu-lost status=fail gpu=3 title=gone\n"
			   "active=cause=persistence-mode-off status=warn gpu=0 title=off\n";

	parse_state(text, BOOT, 5000, 300, &st, &h);
	CHECK(st.used && !st.fresh);
	CHECK_INT(h.n, 1);
	CHECK_STR(health_cause(&h.items[0]), "gpu-lost");
	CHECK(strstr(st.note, "4000 s old") != NULL);
	health_release(&h);

	parse_state(text, "another-boot", 1001, 300, &st, &h);
	CHECK(!st.used);
	CHECK_INT(h.n, 0);
	health_release(&h);

	/* No boot id to compare: only a fresh file counts. */
	parse_state(text, NULL, 1001, 300, &st, &h);
	CHECK(st.used);
	CHECK_INT(h.n, 2);
	health_release(&h);
	parse_state(text, NULL, 9001, 300, &st, &h);
	CHECK(!st.used);
	CHECK_INT(h.n, 0);
	health_release(&h);

	/* A clock that went backwards: age 0, fresh. */
	parse_state(text, BOOT, 10, 300, &st, &h);
	CHECK_INT(st.age, 0);
	CHECK(st.fresh);
	health_release(&h);
}

static void test_state_garbage(void)
{
	struct health_state st;
	struct health h;

	parse_state("version=2\nupdated=-5\nactive=\nactive=cause=gpu-lost\nactive=cause=Bad status=fail\n"
		    "active=cause=gpu-lost status=fail gpu=0123456789abcdef0\n"
		    "active=cause=gpu-lost status=FAIL\nnot a line\n\x01\x02=\xff",
		    BOOT, 100, 300, &st, &h);
	CHECK_INT(st.updated, -1);
	CHECK(!st.used);	/* no boot id and no update time */
	CHECK_INT(h.n, 0);
	health_release(&h);

	/* version 1 (free-text lines) is not read any more */
	parse_state("version=1\nupdated=100\nboot_id=" BOOT "\nactive=gpu-lost 0 fail x\n",
		    BOOT, 100, 300, &st, &h);
	CHECK(!st.used);
	CHECK(strstr(st.note, "version 1") != NULL);
	health_release(&h);

	/* An unknown id (the old "xid-error" included), status, field or XID
	   action is a counted parse error, never a free string. */
	parse_state("version=2\nupdated=100\nboot_id=" BOOT "\nactive=cause=Bad status=fail title=x\n"
		    "active=cause=xid-error status=fail gpu=0 title=x\n"
		    "active=cause=gpu-xid-error status=fail gpu=0 xid=48 action=panic title=x\n"
		    "active=cause=gpu-lost status=fail colour=red title=x\n"
		    "active=cause=ecc-errors status=fail xid=48 action=reboot title=x\n"
		    "active=cause=gpu-lost status=fail gpu=0\n",
		    BOOT, 100, 300, &st, &h);
	CHECK(st.used);
	CHECK_INT(st.malformed, 5);
	CHECK_INT(h.n, 1);
	CHECK_STR(h.items[0].reason, "reported by gpudoctor watch");
	health_release(&h);
}

/* Round 13's attacker: the state's status= is the daemon's word or nothing;
   before, any value under 8 bytes (an escape sequence) reached --json. */
static void test_state_status_words(void)
{
	struct health_state st;
	struct health h;

	parse_state("version=2\nupdated=100\nboot_id=" BOOT "\nstatus=\x1b[2J\n", BOOT, 100, 300, &st, &h);
	CHECK(st.used);
	CHECK_STR(st.status, "");
	health_release(&h);
	parse_state("version=2\nupdated=100\nboot_id=" BOOT "\nstatus=fail\n", BOOT, 100, 300, &st, &h);
	CHECK_STR(st.status, "fail");	/* the near miss */
	health_release(&h);
}

/* Round 13's attacker: the child's list is read up to HEALTH_LAYERS_MAX
   records; before, a failure after them was dropped without a word and the
   verdict was healthy.  Now each record past the bound counts as unreadable
   (the caller's verdict: unknown). */
static void test_layers_past_the_bound(void)
{
	struct kvlist kv = KVLIST_INIT;
	struct health h;
	struct buf b = BUF_INIT;
	int bad = 0, n;

	buf_printf(&b, "items=%d\n", HEALTH_LAYERS_MAX + 1);
	for (int i = 0; i < HEALTH_LAYERS_MAX; i++)
		buf_printf(&b, "item.%d=cause=persistence-mode-off status=warn layer=driver gpu=0 title=w\n", i);
	buf_printf(&b, "item.%d=cause=gpu-lost status=fail layer=driver gpu=1 title=gone\nend\n",
		   HEALTH_LAYERS_MAX);
	kvlist_parse(&kv, b.s, b.len);
	health_init(&h);
	n = health_layers_from_kv(&kv, &h, &bad);
	CHECK_INT(n, HEALTH_LAYERS_MAX);
	CHECK_INT(bad, 1);
	health_release(&h);
	kvlist_release(&kv);
	/* the near miss: a list within the bound is read whole, nothing bad */
	buf_reset(&b);
	buf_puts(&b, "items=1\nitem.0=cause=gpu-lost status=fail layer=driver gpu=1 title=gone\nend\n");
	kvlist_parse(&kv, b.s, b.len);
	health_init(&h);
	bad = 0;
	CHECK_INT(health_layers_from_kv(&kv, &h, &bad), 1);
	CHECK_INT(bad, 0);
	health_release(&h);
	kvlist_release(&kv);
	buf_release(&b);
}

#define NODE_IDLE "NodeName=n1 Arch=x86_64 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 " \
		  "BootTime=2026-11-30T08:18:42 Partitions=gd\n"

static void test_slurm_parse(void)
{
	struct slurm_node n;
	const char *drained = "NodeName=n1 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 "
			      "Reason=gpudoctor: gpu-lost 3 GPU 3 fell off the bus [root@2026-11-30T08:29:01]\n";

	slurm_node_parse(NODE_IDLE, strlen(NODE_IDLE), &n);
	CHECK(n.found);
	CHECK_STR(n.state, "IDLE");
	CHECK(!n.drain && !n.down && !n.unregistered && !n.reboot_pending);
	CHECK_STR(n.reason, "");

	slurm_node_parse(drained, strlen(drained), &n);
	CHECK(n.drain);
	CHECK_STR(n.reason, "gpudoctor: gpu-lost 3 GPU 3 fell off the bus");
	CHECK(slurm_reason_is_ours(n.reason));

	const char *other = "NodeName=n1 State=DOWN+DRAIN+NOT_RESPONDING Reason=fan [ops@2026-11-30T01:00:00] Comment=x\n";
	slurm_node_parse(other, strlen(other), &n);
	CHECK(n.drain && n.down && !n.unregistered);
	CHECK_STR(n.reason, "fan");
	CHECK(!slurm_reason_is_ours(n.reason));

	const char *unk = "NodeName=n1 State=UNKNOWN+NOT_RESPONDING Reason=(null)\n";
	slurm_node_parse(unk, strlen(unk), &n);
	CHECK(n.unregistered);
	CHECK_STR(n.reason, "");

	const char *rb = "NodeName=n1 State=IDLE+DRAIN+REBOOT_ISSUED Reason=gpudoctor: x [root@t]\n";
	slurm_node_parse(rb, strlen(rb), &n);
	CHECK(n.reboot_pending);

	slurm_node_parse("Node n9 not found\n", 18, &n);
	CHECK(!n.found);
	slurm_node_parse("", 0, &n);
	CHECK(!n.found);
	/* DRAINING is a flag of its own; UNDRAIN is not DRAIN. */
	const char *dr = "NodeName=n1 State=MIXED+DRAINING Reason=gpudoctor: a [root@t]";
	slurm_node_parse(dr, strlen(dr), &n);
	CHECK(n.drain);
	const char *ud = "NodeName=n1 State=IDLE+UNDRAIN";
	slurm_node_parse(ud, strlen(ud), &n);
	CHECK(!n.drain);
}

/* Round 13's attacker: the drain reason as Slurm shows it went through
   trim_reason(); a line holding " Comment=" or "[x@y]" never compared equal
   to it, so every run drained the node again (resetting its drain time). */
static void test_slurm_same_reason_round_trip(void)
{
	static const char *const titles[] = { "see [user@host] notes", "x Comment=y", "plain" };
	struct slurm_node n;
	struct slurm_plan p;
	struct health h;
	char rec[512];

	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++) {
		health_init(&h);
		health_add(&h, "gpu-lost", "1", STATUS_FAIL, titles[i], 0);
		health_verdict(&h);
		/* what scontrol shows after our drain: the reason, then Slurm's tail */
		snprintf(rec, sizeof(rec), "NodeName=n1 State=IDLE+DRAIN Reason=%s [root@2026-12-02T11:00:00]\n",
			 h.line);
		slurm_node_parse(rec, strlen(rec), &n);
		slurm_plan(&n, &h, 0, 0, &p);
		CHECK_INT(p.step, SLURM_NOTHING);
		health_release(&h);
	}
	/* near miss: another cause is drained again with the new reason */
	health_init(&h);
	health_add(&h, "ecc-errors", "1", STATUS_FAIL, "x Comment=y", 0);
	health_verdict(&h);
	snprintf(rec, sizeof(rec), "NodeName=n1 State=IDLE+DRAIN Reason=gpudoctor: gpu-lost 1 x [root@t]\n");
	slurm_node_parse(rec, strlen(rec), &n);
	slurm_plan(&n, &h, 0, 0, &p);
	CHECK_INT(p.step, SLURM_DRAIN);
	health_release(&h);
}

static void plan_tried(const char *rec, enum health_verdict v, const char *cause, int allow_reboot,
		       int tried, struct slurm_plan *p)
{
	struct slurm_node n;
	struct health h;

	health_init(&h);
	if (v == HEALTH_UNHEALTHY)
		health_add(&h, cause, "1", STATUS_FAIL, "broken", 0);
	if (v == HEALTH_UNKNOWN)
		health_set_unknown(&h, "timeout");
	health_verdict(&h);
	slurm_node_parse(rec, strlen(rec), &n);
	slurm_plan(&n, &h, allow_reboot, tried, p);
	health_release(&h);
}

static void plan_for(const char *rec, enum health_verdict v, const char *cause, int allow_reboot,
		     struct slurm_plan *p)
{
	plan_tried(rec, v, cause, allow_reboot, 0, p);
}

static void test_slurm_plan(void)
{
	struct slurm_plan p;
	const char *ours = "NodeName=n1 State=IDLE+DRAIN Reason=gpudoctor: ecc-errors 1 broken [root@t]";
	const char *ours_old = "NodeName=n1 State=IDLE+DRAIN Reason=gpudoctor: gpu-lost 0 x [root@t]";
	const char *foreign = "NodeName=n1 State=IDLE+DRAIN Reason=disk swap [ops@t]";
	const char *down = "NodeName=n1 State=DOWN Reason=Not responding [slurm@t]";

	plan_for(NODE_IDLE, HEALTH_OK, NULL, 0, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(NODE_IDLE, HEALTH_UNHEALTHY, "ecc-errors", 1, &p);
	CHECK_INT(p.step, SLURM_DRAIN);
	plan_for(NODE_IDLE, HEALTH_UNHEALTHY, "gpu-lost", 0, &p);
	CHECK_INT(p.step, SLURM_DRAIN);
	plan_for(NODE_IDLE, HEALTH_UNHEALTHY, "gpu-lost", 1, &p);
	CHECK_INT(p.step, SLURM_REBOOT);
	plan_tried(NODE_IDLE, HEALTH_UNHEALTHY, "gpu-lost", 1, 1, &p);
	CHECK_INT(p.step, SLURM_DRAIN);
	CHECK(strstr(p.why, "reboot did not clear") != NULL);
	plan_for(NODE_IDLE, HEALTH_UNKNOWN, NULL, 1, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(ours, HEALTH_UNHEALTHY, "ecc-errors", 0, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(ours_old, HEALTH_UNHEALTHY, "ecc-errors", 0, &p);
	CHECK_INT(p.step, SLURM_DRAIN);
	plan_for(ours, HEALTH_OK, NULL, 0, &p);
	CHECK_INT(p.step, SLURM_RESUME);
	plan_for(ours, HEALTH_UNKNOWN, NULL, 0, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(foreign, HEALTH_UNHEALTHY, "ecc-errors", 1, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(foreign, HEALTH_UNHEALTHY, "gpu-lost", 1, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(foreign, HEALTH_OK, NULL, 0, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for(down, HEALTH_UNHEALTHY, "ecc-errors", 0, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
	plan_for("NodeName=n1 State=UNKNOWN", HEALTH_UNHEALTHY, "ecc-errors", 0, &p);
	CHECK_INT(p.step, SLURM_SKIP);
	plan_for("", HEALTH_UNHEALTHY, "ecc-errors", 0, &p);
	CHECK_INT(p.step, SLURM_SKIP);
	plan_for("NodeName=n1 State=IDLE+DRAIN+REBOOT_REQUESTED Reason=gpudoctor: gpu-lost 1 broken [r@t]",
		 HEALTH_UNHEALTHY, "gpu-lost", 1, &p);
	CHECK_INT(p.step, SLURM_NOTHING);
}

static void test_slurm_argv(void)
{
	struct slurm_plan p = { SLURM_DRAIN, "" };
	struct health h;
	const char *argv[10];
	char bufs[4][320];

	health_init(&h);
	health_add(&h, "gpu-lost", "3", STATUS_FAIL, "GPU 3 \"fell\" off; $(rm -rf /)", 0);
	health_verdict(&h);
	CHECK_INT(slurm_plan_argv(&p, "/usr/bin/scontrol", "n1", &h, argv, bufs), 0);
	CHECK_STR(argv[0], "/usr/bin/scontrol");
	CHECK_STR(argv[1], "update");
	CHECK_STR(argv[2], "NodeName=n1");
	CHECK_STR(argv[3], "State=DRAIN");
	CHECK_STR(argv[4], "Reason=gpudoctor: gpu-lost 3 GPU 3 \"fell\" off; $(rm -rf /)");
	CHECK(argv[5] == NULL);
	p.step = SLURM_REBOOT;
	CHECK_INT(slurm_plan_argv(&p, "scontrol", "n1", &h, argv, bufs), 0);
	CHECK_STR(argv[1], "reboot");
	CHECK_STR(argv[2], "ASAP");
	CHECK_STR(argv[3], "nextstate=RESUME");
	CHECK(strncmp(argv[4], "reason=gpudoctor: gpu-lost 3 ", 29) == 0);
	CHECK_STR(argv[5], "--");
	CHECK_STR(argv[6], "n1");
	CHECK(argv[7] == NULL);
	p.step = SLURM_RESUME;
	CHECK_INT(slurm_plan_argv(&p, "scontrol", "n1", &h, argv, bufs), 0);
	CHECK_STR(argv[3], "State=RESUME");
	p.step = SLURM_SKIP;
	CHECK_INT(slurm_plan_argv(&p, "scontrol", "n1", &h, argv, bufs), -1);
	health_release(&h);
}

int main(void)
{
	RUN(test_line_healthy);
	RUN(test_line_unhealthy_first_fail_wins);
	RUN(test_line_unknown);
	RUN(test_line_is_cut_and_clean);
	RUN(test_clean);
	RUN(test_gpu_of_finding);
	RUN(test_reboot_policy);
	RUN(test_state_fresh);
	RUN(test_state_stale_and_other_boot);
	RUN(test_state_garbage);
	RUN(test_state_status_words);
	RUN(test_layers_past_the_bound);
	RUN(test_slurm_parse);
	RUN(test_slurm_plan);
	RUN(test_slurm_same_reason_round_trip);
	RUN(test_slurm_argv);
	return tap_done();
}
