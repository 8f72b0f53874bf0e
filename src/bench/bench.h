/*
 * bench.h - the model of one `gpudoctor bench` run, shared by the parent
 * (parsing, ceilings, judging, rendering) and the child (measuring).
 *
 * The child measures and writes key=value lines (core/kv.h); the parent
 * parses them into struct bench_gpu (bench_parse.c), fills the ceilings
 * from the knowledge base and sysfs (bench_ceiling.c, bench_pcie.c), judges
 * each figure against its ceiling (bench_judge.c) and prints
 * (bench_json.c, bench_text.c).  Unknown numbers are NAN or -1; unknown
 * strings NULL.
 *
 *	struct bench_run run;
 *	bench_run_init(&run);
 *	bench_parse_gpu(&kvs, &run.gpus[i]);
 *	bench_ceilings_fill(kb, link, &run.gpus[i]);
 *	bench_judge_gpu(&run.gpus[i]);		// bench_judge.h: into g->rep
 *	bench_json(&run, &j);
 *	bench_run_release(&run);
 */
#ifndef GD_BENCH_H
#define GD_BENCH_H

#include <stddef.h>

#include "knowledge/causes.h"
#include "report/report.h"

/* The measured quantities, in the order they are run and printed. */
enum bench_kind {
	BENCH_H2D_PINNED,
	BENCH_D2H_PINNED,
	BENCH_H2D_PAGEABLE,
	BENCH_D2H_PAGEABLE,
	BENCH_D2D,
	BENCH_GEMM_FP32,
	BENCH_GEMM_TF32,
	BENCH_GEMM_FP16,
	BENCH_GEMM_BF16,
	BENCH_NKINDS
};

struct bench_kind_info {
	const char *name;	/* stable JSON / protocol name: "h2d_pinned" */
	const char *label;	/* for people: "host to device, pinned" */
	const char *unit;	/* "GB/s" or "TFLOP/s" */
	int is_copy;
	int is_gemm;
};

const struct bench_kind_info *bench_kind_info(enum bench_kind k);
/* -1 when name is not a kind. */
int bench_kind_from_name(const char *name);

struct bench_result {
	int measured;		/* the child reported a value */
	double value;		/* GB/s or TFLOP/s; NAN unknown */
	double ceiling;		/* same unit; NAN unknown */
	double percent;		/* 100 * value / ceiling; NAN unknown */
	char *ceiling_source;	/* "PCIe Gen5 x16", "datasheet (kb source)", NULL */
	char *method;		/* how it was measured, for people */
	long long size;		/* bytes per copy, or the GEMM's n (m = n = k); -1 */
	int verified;		/* GEMM: 1 matched the reference, 0 did not, -1 n/a */
	double max_err;		/* GEMM: worst relative error of the sampled entries */
	char *error;		/* why it could not be measured, or NULL */
};

/* The PCIe link of a GPU, as sysfs reports it.  NAN / -1 unknown. */
struct bench_link {
	double cur_gts, max_gts;	/* the GPU's own link: GT/s per lane */
	int cur_width, max_width;
	double port_max_gts;		/* the upstream port (slot) maximum */
	int port_max_width;
	double load_gts;		/* read by the child while copies ran */
	int load_width;
};

/* One cuDNN convolution figure: a direction in a precision. */
#define BENCH_CONV_DIRS 3	/* forward, backward data, backward filter */
#define BENCH_CONV_PRECS 3	/* fp32 (TF32 math), fp16, bf16 */

struct bench_conv_result {
	int measured;
	double value;		/* TFLOP/s, NAN */
	double ceiling;		/* the datasheet tensor-core peak of the precision, NAN */
	double percent;
	double ms;		/* per pass, NAN */
	int algo;		/* cuDNN algorithm number, -1 */
	char *math;		/* "tensor-op", "default" ... or NULL */
	long long workspace;	/* bytes, -1 */
	int verified;		/* 1, 0, -1 */
	double max_err;
	char *error;		/* why it could not be measured */
	enum cause_id cause;	/* the cause of the error; CAUSE_NONE */
};

/* The cuDNN part of a GPU's run (its own child). */
struct bench_conv {
	int ran;		/* the child was run */
	char *cudnn;		/* the file the loader picked */
	long cudnn_version;	/* 91900, -1 */
	char *shape;		/* "N=32 C=256 ..." */
	double flops;		/* per pass, NAN */
	enum cause_id refused;	/* why nothing could be measured; CAUSE_NONE */
	char *refused_msg;
	int bad_records;	/* the child's refusals that did not parse */
	struct bench_conv_result r[BENCH_CONV_DIRS][BENCH_CONV_PRECS];
	double seconds;
};

void bench_gpu_init_conv(struct bench_conv *c);
void bench_gpu_release_conv(struct bench_conv *c);
const char *bench_conv_prec_name(int prec);	/* "fp32", "fp16", "bf16" */
const char *bench_conv_prec_label(int prec);	/* "FP32 (TF32 math)", "FP16", "BF16" */

