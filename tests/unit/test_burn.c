/* test_burn.c - burn's child-line parser and its verdict on recorded runs:
 * throughput that falls, the slowest GPU of a node, near misses. */
#include "tap.h"

#include "burn/burn.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A GPU of n one-second ticks whose throughput is tf(i). */
static void fake_gpu(struct burn_gpu *g, int index, size_t n, double (*tf)(size_t))
{
	char line[96];

	memset(g, 0, sizeof(*g));
	g->index = index;
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "tick.%zu.t=%zu", i, i + 1);
		burn_parse_line(g, line);
		snprintf(line, sizeof(line), "tick.%zu.gemms=100", i);
		burn_parse_line(g, line);
		snprintf(line, sizeof(line), "tick.%zu.tflops=%.1f", i, tf(i));
		burn_parse_line(g, line);
	}
	burn_parse_line(g, "gemms=30000");
	burn_parse_line(g, "mem_passes=300");
}

static double flat(size_t i) { (void)i; return 640.0; }
static double slow(size_t i) { (void)i; return 500.0; }
static double falling(size_t i) { return i < 60 ? 650.0 : 520.0; }
static double wobble(size_t i) { return i % 2 ? 630.0 : 650.0; }

static int has(const struct report *r, enum cause_id c)
{
	return report_find_cause(r, c) != NULL;
}

static void judge(struct burn_gpu *gpus, size_t n, struct report *r)
{
	struct burn_run run;
	struct burn_opts o = { .margin = 0.10 };

	burn_run_init(&run);
	run.gpus = gpus;
	run.ngpus = n;
	report_init(r);
	burn_judge(&run, &o, r);
}

static void release(struct burn_gpu *gpus, size_t n, struct report *r)
{
	for (size_t i = 0; i < n; i++)
		free(gpus[i].ticks);
	report_release(r);
}

static void test_parse_lines(void)
{
	struct burn_gpu g;

	memset(&g, 0, sizeof(g));
	burn_parse_line(&g, "tick.2.tflops=612.5");
	burn_parse_line(&g, "tick.2.bad_gemms=1");
	burn_parse_line(&g, "sdc=t=3.00 product=40 row=3");
	burn_parse_line(&g, "tick.99999999999.t=1");	/* absurd index: ignored */
	burn_parse_line(&g, "no equals sign");
	CHECK_INT(g.nticks, 3);
	CHECK(fabs(g.ticks[2].tflops - 612.5) < 1e-9);
	CHECK_INT(g.ticks[2].bad_gemms, 1);
	CHECK_INT(g.nsdc, 1);
	CHECK_STR(g.sdc[0], "t=3.00 product=40 row=3");
	free(g.ticks);
}

static void test_throughput_that_falls_is_named(void)
{
	struct burn_gpu g[1];
	struct report r;

	fake_gpu(&g[0], 0, 300, falling);
	judge(g, 1, &r);
	CHECK(has(&r, CAUSE_GPU_THROUGHPUT_DEGRADED));
	CHECK_INT(r.status, STATUS_WARN);
	release(g, 1, &r);
	/* near miss: +-2 % around the same mean is no drop */
	fake_gpu(&g[0], 0, 300, wobble);
	judge(g, 1, &r);
	CHECK(!has(&r, CAUSE_GPU_THROUGHPUT_DEGRADED));
	CHECK_INT(r.status, STATUS_OK);
	release(g, 1, &r);
}

static void test_slowest_gpu_of_the_node(void)
{
	struct burn_gpu g[4];
	struct report r;

	fake_gpu(&g[0], 0, 120, flat);
	fake_gpu(&g[1], 1, 120, flat);
	fake_gpu(&g[2], 2, 120, slow);
	fake_gpu(&g[3], 3, 120, flat);
	judge(g, 4, &r);
	CHECK(has(&r, CAUSE_GPU_SLOWEST_IN_NODE));
	CHECK(r.n > 0 && strstr(report_find_cause(&r, CAUSE_GPU_SLOWEST_IN_NODE)->title, "GPU 2") != NULL);
	release(g, 4, &r);
	/* near miss: four equal GPUs; and one GPU alone is never "slowest" */
	for (int i = 0; i < 4; i++)
		fake_gpu(&g[i], i, 120, flat);
	judge(g, 4, &r);
	CHECK(!has(&r, CAUSE_GPU_SLOWEST_IN_NODE));
	release(g, 4, &r);
	fake_gpu(&g[0], 0, 120, slow);
	judge(g, 1, &r);
	CHECK(!has(&r, CAUSE_GPU_SLOWEST_IN_NODE));
	release(g, 1, &r);
}

static void test_refusal_and_missing_cublas(void)
{
	struct burn_gpu g[1];
	struct report r;

	memset(g, 0, sizeof(g));
	/* a refusal is one finding record (report/finding_record.h) */
	burn_parse_line(&g[0], "refuse=cause=cublas-missing status=fail layer=libraries title=no cuBLAS could be loaded");
	CHECK_INT(g[0].refuse, CAUSE_CUBLAS_MISSING);
	CHECK_STR(g[0].refuse_msg, "no cuBLAS could be loaded");
	CHECK_INT(g[0].bad_records, 0);
	judge(g, 1, &r);
	CHECK(has(&r, CAUSE_CUBLAS_MISSING));
	CHECK_INT(r.status, STATUS_FAIL);
	release(g, 1, &r);
	/* an id the catalogue does not know, or the old free string, is not
	 * passed through: counted, and a failed compute */
	memset(g, 0, sizeof(g));
	burn_parse_line(&g[0], "refuse=cause=made-up-id status=fail layer=hardware title=x");
	CHECK_INT(g[0].bad_records, 1);
	burn_parse_line(&g[0], "refuse=cublas-missing");
	CHECK_INT(g[0].bad_records, 2);
	CHECK_INT(g[0].refuse, CAUSE_GPU_COMPUTE_FAILED);
	judge(g, 1, &r);
	CHECK(has(&r, CAUSE_GPU_COMPUTE_FAILED));
	release(g, 1, &r);
}

int main(void)
{
	RUN(test_parse_lines);
	RUN(test_throughput_that_falls_is_named);
	RUN(test_slowest_gpu_of_the_node);
	RUN(test_refusal_and_missing_cublas);
	return tap_done();
}
