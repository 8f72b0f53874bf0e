/*
 * bench_judge.h - the one judge of what bench's children measured: `gpudoctor
 * bench`'s full figures and `check --deep`'s smoke runs alike become
 * report/'s findings, so a cuDNN convolution that fails or computes wrongly,
 * or an NCCL all-reduce that does, is judged by the same code with the same
 * cause ids and the same status (finding_status()) in both commands.
 *
 * Thresholds (percent of the ceiling, see bench_ceiling.h), chosen well
 * below what a healthy machine reaches so that noise is not a finding:
 * pinned host<->device copies under 60 % of the link (healthy Gen4/Gen5 x16
 * links give 80-90 %), device-to-device copies under 70 % of the datasheet
 * memory bandwidth (an H200 gives about 90 %), GEMMs under 50 % of the
 * datasheet dense peak (cuBLAS reaches 70-80 % on large sizes), pageable
 * copies under half of pinned ones.  A GEMM that does not match its
 * reference is a failure.
 *
 *	bench_judge_gpu(&run->gpus[i]);		// bench: into g->rep
 *	bench_judge_nccl(&run->nccl, &at, &run->nccl.rep);
 *	bench_judge_cpu(run);
 *	exit_status = bench_judge_worst(run) == STATUS_FAIL;
 *	bench_judge_deep(&deep, rep);		// check --deep: into check's report
 */
#ifndef GD_BENCH_JUDGE_H
#define GD_BENCH_JUDGE_H

#include "bench/bench.h"
#include "bench/bench_deep.h"
#include "report/report.h"

#define BENCH_PCIE_MIN_PCT 60.0
#define BENCH_D2D_MIN_PCT 70.0
#define BENCH_GEMM_MIN_PCT 50.0
#define BENCH_PAGEABLE_MIN_RATIO 0.5
/* cuDNN convolutions reach less of the peak than a large GEMM (cuDNN
 * 9.19 on an H200, the ResNet layer: 55-75 %); under 30 % is a finding.
 * NCCL busbw under 50 % of the link ceiling is one too (nccl-tests on
 * NVLink and PCIe machines reaches 70-90 %). */
#define BENCH_CONV_MIN_PCT 30.0
#define BENCH_NCCL_MIN_PCT 50.0

/* Which run the results come from.  The verdicts are the same; a smoke run
 * (check --deep) also says what passed, names a missing library as skipped
 * (check's libraries layer judges the library itself), and points its
 * fixes at `gpudoctor bench`; bench names it as a note. */
enum bench_judge_run { BENCH_JUDGE_FULL, BENCH_JUDGE_SMOKE };

/* Where the results come from, for the findings' ids, scope and evidence. */
struct bench_judge_at {
	enum bench_judge_run run;
	const char *id;		/* the findings' id: "conv", "libraries.cudnn-conv.gpu0" */
	int gpu;		/* the GPU's index; -1 for NCCL */
	const char *pci;	/* its PCI address, or NULL */
	int gpus;		/* NCCL: the ranks, -1 */
	long long checked;	/* smoke: outputs compared, -1 */
	double run_ms;		/* smoke: the convolution or all-reduce itself, NAN */
	double child_s;		/* smoke: the whole child, NAN */
};

/* g's findings into g->rep (results, ceilings and link must be filled):
 * the copies, the GEMMs and the cuDNN run. */
void bench_judge_gpu(struct bench_gpu *g);
/* A cuDNN run's findings into rep. */
void bench_judge_conv(const struct bench_conv *c, const struct bench_judge_at *at, struct report *rep);
/* An NCCL run's findings into rep. */
void bench_judge_nccl(const struct bench_nccl *n, const struct bench_judge_at *at, struct report *rep);
/* check --deep: every smoke run of d into rep, in the libraries layer. */
void bench_judge_deep(const struct bench_deep *d, struct report *rep);
/* cpu->speedup from the first measured GPU's FP32 GEMM, cpu->conv_speedup
 * from its cuDNN FP32 forward convolution. */
void bench_judge_cpu(struct bench_run *r);
/* Worst status over all GPUs' findings (STATUS_OK when none, or notes only). */
enum status bench_judge_worst(const struct bench_run *r);

struct child_result;
/* A bench or --deep child that died: a deadline passed is hang_cause,
 * anything else fail_cause; msg (freed first) says how, with the last 300
 * bytes of its stderr. */
void bench_child_death(const struct child_result *r, const char *what, enum cause_id hang_cause,
		       enum cause_id fail_cause, enum cause_id *cause, char **msg);

#endif
