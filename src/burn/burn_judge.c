/*
 * burn_judge.c - the verdict of `gpudoctor burn` per GPU; see burn.h.
 *
 * Each rule is evidence the run recorded, never a guess:
 *   - a refusal of the child (no GPU, memory held by another process, no
 *     cuBLAS) is its own cause;
 *   - a child that stopped printing progress or missed its deadline is
 *     gpu-hang-under-load;
 *   - a GEMM whose check disagreed, or a copy that came back different, is
 *     gpu-silent-data-corruption, with the time, the row and the values;
 *   - a memory-test word that read back wrong is gpu-memory-test-failed,
 *     with the address range and the flipped bits;
 *   - hardware slowdown, thermal or power-brake clock events active in more
 *     than BURN_THROTTLE_SHARE of the samples is gpu-throttled (a software
 *     power cap is how a GPU at full load normally runs: reported, not judged);
 *   - sustained throughput (the last minute, or the last third of a shorter
 *     run) more than BURN_DROP below the first minute's is
 *     gpu-throughput-degraded;
 *   - on a node of several GPUs, one more than the margin below the node's
 *     median is gpu-slowest-in-node;
 *   - a volatile uncorrectable ECC count that grew, or a row remapping that
 *     became pending, is ecc-errors;
 *   - another compute process on the GPU during the run is
 *     gpu-contended-during-burn: its figures are not the GPU's alone.
 */
#include "burn/burn.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BURN_THROTTLE_SHARE 0.10
#define BURN_DROP 0.10
/* nvml.h clock event reasons */
#define GD_REASON_SW_POWER_CAP 0x4ll
#define GD_REASON_HW_SLOWDOWN 0x8ll
#define GD_REASON_SW_THERMAL 0x20ll
#define GD_REASON_HW_THERMAL 0x40ll
#define GD_REASON_HW_POWER_BRAKE 0x80ll
#define GD_REASON_HARD (GD_REASON_HW_SLOWDOWN | GD_REASON_SW_THERMAL | GD_REASON_HW_THERMAL | \
			GD_REASON_HW_POWER_BRAKE)

/* Mean GEMM throughput of the ticks [a, b) that ran products. */
static double burn_mean_tflops(const struct burn_gpu *g, size_t a, size_t b)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = a; i < b && i < g->nticks; i++)
		if (g->ticks[i].gemms) {
			sum += g->ticks[i].tflops;
			n++;
		}
	return n ? sum / (double)n : NAN;
}

static double burn_last_t(const struct burn_gpu *g)
{
	return g->nticks ? g->ticks[g->nticks - 1].t : 0;
}

/* The ticks of the first minute, or of the first third of a run shorter
 * than three minutes (at least one tick). */
static size_t burn_window(const struct burn_gpu *g)
{
	size_t n = 0;

	if (burn_last_t(g) >= 180) {
		while (n < g->nticks && g->ticks[n].t <= 60)
			n++;
		return n ? n : 1;
	}
	return g->nticks / 3 ? g->nticks / 3 : 1;
}

double burn_first_tflops(const struct burn_gpu *g)
{
	return burn_mean_tflops(g, 0, burn_window(g));
}

double burn_sustained_tflops(const struct burn_gpu *g)
{
	size_t w = burn_window(g);

	return burn_mean_tflops(g, g->nticks > w ? g->nticks - w : 0, g->nticks);
}

double burn_reason_share(const struct burn_gpu *g, long long bits)
{
	size_t n = 0, hit = 0;

	for (size_t i = 0; i < g->nticks; i++)
		if (g->ticks[i].reasons >= 0) {
			n++;
			hit += (g->ticks[i].reasons & bits) != 0;
		}
	return n ? (double)hit / (double)n : NAN;
}

static int burn_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A child killed before its totals still printed its ticks: the larger of
 * the total and the sum over ticks. */
static void burn_totals(struct burn_gpu *g)
{
	unsigned long long gemms = 0, bad = 0, mem = 0, copy = 0;

	for (size_t i = 0; i < g->nticks; i++) {
		gemms += g->ticks[i].gemms;
		bad += g->ticks[i].bad_gemms;
		mem += g->ticks[i].mem_bad;
		copy += g->ticks[i].copy_bad;
	}
	if (gemms > g->gemms)
		g->gemms = gemms;
	if (bad > g->bad_gemms)
		g->bad_gemms = bad;
	if (mem > g->mem_bad)
		g->mem_bad = mem;
	if (copy > g->copy_bad)
		g->copy_bad = copy;
}

