/*
 * bench_judge.h - which bench figures are findings, and their likely cause.
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
 *	bench_judge_gpu(&run->gpus[i]);	// each GPU's findings
 *	bench_judge_cpu(run);
 *	exit_status = bench_judge_worst(run) == STATUS_FAIL;
 */
#ifndef GD_BENCH_JUDGE_H
#define GD_BENCH_JUDGE_H

#include "bench/bench.h"

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

/* Add g's findings (results, ceilings and link must be filled). */
void bench_judge_gpu(struct bench_gpu *g);
/* Findings of the cuDNN child (called by bench_judge_gpu). */
void bench_judge_conv(struct bench_gpu *g);
/* Findings of the NCCL child. */
void bench_judge_nccl(struct bench_nccl *n);
/* cpu->speedup from the first measured GPU's FP32 GEMM, cpu->conv_speedup
 * from its cuDNN FP32 forward convolution. */
void bench_judge_cpu(struct bench_run *r);
/* Worst status over all GPUs' findings (STATUS_OK when none, or notes only). */
enum status bench_judge_worst(const struct bench_run *r);

#endif
