/*
 * burn.h - `gpudoctor burn`: node acceptance under sustained load.
 *
 * Every GPU runs, all at once, in its own child (burn_child.c) with a
 * deadline: verified GEMMs, a memory test and verified host copies, ticking
 * about once a second.  The parent (burn_run.c) reads the ticks as they
 * come, samples NVML once a second through watch's sampler child (clocks,
 * clock-event reasons, temperature, power, ECC, row remapping, processes),
 * and on the end, a deadline or Ctrl-C judges each GPU (burn_judge.c) into
 * findings of the report model with catalogue causes; burn_render.c prints
 * them.  Nothing here changes a GPU setting.
 *
 *	struct burn_opts o = { .seconds = 300, .gpu = -1 };
 *	struct burn_run run;
 *	burn_run_init(&run);
 *	burn_run_all(ctx, &o, &run);		// blocks for o.seconds
 *	burn_judge(&run, &rep);
 *	burn_render_text(&run, &rep, &out) / burn_render_json(...);
 *	burn_run_release(&run);
 */
#ifndef GD_BURN_H
#define GD_BURN_H

#include <stddef.h>

#include "core/buf.h"
#include "knowledge/causes.h"

struct gd_ctx;
struct report;

/* The child's options (burn_child.c parses its argv into these). */
struct burn_child_opts {
	int index;
	double seconds;
	int n;			/* GEMM size */
	double tick;		/* seconds per tick */
	double mem_mib;		/* cap on the memory test; 0: all free memory */
	const char *libcuda;
	const char *const *cublas;
};

struct burn_opts {
	double seconds;		/* --minutes * 60 */
	int gpu;		/* --gpu N, -1 all */
	int n;			/* --gemm-n (tests: a small product) */
	double tick;		/* --tick (tests) */
	double mem_mib;		/* --mem-mib (tests) */
	const char *libnvml;	/* NVML for the sampler; NULL: libnvidia-ml.so.1 */
	const char **cublas;	/* --cublas PATH (repeatable) */
	size_t ncublas;
	int progress_fd;	/* a terminal for the live line, or -1 */
	double margin;		/* slowest-GPU margin below the median, 0.1 */
	double stall;		/* --stall: no progress this long is a hang; 0: 60 s */
};

/* One tick of one GPU, and the NVML sample nearest it. */
struct burn_tick {
	double t, tflops, mem_gbs, max_error;
	unsigned long long gemms, bad_gemms, mem_bad, copy_bad;
	/* NVML (-1 / NAN when not sampled) */
	long long sm_mhz, mem_mhz, temp_c, power_mw, power_limit_mw;
	long long procs;	/* compute processes on the GPU other than the burn */
	long long reasons, ecc_unc, remap_pending;
};

struct burn_gpu {
	int index;
	char name[96], pci[32];
	struct burn_tick *ticks;
	size_t nticks, cap;
	/* from the child's lines */
	/* a refusal: one report/finding_record.h record on the wire
	 * (bench/bench_refusal.h); CAUSE_NONE when it ran */
	enum cause_id refuse;
	char refuse_msg[512];
	int bad_records;	/* refusal records that did not parse */
	char sdc[5][256];
	size_t nsdc;
	char membad[5][256];
	size_t nmembad;
	unsigned long long gemms, bad_gemms, mem_bad, copy_bad, mem_passes;
	double memtest_bytes, tolerance;
	/* how the child ended: 0 ok; else a description (timed out, crashed) */
	char death[640];
	int hung;		/* missed its deadline */
	int child_pid;		/* its burn child: NVML's processes other than it are others */
};

struct burn_run {
	struct burn_gpu *gpus;
	size_t ngpus;
	double seconds_asked, seconds_ran;
	int interrupted;	/* Ctrl-C or SIGTERM */
	int nvml_ok;		/* the sampler answered at least once */
	char nvml_note[640];
	double peak_tflops;	/* the datasheet's dense bf16, or NAN */
	char error[300];	/* nothing could run at all */
};

void burn_run_init(struct burn_run *run);
void burn_run_release(struct burn_run *run);
/* 0 when the children ran (their verdicts may still fail); -1 nothing ran. */
int burn_run_all(const struct gd_ctx *ctx, const struct burn_opts *o, struct burn_run *run);

/* Sustained and first-minute throughput of a GPU (TFLOP/s, NAN if none). */
double burn_sustained_tflops(const struct burn_gpu *g);
double burn_first_tflops(const struct burn_gpu *g);
/* Share (0..1) of the NVML samples with any of the reason bits set. */
double burn_reason_share(const struct burn_gpu *g, long long bits);

/* Also completes each GPU's totals from its ticks (a killed child printed
 * no totals). */
void burn_judge(struct burn_run *run, const struct burn_opts *o, struct report *rep);
void burn_render_text(const struct burn_run *run, const struct report *rep, int color, struct buf *out);
void burn_render_json(const struct burn_run *run, const struct report *rep, struct buf *out);

/* Parses "tick.K.FIELD=V" and the other lines of a child into g; used by
 * burn_run.c as lines arrive, and by the unit tests. */
void burn_parse_line(struct burn_gpu *g, const char *line);

#endif
