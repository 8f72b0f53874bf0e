/* bench_parse_dnn.c - the cuDNN and NCCL children's output into the model; see bench_parse.h. */
#include "bench/bench_coll.h"
#include "bench/bench_ncclinfo.h"
#include "bench/bench_parse.h"
#include "bench/bench_refusal.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[BENCH_CONV_DIRS] = { "fwd", "bwd_data", "bwd_filter" };

/* Text from a child that loaded a foreign library (its error strings, the
 * paths it saw) is kept as it came: the text renderers escape it for the
 * terminal (core/termesc.h), the JSON writer for JSON. */
static void bp_set(char **dst, const char *val)
{
	free(*dst);
	*dst = xstrdup_or_null(val);
}

static double bp_pos(const char *s)
{
	char *end;
	double v;

	if (!s)
		return NAN;
	v = strtod(s, &end);
	return *end == '\0' && isfinite(v) && v >= 0 ? v : NAN;
}

void bench_parse_conv(const struct kvlist *kv, struct bench_conv *c)
{
	const char *s;
	char key[96];

	c->ran = 1;
	bp_set(&c->cudnn, kv_get(kv, "conv.cudnn"));
	c->cudnn_version = (long)kv_get_ll(kv, "conv.cudnn_version", -1);
	bp_set(&c->shape, kv_get(kv, "conv.shape"));
	c->flops = bp_pos(kv_get(kv, "conv.flops"));
	bench_refusal_read(kv, "conv.refuse", CAUSE_CUDNN_CALL_FAILED, &c->refused, &c->refused_msg, &c->bad_records);
	c->seconds = bp_pos(kv_get(kv, "conv.seconds"));
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			struct bench_conv_result *r = &c->r[d][p];
			const char *pn = bench_conv_prec_name(p);

			r->value = bp_pos(kv_getf(kv, "conv.%s.%s.value", dir_names[d], pn));
			r->measured = r->value > 0;
			if (!r->measured)
				r->value = NAN;
			r->ms = bp_pos(kv_getf(kv, "conv.%s.%s.ms", dir_names[d], pn));
			r->algo = (int)strtol((s = kv_getf(kv, "conv.%s.%s.algo", dir_names[d], pn)) ? s : "-1", NULL, 10);
			bp_set(&r->math, kv_getf(kv, "conv.%s.%s.math", dir_names[d], pn));
			if ((s = kv_getf(kv, "conv.%s.%s.workspace", dir_names[d], pn)))
				r->workspace = strtoll(s, NULL, 10);
			if ((s = kv_getf(kv, "conv.%s.%s.verified", dir_names[d], pn)))
				r->verified = atoi(s) ? 1 : 0;
			r->max_err = bp_pos(kv_getf(kv, "conv.%s.%s.max_err", dir_names[d], pn));
			snprintf(key, sizeof(key), "conv.%s.%s.refuse", dir_names[d], pn);
			bench_refusal_read(kv, key, CAUSE_CUDNN_CALL_FAILED, &r->cause, &r->error, &c->bad_records);
		}
}

static void bp_nccl_points(const struct kvlist *kv, struct bench_nccl *n, int c)
{
	const char *name = bench_coll_name(c);

	for (int i = 0; i < 64; i++) {
		const char *b = kv_getf(kv, "nccl.%s.%d.bytes", name, i);
		double us = bp_pos(kv_getf(kv, "nccl.%s.%d.us", name, i)), bytes = bp_pos(b);
		struct bench_nccl_point *pt;

		if (!b)
			break;
		if (isnan(bytes) || isnan(us))
			continue;
		n->pts[c] = xrealloc(n->pts[c], (n->npts[c] + 1) * sizeof(*pt));
		pt = &n->pts[c][n->npts[c]++];
		pt->bytes = (long long)bytes;
		pt->us = us;
		pt->algbw = bench_coll_algbw(bytes, us / 1e6);
		pt->busbw = bench_coll_busbw(c, n->gpus, bytes, us / 1e6);
		if (n->npts[c] == 1)
			n->latency_us[c] = us;
		if (isfinite(pt->busbw) && (isnan(n->peak_busbw[c]) || pt->busbw > n->peak_busbw[c]))
			n->peak_busbw[c] = pt->busbw;
	}
}

/* The link between the GPUs: the fewest active NVLinks of any GPU, and
 * their generation (from NVML's version enum and the compute capability). */
static void bp_nccl_nvlinks(const struct kvlist *kv, struct bench_nccl *n)
{
	int fewest = -1, ver = -1;

	for (int i = 0; i < n->gpus && i < 64; i++) {
		const char *s = kv_getf(kv, "nccl.gpu.%d.nvlinks", i), *v = kv_getf(kv, "nccl.gpu.%d.nvlink_version", i);
		const char *cc = kv_getf(kv, "nccl.gpu.%d.cc_major", i);
		int gen;

		if (!s) {
			fewest = -1;
			break;
		}
		if (fewest < 0 || atoi(s) < fewest)
			fewest = atoi(s);
		gen = v ? bench_nvlink_generation(atoi(v), cc ? atoi(cc) : -1) : -1;
		if (gen > ver)
			ver = gen;
	}
	n->nvlinks = fewest;
	n->nvlink_version = ver;
}

void bench_parse_nccl(const struct kvlist *kv, const char *log, size_t loglen, struct bench_nccl *n)
{
	struct bench_nccl_topo t;
	char line[400];
	const char *link;

	n->ran = 1;
	bp_set(&n->library, kv_get(kv, "nccl.library"));
	n->version_code = (int)kv_get_ll(kv, "nccl.version_code", -1);
	n->gpus = (int)kv_get_ll(kv, "nccl.gpus", -1);
	bp_set(&n->skipped, kv_get(kv, "nccl.skipped"));
	bench_refusal_read(kv, "nccl.refuse", CAUSE_NCCL_CALL_FAILED, &n->refused, &n->refused_msg, &n->bad_records);
	n->verified = (int)kv_get_ll(kv, "nccl.verified", -1);
	n->seconds = bp_pos(kv_get(kv, "nccl.seconds"));
	for (int c = 0; c < BENCH_NCCL_COLLS; c++)
		bp_nccl_points(kv, n, c);
	bp_nccl_nvlinks(kv, n);
	bench_ncclinfo_parse(log ? log : "", log ? loglen : 0, &t);
	n->nccl_lines = t.lines;
	if (t.lines) {
		bp_set(&n->topology, bench_ncclinfo_summary(&t, line, sizeof(line)));
		link = bench_ncclinfo_link(&t);
		bp_set(&n->link, link);
		if (t.warnings)
			bp_set(&n->nccl_warning, t.first_warning);
	}
}