static void burn_judge_gpu(const struct burn_run *run, const struct burn_gpu *g, double median,
			   double margin, struct report *rep)
{
	char id[64], idx[16];
	struct finding *f;
	double first = burn_first_tflops(g), last = burn_sustained_tflops(g);
	long long ecc0 = -1, ecc1 = -1, remap = 0, procs = 0;
	int bad = 0;

#define ID(what) (snprintf(id, sizeof(id), "burn.gpu%d.%s", g->index, what), id)
	/* Fixes are argument words (report.h): the GPU's index goes in as one. */
	snprintf(idx, sizeof(idx), "%d", g->index);
	if (g->refuse != CAUSE_NONE && g->nticks) {
		/* stopped under load (a CUDA call failed mid-run): what the run
		 * found before still counts, judged below */
		f = report_add(rep, LAYER_HARDWARE, ID("stopped"), g->refuse,
			       REACH_WORK, "GPU %d stopped under load after %zu ticks: %s", g->index, g->nticks,
			       g->refuse_msg);
		finding_evidence(f, "%s", g->refuse_msg);
		finding_fix(f, "journalctl -k | gpudoctor explain -");	/* no machine value */
		bad = 1;
	} else if (g->refuse != CAUSE_NONE) {
		enum cause_id c = g->refuse;

		f = report_add(rep, LAYER_HARDWARE, ID("refused"), c,
			       REACH_WORK, "GPU %d was not burned: %s", g->index, g->refuse_msg);
		finding_evidence(f, "%s", g->refuse_msg);
		if (c == CAUSE_GPU_MEMORY_HELD)
			finding_fix_cmd(f, "nvidia-smi", "--query-compute-apps=pid,process_name,used_memory",
					"--format=csv", "-i", idx, NULL);
		return;
	}
	if (g->hung || g->death[0]) {
		f = report_add(rep, LAYER_HARDWARE, ID("hang"), g->hung ? CAUSE_GPU_HANG_UNDER_LOAD
			       : CAUSE_GPU_COMPUTE_FAILED, REACH_WORK,
			       "GPU %d's burn child %s", g->index, g->death);
		finding_evidence(f, "after %zu ticks (%.0f s of load): %s", g->nticks, burn_last_t(g), g->death);
		finding_fix_cmd(f, "nvidia-smi", "-q", "-i", idx, NULL);
		finding_fix_note(f, "then journalctl -k | gpudoctor explain - names what the driver logged");
		bad = 1;
	}
	if (g->bad_gemms || g->copy_bad) {
		f = report_add(rep, LAYER_HARDWARE, ID("sdc"), CAUSE_GPU_SILENT_DATA_CORRUPTION, REACH_WORK,
			       "GPU %d computed wrong results without an error: %llu of %llu checked products, "
			       "%llu host copies", g->index, g->bad_gemms, g->gemms, g->copy_bad);
		for (size_t i = 0; i < g->nsdc; i++)
			finding_evidence(f, "%s", g->sdc[i]);
		if (g->copy_bad)
			finding_evidence(f, "%llu host-device round trips of 64 MiB came back different", g->copy_bad);
		finding_fix_cmd(f, "gpudoctor", "burn", "--gpu", idx, NULL);
		finding_fix_note(f, "to see whether it repeats; take the GPU out of service and ask the vendor for an RMA with this report");
		bad = 1;
	}
	if (g->mem_bad) {
		f = report_add(rep, LAYER_HARDWARE, ID("memory"), CAUSE_GPU_MEMORY_TEST_FAILED, REACH_WORK,
			       "GPU %d's memory read back wrong: %llu bad words over %llu test passes",
			       g->index, g->mem_bad, g->mem_passes);
		for (size_t i = 0; i < g->nmembad; i++)
			finding_evidence(f, "%s", g->membad[i]);
		finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "ROW_REMAPPER,PAGE_RETIREMENT", "-i", idx, NULL);
		finding_fix_note(f, "reset the GPU when idle (nvidia-smi -r with the same -i) and burn again; bad words that stay mean RMA");
		bad = 1;
	}
	for (size_t i = 0; i < g->nticks; i++) {
		const struct burn_tick *t = &g->ticks[i];

		if (t->ecc_unc >= 0) {
			if (ecc0 < 0)
				ecc0 = t->ecc_unc;
			ecc1 = t->ecc_unc;
		}
		if (t->remap_pending > 0)
			remap = 1;
		if (t->procs > procs)
			procs = t->procs;
	}
	if ((ecc0 >= 0 && ecc1 > ecc0) || remap) {
		f = report_add(rep, LAYER_HARDWARE, ID("ecc"), CAUSE_ECC_ERRORS, REACH_WORK,
			       "GPU %d's memory reported uncorrectable errors under load", g->index);
		if (ecc1 > ecc0)
			finding_evidence(f, "volatile uncorrectable ECC errors went from %lld to %lld", ecc0, ecc1);
		if (remap)
			finding_evidence(f, "a row remapping became pending (a GPU reset applies it)");
		finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER", "-i", idx, NULL);
		bad = 1;
	}
	{
		double hard = burn_reason_share(g, GD_REASON_HARD);

		if (!isnan(hard) && hard > BURN_THROTTLE_SHARE) {
			long long seen = 0, min_mhz = -1;

			for (size_t i = 0; i < g->nticks; i++) {
				if (g->ticks[i].reasons > 0)
					seen |= g->ticks[i].reasons & GD_REASON_HARD;
				if (g->ticks[i].sm_mhz > 0 && (min_mhz < 0 || g->ticks[i].sm_mhz < min_mhz))
					min_mhz = g->ticks[i].sm_mhz;
			}
			f = report_add(rep, LAYER_HARDWARE, ID("throttle"), CAUSE_GPU_THROTTLED, REACH_WORK,
				       "GPU %d's clocks were held down %.0f %% of the run (%s%s%s%s)", g->index,
				       hard * 100, seen & GD_REASON_HW_SLOWDOWN ? "hardware slowdown " : "",
				       seen & (GD_REASON_SW_THERMAL | GD_REASON_HW_THERMAL) ? "thermal " : "",
				       seen & GD_REASON_HW_POWER_BRAKE ? "power brake " : "", "");
			finding_evidence(f, "clock event reasons 0x%llx in %.0f %% of the NVML samples; lowest SM clock %lld MHz",
					 seen, hard * 100, min_mhz);
			finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PERFORMANCE,TEMPERATURE,POWER", "-i", idx, NULL);
			finding_fix_note(f, "check the airflow, the fans and the power supply");
		}
	}
	if (!isnan(first) && !isnan(last) && first > 0 && last < first * (1.0 - BURN_DROP)) {
		f = report_add(rep, LAYER_HARDWARE, ID("drop"), CAUSE_GPU_THROUGHPUT_DEGRADED, REACH_WORK,
			       "GPU %d slowed down under sustained load: %.0f TFLOP/s at the end, %.0f at the start (-%.0f %%)",
			       g->index, last, first, (1.0 - last / first) * 100);
		finding_evidence(f, "bf16 GEMM throughput, mean of the ticks of the first and of the last %s",
				 burn_last_t(g) >= 180 ? "minute" : "third of the run");
		finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PERFORMANCE", "-i", idx, NULL);
		finding_fix_note(f, "while the load runs: the clock event reasons");
	}
	if (run->ngpus > 1 && !isnan(median) && !isnan(last) && last < median * (1.0 - margin)) {
		f = report_add(rep, LAYER_HARDWARE, ID("slowest"), CAUSE_GPU_SLOWEST_IN_NODE, REACH_WORK,
			       "GPU %d is the slowest of the node: %.0f TFLOP/s sustained, the node's median %.0f",
			       g->index, last, median);
		finding_evidence(f, "%.0f %% below the median (margin %.0f %%)", (1.0 - last / median) * 100,
				 margin * 100);
		finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PERFORMANCE,CLOCK", "-i", idx, NULL);
		finding_fix_note(f, "compare its clocks and power with its neighbours");
	}
	if (procs > 0) {
		f = report_add(rep, LAYER_DRIVER, ID("contended"), CAUSE_GPU_CONTENDED_DURING_BURN, REACH_WORK,
			       "another process used GPU %d during the burn: its figures are not the GPU's alone",
			       g->index);
		finding_evidence(f, "NVML listed %lld compute process%s on the GPU besides the burn's own", procs,
				 procs == 1 ? "" : "es");
		finding_fix_cmd(f, "nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv", "-i", idx, NULL);
		finding_fix_note(f, "burn a node with no jobs on it");
	}
	if (!bad && g->gemms)
		report_ok(rep, LAYER_HARDWARE, ID("ok"), "GPU %d: %llu products, %llu memory passes, all verified%s",
			  g->index, g->gemms, g->mem_passes,
			  g->memtest_bytes > 0 ? "" : " (the memory test could not allocate: it did not run)");
#undef ID
}

void burn_judge(struct burn_run *run, const struct burn_opts *o, struct report *rep)
{
	double *s = calloc(run->ngpus ? run->ngpus : 1, sizeof(double)), median = NAN;
	size_t n = 0;

	for (size_t i = 0; s && i < run->ngpus; i++) {
		double v = burn_sustained_tflops(&run->gpus[i]);

		if (!isnan(v))
			s[n++] = v;
	}
	if (n) {
		qsort(s, n, sizeof(double), burn_cmp_double);
		median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	}
	free(s);
	for (size_t i = 0; i < run->ngpus; i++) {
		burn_totals(&run->gpus[i]);
		burn_judge_gpu(run, &run->gpus[i], median, o->margin > 0 ? o->margin : 0.10, rep);
	}
	report_finish(rep);
}
