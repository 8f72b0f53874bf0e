/* bench_deep_judge.c - check --deep's findings; see bench_deep.h. */
#include "bench/bench_deep.h"
#include "knowledge/causes.h"
#include "knowledge/severity.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The causes a cuDNN smoke child can end in; anything else it reports
 * (out of memory, a CUDA call failing) is counted as a failed cuDNN call,
 * since the CUDA layer below already passed. */
static enum cause_id deep_conv_cause(enum cause_id id)
{
	static const enum cause_id known[] = { CAUSE_CUDNN_NOT_INITIALIZED, CAUSE_CUDNN_NO_KERNEL_FOR_ARCH,
					       CAUSE_CUDNN_HANG, CAUSE_CUDNN_CALL_FAILED };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == id)
			return id;
	return CAUSE_CUDNN_CALL_FAILED;
}

static const char *deep_conv_fix(enum cause_id cause)
{
	if (cause == CAUSE_CUDNN_NOT_INITIALIZED)
		return "gpudoctor matrix --solve   # cuDNN's runtime could not start on this driver/GPU: a cuDNN built for a newer CUDA than the driver supports, or a GPU the process cannot open";
	if (cause == CAUSE_CUDNN_NO_KERNEL_FOR_ARCH)
		return "gpudoctor matrix --solve   # install a cuDNN release that still ships kernels for this GPU's architecture (cuDNN 9.11+ dropped pre-Turing GPUs)";
	if (cause == CAUSE_CUDNN_HANG)
		return "nvidia-smi; sudo dmesg | grep -i xid   # a GPU that hangs in a kernel needs a reset (sudo nvidia-smi -r -i <gpu>) or a reboot";
	if (cause == CAUSE_CUDNN_WRONG_RESULT)
		return "nvidia-smi -q -d ECC,ROW_REMAPPER; sudo dmesg | grep -i xid   # then gpudoctor bench; service the GPU if it repeats";
	return "gpudoctor bench --gpu 0   # runs the full cuDNN set and names the failing call";
}

static void deep_judge_conv(const struct bench_deep_gpu *g, struct report *rep)
{
	const struct bench_conv *c = &g->conv;
	const struct bench_conv_result *r = &c->r[0][0];
	char id[64], ver[32] = "cuDNN";
	struct finding *f;

	snprintf(id, sizeof(id), "libraries.cudnn-conv.gpu%d", g->index);
	if (c->cudnn_version > 0)
		snprintf(ver, sizeof(ver), "cuDNN %ld.%ld.%ld", c->cudnn_version / 10000, c->cudnn_version / 100 % 100,
			 c->cudnn_version % 100);
	if (c->refused == CAUSE_CUDNN_MISSING) {
		f = report_skip(rep, LAYER_LIBRARIES, id, "no cuDNN to run a convolution with on GPU %d", g->index);
		finding_evidence(f, "%s", c->refused_msg ? c->refused_msg : "libcudnn.so.9 / .8 did not load");
		return;
	}
	if (c->refused != CAUSE_NONE) {
		enum cause_id cause = deep_conv_cause(c->refused);

		f = report_add(rep, LAYER_LIBRARIES, id, cause, REACH_WORK,
			       "%s could not run a convolution on GPU %d", ver, g->index);
		finding_evidence(f, "%s", c->refused_msg ? c->refused_msg : cause_id_str(c->refused));
		if (c->cudnn)
			finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
		finding_fix(f, "%s", deep_conv_fix(cause));
		return;
	}
	if (r->verified == 0) {
		f = report_add(rep, LAYER_LIBRARIES, id, CAUSE_CUDNN_WRONG_RESULT, REACH_WORK,
			       "%s computed a convolution wrongly on GPU %d", ver, g->index);
		finding_evidence(f, "FP32 forward %s, algorithm %d: %lld outputs against a float64 CPU reference, worst relative error %.3g",
				 c->shape ? c->shape : "", r->algo, g->checked, r->max_err);
		if (c->cudnn)
			finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
		finding_fix(f, "%s", deep_conv_fix(CAUSE_CUDNN_WRONG_RESULT));
		return;
	}
	if (r->verified != 1) {
		f = report_add(rep, LAYER_LIBRARIES, id, CAUSE_CUDNN_CALL_FAILED, REACH_WORK,
			       "%s's convolution on GPU %d gave no result", ver, g->index);
		finding_evidence(f, "the cuDNN child ended without a checked output");
		finding_fix(f, "%s", deep_conv_fix(CAUSE_CUDNN_CALL_FAILED));
		return;
	}
	f = report_ok(rep, LAYER_LIBRARIES, id, "%s computes a convolution correctly on GPU %d", ver, g->index);
	finding_evidence(f, "FP32 forward %s, algorithm %d: %lld outputs match a float64 CPU reference (worst relative error %.2g); the convolution took %.1f ms, the child %.2f s",
			 c->shape ? c->shape : "", r->algo, g->checked, r->max_err, g->smoke_ms, g->child_s);
	if (c->cudnn)
		finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
}

