/* bench_json.c - the bench run as JSON, schema gpudoctor.bench/1; see bench_render.h. */
#include "bench/bench_judge.h"
#include "bench/bench_render.h"
#include "core/ctx.h"
#include "core/json.h"

#include <math.h>
#include <stdio.h>


const char *bench_run_status(const struct bench_run *r)
{
	if (r->refused != CAUSE_NONE)
		return "refused";
	for (size_t i = 0; i < r->ngpus; i++)
		if (r->gpus[i].refused != CAUSE_NONE)
			return "refused";
	switch (bench_judge_worst(r)) {
	case STATUS_FAIL:
		return "fail";
	case STATUS_WARN:
		return "warn";
	default:
		return "ok";
	}
}

static void bench_json_refusal(struct json *j, enum cause_id cause, const char *msg)
{
	if (cause == CAUSE_NONE) {
		json_null(j, "refused");
		return;
	}
	json_obj_begin(j, "refused");
	json_str(j, "cause", cause_id_str(cause));
	json_str(j, "message", msg);
	json_obj_end(j);
}

static void bench_json_gpu(struct json *j, const struct bench_gpu *g)
{
	char id[16];

	json_obj_begin(j, NULL);
	json_int(j, "index", g->index);
	json_str(j, "name", g->name);
	json_str(j, "pci", g->pci);
	if (g->pci_vendor) {
		snprintf(id, sizeof(id), "%04x:%04x", g->pci_vendor, g->pci_device);
		json_str(j, "pci_id", id);
	} else {
		json_null(j, "pci_id");
	}
	if (g->cc_major >= 0) {
		snprintf(id, sizeof(id), "%d.%d", g->cc_major, g->cc_minor);
		json_str(j, "compute_capability", id);
	} else {
		json_null(j, "compute_capability");
	}
	json_int_nonneg(j, "sms", g->sms);
	json_num(j, "clock_mhz", g->clock_mhz);
	json_int_nonneg(j, "memory_total_bytes", g->mem_total);
	json_int_nonneg(j, "memory_free_bytes", g->mem_free);
	json_str(j, "cublas", g->cublas);
	json_int_nonneg(j, "cublas_version", g->cublas_version);
	bench_json_refusal(j, g->refused, g->refused_msg);
	json_int(j, "bad_records", g->bad_records);
	json_obj_begin(j, "link");
	json_num(j, "current_gts", g->link.cur_gts);
	json_int_nonneg(j, "current_width", g->link.cur_width);
	json_num(j, "max_gts", g->link.max_gts);
	json_int_nonneg(j, "max_width", g->link.max_width);
	json_num(j, "slot_max_gts", g->link.port_max_gts);
	json_int_nonneg(j, "slot_max_width", g->link.port_max_width);
	json_num(j, "under_load_gts", g->link.load_gts);
	json_int_nonneg(j, "under_load_width", g->link.load_width);
	json_obj_end(j);
	json_obj_begin(j, "ceilings");
	json_num(j, "pcie_gbs", g->pcie_gbs);
	json_num(j, "pcie_current_gbs", g->pcie_cur_gbs);
	json_str(j, "pcie_link", g->pcie_label);
	json_num(j, "memory_gbs", g->mem_gbs);
	json_num(j, "fp32_tflops", g->fp32_tflops);
	json_num(j, "tf32_tflops", g->tf32_tflops);
	json_num(j, "fp16_tflops", g->fp16_tflops);
	json_num(j, "bf16_tflops", g->bf16_tflops);
	json_str(j, "datasheet_source", g->kb_source);
	json_obj_end(j);
	json_arr_begin(j, "results");
	for (int k = 0; k < BENCH_NKINDS; k++) {
		const struct bench_result *r = &g->results[k];
		const struct bench_kind_info *ki = bench_kind_info(k);

		if (!r->measured && !r->error)
			continue;
		json_obj_begin(j, NULL);
		json_str(j, "name", ki->name);
		json_str(j, "label", ki->label);
		json_str(j, "unit", ki->unit);
		json_num(j, "value", r->value);
		json_num(j, "ceiling", r->ceiling);
		json_str(j, "ceiling_source", r->ceiling_source);
		json_num(j, "percent", isnan(r->percent) ? NAN : round(r->percent * 10) / 10);
		json_int_nonneg(j, ki->is_gemm ? "n" : "bytes", r->size);
		if (ki->is_gemm) {
			json_tribool(j, "verified", r->verified);
			json_num(j, "max_rel_error", r->max_err);
		}
		json_str(j, "method", r->method);
		json_str(j, "error", r->error);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < g->rep.n; i++)
		bench_render_json_finding(j, &g->rep.findings[i], 1);
	json_arr_end(j);
	bench_render_json_conv(j, &g->conv);
	json_num(j, "seconds", g->seconds);
	json_obj_end(j);
}

void bench_render_json(const struct bench_run *r, struct buf *out)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", BENCH_SCHEMA);
	json_str(&j, "gpudoctor", GD_VERSION);
	json_bool(&j, "quick", r->quick);
	json_str(&j, "status", bench_run_status(r));
	bench_json_refusal(&j, r->refused, r->refused_msg);
	json_arr_begin(&j, "gpus");
	for (size_t i = 0; i < r->ngpus; i++)
		bench_json_gpu(&j, &r->gpus[i]);
	json_arr_end(&j);
	json_obj_begin(&j, "cpu");
	json_str(&j, "impl", r->cpu.impl);
	json_str(&j, "library", r->cpu.library);
	json_int_nonneg(&j, "threads", r->cpu.threads);
	json_int_nonneg(&j, "n", r->cpu.n);
	json_num(&j, "sgemm_gflops", r->cpu.gflops);
	json_tribool(&j, "verified", r->cpu.verified);
	json_num(&j, "gpu_fp32_speedup", isnan(r->cpu.speedup) ? NAN : round(r->cpu.speedup * 10) / 10);
	json_str(&j, "method", r->cpu.method);
	json_str(&j, "error", r->cpu.error);
	json_num(&j, "conv_gflops", r->cpu.conv_gflops);
	json_tribool(&j, "conv_verified", r->cpu.conv_verified);
	json_str(&j, "conv_method", r->cpu.conv_method);
	json_num(&j, "gpu_conv_speedup", isnan(r->cpu.conv_speedup) ? NAN : round(r->cpu.conv_speedup * 10) / 10);
	json_obj_end(&j);
	bench_render_json_nccl(&j, &r->nccl);
	json_arr_begin(&j, "notes");
	json_str(&j, NULL, "d2d counts bytes read plus bytes written (2 x size / time), like the datasheet memory bandwidth and PyTorch-style copy benchmarks");
	json_str(&j, NULL, "GEMM TFLOP/s count 2*n^3 operations per m=n=k=n product");
	json_arr_end(&j);
	json_num(&j, "seconds", r->seconds);
	json_obj_end(&j);
	buf_puts(out, j.out.s);
	buf_addc(out, '\n');
	json_release(&j);
}
