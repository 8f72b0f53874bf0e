/* bench_json_dnn.c - the cuDNN and NCCL parts of the bench JSON; see bench_render.h. */
#include "bench/bench_render.h"
#include "core/json.h"

#include <math.h>

static const char *const dir_names[BENCH_CONV_DIRS] = { "fwd", "bwd_data", "bwd_filter" };
static const char *const coll_names[BENCH_NCCL_COLLS] = { "all_reduce", "all_gather", "reduce_scatter" };

static double bj_round1(double v)
{
	return isnan(v) ? NAN : round(v * 10) / 10;
}

void bench_render_json_conv(struct json *j, const struct bench_conv *c)
{
	if (!c->ran) {
		json_null(j, "conv");
		return;
	}
	json_obj_begin(j, "conv");
	json_str(j, "cudnn", c->cudnn);
	json_int_nonneg(j, "cudnn_version", c->cudnn_version);
	json_str(j, "api", "legacy cudnnFind*AlgorithmEx + cudnnConvolution{Forward,BackwardData,BackwardFilter}");
	json_str(j, "shape", c->shape);
	json_str(j, "layout", "NHWC activations, KRSC filters");
	json_num(j, "flops_per_pass", c->flops);
	json_int(j, "bad_records", c->bad_records);
	if (c->refused != CAUSE_NONE) {
		json_obj_begin(j, "refused");
		json_str(j, "cause", cause_id_str(c->refused));
		json_str(j, "message", c->refused_msg);
		json_obj_end(j);
	} else {
		json_null(j, "refused");
	}
	json_arr_begin(j, "results");
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			const struct bench_conv_result *r = &c->r[d][p];

			if (!r->measured && !r->error)
				continue;
			json_obj_begin(j, NULL);
			json_str(j, "direction", dir_names[d]);
			json_str(j, "precision", bench_conv_prec_name(p));
			json_num(j, "tflops", r->value);
			json_num(j, "ms", r->ms);
			json_num(j, "ceiling_tflops", r->ceiling);
			json_num(j, "percent", bj_round1(r->percent));
			if (r->algo >= 0)
				json_int(j, "algo", r->algo);
			else
				json_null(j, "algo");
			json_str(j, "math", r->math);
			json_int_nonneg(j, "workspace_bytes", r->workspace);
			json_tribool(j, "verified", r->verified);
			json_num(j, "max_rel_error", r->max_err);
			json_str(j, "error", r->error);
			json_str(j, "cause", cause_id_str(r->cause));
			json_obj_end(j);
		}
	json_arr_end(j);
	json_num(j, "seconds", c->seconds);
	json_obj_end(j);
}

void bench_render_json_nccl(struct json *j, const struct bench_nccl *n)
{
	if (!n->ran && !n->skipped) {
		json_null(j, "nccl");
		return;
	}
	json_obj_begin(j, "nccl");
	json_str(j, "library", n->library);
	json_int_nonneg(j, "version_code", n->version_code);
	json_int_nonneg(j, "gpus", n->gpus);
	json_str(j, "skipped", n->skipped);
	json_int(j, "bad_records", n->bad_records);
	if (n->refused != CAUSE_NONE) {
		json_obj_begin(j, "refused");
		json_str(j, "cause", cause_id_str(n->refused));
		json_str(j, "message", n->refused_msg);
		json_obj_end(j);
	} else {
		json_null(j, "refused");
	}
	json_tribool(j, "verified", n->verified);
	json_str(j, "link", n->link);
	json_str(j, "topology", n->topology);
	json_int(j, "nccl_info_lines", n->nccl_lines);
	json_str(j, "nccl_warning", n->nccl_warning);
	json_int_nonneg(j, "nvlinks", n->nvlinks);
	json_int_nonneg(j, "nvlink_version", n->nvlink_version);
	json_num(j, "ceiling_gbs", n->ceiling_gbs);
	json_str(j, "ceiling_source", n->ceiling_source);
	json_obj_begin(j, "collectives");
	for (int c = 0; c < BENCH_NCCL_COLLS; c++) {
		json_obj_begin(j, coll_names[c]);
		json_num(j, "latency_us", n->latency_us[c]);
		json_num(j, "peak_busbw_gbs", n->peak_busbw[c]);
		json_num(j, "percent", bj_round1(n->percent[c]));
		json_arr_begin(j, "points");
		for (size_t i = 0; i < n->npts[c]; i++) {
			json_obj_begin(j, NULL);
			json_int(j, "bytes", n->pts[c][i].bytes);
			json_num(j, "us", n->pts[c][i].us);
			json_num(j, "algbw_gbs", n->pts[c][i].algbw);
			json_num(j, "busbw_gbs", n->pts[c][i].busbw);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < n->rep.n; i++)
		bench_render_json_finding(j, &n->rep.findings[i], 0);
	json_arr_end(j);
	json_num(j, "seconds", n->seconds);
	json_obj_end(j);
}

void bench_render_json_finding(struct json *j, const struct finding *f, int with_result)
{
	struct buf ev = BUF_INIT;

	/* bench's schema keeps one evidence string: the lines, joined. */
	for (size_t k = 0; k < f->nevidence; k++)
		buf_printf(&ev, "%s%s", k ? "; " : "", f->evidence[k]);
	json_obj_begin(j, NULL);
	json_str(j, "severity", bench_finding_word(f));
	json_str(j, "cause", cause_id_str(f->cause));
	if (with_result)
		json_str(j, "result", f->id);
	json_str(j, "title", f->title);
	json_str(j, "evidence", f->nevidence ? ev.s : NULL);
	json_str(j, "fix", f->fix);
	json_obj_end(j);
	buf_release(&ev);
}
