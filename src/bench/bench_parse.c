/* bench_parse.c - child output into the bench model; see bench_parse.h. */
#include "bench/bench_parse.h"
#include "bench/bench_pcie.h"
#include "bench/bench_refusal.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench_set(char **dst, const char *val)
{
	free(*dst);
	*dst = xstrdup_or_null(val);
}

static double bench_get_pos(const struct kvlist *kv, const char *key)
{
	double v = kv_get_double(kv, key, NAN);

	return isfinite(v) && v >= 0 ? v : NAN;
}

void bench_parse_gpu(const struct kvlist *kv, struct bench_gpu *g)
{
	const char *s;
	char bdf[16];
	double v;

	bench_set(&g->name, kv_get(kv, "name"));
	if ((s = kv_get(kv, "pci")) && bench_pcie_normalize_bdf(s, bdf) == 0)
		bench_set(&g->pci, bdf);
	if ((s = kv_get(kv, "cc")) && sscanf(s, "%d.%d", &g->cc_major, &g->cc_minor) != 2)
		g->cc_major = g->cc_minor = -1;
	g->sms = (int)kv_get_ll(kv, "sms", -1);
	g->clock_mhz = bench_get_pos(kv, "clock_khz") / 1000.0;
	g->mem_clock_mhz = bench_get_pos(kv, "mem_clock_khz") / 1000.0;
	g->mem_total = kv_get_ll(kv, "mem_total", -1);
	g->mem_free = kv_get_ll(kv, "mem_free", -1);
	bench_set(&g->cublas, kv_get(kv, "cublas"));
	g->cublas_version = (int)kv_get_ll(kv, "cublas_version", -1);
	/* A child that loaded a foreign library is not trusted: its refusal
	 * is a strict record, and one that does not parse counts. */
	bench_refusal_read(kv, "refuse", CAUSE_GPU_COMPUTE_FAILED, &g->refused, &g->refused_msg, &g->bad_records);
	g->link.load_gts = bench_get_pos(kv, "link.load_gts");
	g->link.load_width = (int)kv_get_ll(kv, "link.load_width", -1);
	g->seconds = bench_get_pos(kv, "seconds");
	for (int k = 0; k < BENCH_NKINDS; k++) {
		struct bench_result *r = &g->results[k];
		const char *name = bench_kind_info(k)->name;

		if ((s = kv_getf(kv, "result.%s.value", name))) {
			char *end;

			v = strtod(s, &end);
			r->measured = *end == '\0' && isfinite(v) && v > 0;
			r->value = r->measured ? v : NAN;
		}
		bench_set(&r->method, kv_getf(kv, "result.%s.method", name));
		bench_set(&r->error, kv_getf(kv, "result.%s.error", name));
		if ((s = kv_getf(kv, "result.%s.size", name)))
			r->size = strtoll(s, NULL, 10);
		if ((s = kv_getf(kv, "result.%s.verified", name)))
			r->verified = atoi(s) ? 1 : 0;
		if ((s = kv_getf(kv, "result.%s.max_err", name)))
			r->max_err = strtod(s, NULL);
	}
}

void bench_parse_cpu(const struct kvlist *kv, struct bench_cpu *c)
{
	const char *s;

	bench_set(&c->impl, kv_get(kv, "cpu.impl"));
	bench_set(&c->library, kv_get(kv, "cpu.library"));
	c->threads = (int)kv_get_ll(kv, "cpu.threads", -1);
	c->n = kv_get_ll(kv, "cpu.n", -1);
	c->gflops = bench_get_pos(kv, "cpu.gflops");
	if ((s = kv_get(kv, "cpu.verified")))
		c->verified = atoi(s) ? 1 : 0;
	bench_set(&c->error, kv_get(kv, "cpu.error"));
	bench_set(&c->method, kv_get(kv, "cpu.method"));
	c->conv_gflops = bench_get_pos(kv, "cpu.conv_gflops");
	if ((s = kv_get(kv, "cpu.conv_verified")))
		c->conv_verified = atoi(s) ? 1 : 0;
	bench_set(&c->conv_method, kv_get(kv, "cpu.conv_method"));
}