struct bench_gpu {
	int index;
	char *name, *pci;		/* "0000:65:00.0" lower case */
	int cc_major, cc_minor;		/* -1 */
	int sms;			/* -1 */
	double clock_mhz, mem_clock_mhz;	/* the device's rated maximum; NAN */
	long long mem_total, mem_free;	/* bytes at start, -1 */
	unsigned pci_vendor, pci_device;	/* from sysfs; 0 unknown */
	char *cublas;			/* path of the cuBLAS used, or NULL */
	int cublas_version;		/* -1 */
	enum cause_id refused;		/* why the GPU could not be measured; CAUSE_NONE */
	char *refused_msg;
	int bad_records;		/* the child's refusals that did not parse */
	struct bench_link link;
	/* Ceilings: per-direction PCIe, datasheet memory and arithmetic. */
	double pcie_gbs;		/* the link at its maximum (GPU and slot) */
	double pcie_cur_gbs;		/* the link as it ran */
	char *pcie_label;		/* "PCIe Gen5 x16" */
	double mem_gbs, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops;
	char *kb_source;		/* copied: the kb is closed before printing */
	struct bench_result results[BENCH_NKINDS];
	/* Its verdicts (bench_judge.h): report/'s findings, the id the result
	 * they are about ("h2d_pinned", "conv"), scoped to the GPU. */
	struct report rep;
	double seconds;
	struct bench_conv conv;
};

/* NCCL over all GPUs: one point of a sweep. */
struct bench_nccl_point {
	long long bytes;	/* nccl-tests' size (bench_coll.h) */
	double us;		/* per operation */
	double algbw, busbw;	/* GB/s */
};

#define BENCH_NCCL_COLLS 3	/* all-reduce, all-gather, reduce-scatter */

struct bench_nccl {
	int ran;
	char *library;
	int version_code;	/* 22809, -1 */
	int gpus;		/* ranks, -1 */
	char *skipped;		/* why it did not run (one GPU, --gpu ...), or NULL */
	enum cause_id refused;	/* CAUSE_NONE */
	char *refused_msg;
	int bad_records;	/* the child's refusals that did not parse */
	int verified;		/* the all-reduce check: 1, 0, -1 */
	struct bench_nccl_point *pts[BENCH_NCCL_COLLS];
	size_t npts[BENCH_NCCL_COLLS];
	double latency_us[BENCH_NCCL_COLLS];	/* at the smallest size, NAN */
	double peak_busbw[BENCH_NCCL_COLLS];	/* largest busbw, NAN */
	double percent[BENCH_NCCL_COLLS];	/* peak busbw / ceiling */
	char *link;		/* "NVLink", "PCIe" ... from NCCL's log, or NULL */
	char *topology;		/* summary of NCCL's log, or NULL */
	int nccl_lines;		/* INFO/WARN lines read */
	char *nccl_warning;	/* NCCL's first WARN line, or NULL */
	int nvlinks;		/* active NVLinks of the GPU with the fewest, -1 */
	int nvlink_version;	/* the NVLink generation, 1..5, -1 */
	double ceiling_gbs;	/* per direction per GPU, NAN */
	char *ceiling_source;
	struct report rep;	/* its verdicts, id "nccl" */
	double seconds;
};

struct bench_cpu {
	char *impl;		/* "openblas", "gpudoctor-blocked", ... or NULL */
	char *library;		/* path, or NULL for our own kernel */
	int threads;		/* -1 */
	long long n;		/* matrix size of the best run, -1 */
	double gflops;		/* NAN */
	int verified;		/* 1, 0, -1 */
	char *method;
	char *error;
	double speedup;		/* GPU FP32 / CPU SGEMM of GPU 0, NAN */
	/* The CNN layer on the CPU: im2col + the same SGEMM, one image. */
	double conv_gflops;	/* NAN */
	int conv_verified;	/* 1, 0, -1 */
	char *conv_method;
	double conv_speedup;	/* GPU cuDNN forward FP32 / CPU, NAN */
};

struct bench_run {
	int quick;
	struct bench_gpu *gpus;
	size_t ngpus, gpus_cap;
	struct bench_cpu cpu;
	struct bench_nccl nccl;
	enum cause_id refused;	/* whole-run refusal (no GPU at all); CAUSE_NONE */
	char *refused_msg;
	double seconds;
};

void bench_run_init(struct bench_run *r);
void bench_run_release(struct bench_run *r);
struct bench_gpu *bench_run_add_gpu(struct bench_run *r, int index);
void bench_gpu_init(struct bench_gpu *g, int index);
void bench_gpu_release(struct bench_gpu *g);
void bench_cpu_init(struct bench_cpu *c);
void bench_cpu_release(struct bench_cpu *c);
/* "info", "warn", "fail" (JSON) and "note", "WARN", "FAIL" (text); a note
 * is a finding with a cause and STATUS_OK (docs/CONVENTIONS.md). */
const char *bench_finding_word(const struct finding *f);
const char *bench_finding_mark(const struct finding *f);

void bench_nccl_init(struct bench_nccl *n);
void bench_nccl_release(struct bench_nccl *n);

/* Median of n doubles (sorts v in place); NAN when n == 0. */
double bench_median(double *v, size_t n);

#endif