static void deep_judge_nccl(const struct bench_deep *d, struct report *rep)
{
	const struct bench_nccl *n = &d->nccl;
	struct finding *f;

	if (!n->ran)
		return;
	if (n->refused == CAUSE_NCCL_MISSING) {
		f = report_skip(rep, LAYER_LIBRARIES, "libraries.nccl-allreduce", "no NCCL to run an all-reduce with");
		finding_evidence(f, "%s", n->refused_msg ? n->refused_msg : "libnccl.so.2 did not load");
		return;
	}
	if (n->refused != CAUSE_NONE || n->verified != 1) {
		enum cause_id cause = n->refused == CAUSE_NCCL_HANG ? CAUSE_NCCL_HANG : CAUSE_NCCL_CALL_FAILED;

		f = report_add(rep, LAYER_LIBRARIES, "libraries.nccl-allreduce", cause, REACH_WORK,
			       n->refused ? "NCCL could not run an all-reduce over %d GPUs" : "an NCCL all-reduce over %d GPUs gave wrong sums",
			       d->gpus);
		finding_evidence(f, "%s", n->refused_msg ? n->refused_msg :
				 "1 MiB of FP32 rank+1 on every GPU did not sum to n(n+1)/2 everywhere");
		if (n->nccl_warning)
			finding_evidence(f, "NCCL WARN %s", n->nccl_warning);
		if (n->topology)
			finding_evidence(f, "NCCL chose: %s", n->topology);
		finding_fix(f, "%s", cause == CAUSE_NCCL_HANG
			    ? "df -h /dev/shm   # docker: --shm-size=1g or --ipc=host; then NCCL_P2P_DISABLE=1 gpudoctor check --deep tells a broken P2P path (IOMMU/ACS) from the rest"
			    : "NCCL_DEBUG=INFO gpudoctor bench   # NCCL's WARN lines name the failing step; nvidia-smi topo -m");
		return;
	}
	f = report_ok(rep, LAYER_LIBRARIES, "libraries.nccl-allreduce", "NCCL all-reduces correctly over %d GPUs", d->gpus);
	finding_evidence(f, "1 MiB FP32 all-reduce, sums checked on every GPU, %.1f ms; the child (ncclCommInitAll included) %.2f s",
			 d->nccl_check_ms, d->nccl_child_s);
	if (n->topology)
		finding_evidence(f, "NCCL chose: %s", n->topology);
}

void bench_deep_judge(const struct bench_deep *d, struct report *rep)
{
	if (!d->ran)
		return;
	for (size_t i = 0; i < d->n; i++)
		deep_judge_conv(&d->g[i], rep);
	deep_judge_nccl(d, rep);
}

void bench_deep_check(const struct gd_ctx *ctx, const struct inventory *inv, struct report *rep)
{
	struct bench_deep d;

	bench_deep_init(&d);
	bench_deep_paths(ctx, inv, &d);
	bench_deep_probe(ctx, &d);
	bench_deep_judge(&d, rep);
	bench_deep_release(&d);
}
