/*
 * bench_ceiling.h - the ceiling of each bench figure, and its percentage.
 *
 * Copies between host and device are bounded by the PCIe link at its
 * maximum (the lower of the GPU's and the slot's maximum speed and width);
 * device-to-device copies by the datasheet memory bandwidth (the copy
 * counts bytes read plus bytes written, as the datasheet's total does);
 * GEMMs by the datasheet dense peak of their precision.  Datasheet figures
 * come from the knowledge base (kb_gpu_by_pci); a missing row or a NAN or
 * non-positive figure is an unknown ceiling, never zero.
 *
 *	bench_ceilings_fill(g, kb_gpu_by_pci(kb, g->pci_vendor, g->pci_device));
 */
#ifndef GD_BENCH_CEILING_H
#define GD_BENCH_CEILING_H

#include "bench/bench.h"
#include "knowledge/kb.h"

/* Fill g's ceilings from kg (may be NULL) and g->link, then every result's
 * ceiling and percentage. */
void bench_ceilings_fill(struct bench_gpu *g, const struct kb_gpu *kg);
/* The cuDNN figures' ceilings: FP32 convolutions run with TF32 math (as
 * PyTorch's default), so their ceiling is the TF32 peak; FP16 and BF16 the
 * dense tensor-core peaks.  Call after bench_ceilings_fill. */
void bench_ceilings_conv(struct bench_gpu *g);
/* The NCCL busbw ceiling: active NVLinks x the per-link bandwidth of their
 * generation (bench_coll.h) when NVML reported any, else the slowest PCIe
 * link of the GPUs (a transfer between two GPUs crosses both). */
void bench_ceilings_nccl(struct bench_nccl *n, const struct bench_gpu *gpus, size_t ngpus);
/* 100 * value / ceiling, NAN when either is unknown or the ceiling is not positive. */
double bench_percent(double value, double ceiling);

#endif
