/* bench_judge.c - findings from what bench's children measured; see bench_judge.h. */
#include "bench/bench_judge.h"
#include "bench/bench_pcie.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* A verdict: its status is finding_status(cause, REACH_WORK), as in check. */
static struct finding *judge_add(struct report *rep, enum layer_id layer, const char *id,
				 enum cause_id cause, const char *title)
{
	return report_add(rep, layer, id, cause, REACH_WORK, "%s", title);
}

/* A note ("info"): a cause worth naming that is no verdict on what was
 * measured, STATUS_OK with its cause (docs/CONVENTIONS.md). */
static struct finding *judge_note(struct report *rep, enum layer_id layer, const char *id,
				  enum cause_id cause, const char *title)
{
	struct finding *f = report_ok(rep, layer, id, "%s", title);

	f->cause = cause;
	return f;
}

/* "-i BDF" (or the index) for nvidia-smi: the GPU the figures are about. */
static const char *judge_gpu_arg(const char *pci, int gpu, char *idx, size_t n)
{
	if (pci && *pci)
		return pci;
	snprintf(idx, n, "%d", gpu < 0 ? 0 : gpu);
	return idx;
}

/* The fix for a figure far below the datasheet: the GPU's clocks, power and
 * temperature, and who else runs on it. */
static void judge_fix_clocks(struct finding *f, const char *pci, int gpu)
{
	char idx[16];

	finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PERFORMANCE,CLOCK,POWER,TEMPERATURE", "-i",
			judge_gpu_arg(pci, gpu, idx, sizeof(idx)), NULL);
	finding_fix_note(f, "'Clocks Event Reasons' names any throttle; nvidia-smi --query-compute-apps=pid,used_memory --format=csv lists other processes");
}

/* The fix for wrong results: the GPU's memory errors, then the kernel log. */
static void judge_fix_hw(struct finding *f, const char *pci, int gpu)
{
	char idx[16];

	finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER", "-i", judge_gpu_arg(pci, gpu, idx, sizeof(idx)),
			NULL);
	finding_fix_note(f, "and sudo dmesg | grep -i xid; then rerun gpudoctor bench; replace or service the GPU if it repeats");
}

/* ---- bench's figures: copies and GEMMs ---- */

/* The likeliest reason a device-side figure (D2D, GEMM) is far below the
 * datasheet, from what the child saw: a MIG slice, another process on the
 * GPU, else clocks and power. */
static void bench_device_cause(const struct bench_gpu *g, struct buf *why)
{
	if (g->name && strstr(g->name, "MIG")) {
		buf_printf(why, "'%s' is a MIG slice: it has a fraction of the GPU's SMs and memory bandwidth, so the whole-GPU datasheet figure does not apply", g->name);
		return;
	}
	if (g->mem_total > 0 && g->mem_free >= 0 &&
	    (double)(g->mem_total - g->mem_free) > 0.25 * (double)g->mem_total) {
		buf_printf(why, "another process holds %.1f GiB of %.1f GiB on this GPU and probably competes for it",
			   (double)(g->mem_total - g->mem_free) / GIB, (double)g->mem_total / GIB);
		return;
	}
	buf_puts(why, "likely low clocks: a power cap, high temperature or locked application clocks, or another process's kernels running at the same time");
}

static int bench_link_degraded(const struct bench_gpu *g, struct buf *ev)
{
	const struct bench_link *l = &g->link;
	double want_gts = l->max_gts;
	int want_w = l->max_width, width = l->load_width > 0 ? l->load_width : l->cur_width;
	int slow_speed, narrow;
	double pct = g->results[BENCH_H2D_PINNED].percent;

	if (!isnan(l->port_max_gts) && (isnan(want_gts) || l->port_max_gts < want_gts))
		want_gts = l->port_max_gts;
	if (l->port_max_width > 0 && (want_w <= 0 || l->port_max_width < want_w))
		want_w = l->port_max_width;
	narrow = width > 0 && want_w > 0 && width < want_w;
	/* An idle GPU drops its link speed to save power: a low speed counts
	 * when it was read under load, or when the copies were slow too. */
	if (!isnan(l->load_gts))
		slow_speed = !isnan(want_gts) && l->load_gts < want_gts - 0.05;
	else
		slow_speed = !isnan(want_gts) && !isnan(l->cur_gts) && l->cur_gts < want_gts - 0.05 &&
			     !isnan(pct) && pct < BENCH_PCIE_MIN_PCT;
	if (!narrow && !slow_speed)
		return 0;
	buf_printf(ev, "link of %s runs at %.1f GT/s x%d (Gen%d), maximum %.1f GT/s x%d (Gen%d)%s",
		   g->pci ? g->pci : "the GPU",
		   isnan(l->load_gts) ? l->cur_gts : l->load_gts, width,
		   bench_pcie_gen(isnan(l->load_gts) ? l->cur_gts : l->load_gts),
		   want_gts, want_w, bench_pcie_gen(want_gts),
		   isnan(l->load_gts) ? "" : " (read while copying)");
	return 1;
}

/* A finding about one of g's figures, scoped to g. */
static struct finding *bench_gpu_finding(struct bench_gpu *g, enum cause_id cause, const char *result,
					 const char *title, const char *evidence)
{
	struct finding *f = judge_add(&g->rep, cause_get(cause)->layer, result, cause, title);

	finding_scope(f, g->index, g->pci, NULL);
	finding_evidence(f, "%s", evidence);
	return f;
}

static void bench_judge_copies(struct bench_gpu *g)
{
	struct buf ev = BUF_INIT, t = BUF_INIT, path = BUF_INIT;
	char idx[16];
	struct finding *f;

	if (bench_link_degraded(g, &ev)) {
		const struct bench_result *h = &g->results[BENCH_H2D_PINNED], *d = &g->results[BENCH_D2H_PINNED];

		buf_printf(&ev, "; pinned copies %.1f GB/s to and %.1f GB/s from the GPU, against %.1f GB/s for %s",
			   h->value, d->value, g->pcie_gbs, g->pcie_label ? g->pcie_label : "the full link");
		f = bench_gpu_finding(g, CAUSE_PCIE_LINK_DEGRADED, "h2d_pinned",
				      "the GPU's PCIe link runs below its maximum speed or width", ev.s);
		finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PCIE", "-i", judge_gpu_arg(g->pci, g->index, idx, sizeof(idx)),
				NULL);
		finding_fix_note(f, "read under load; reseat the card in a full x16 slot, check riser cables and the BIOS PCIe settings");
	} else {
		for (int k = BENCH_H2D_PINNED; k <= BENCH_D2H_PINNED; k++) {
			const struct bench_result *r = &g->results[k];

			if (isnan(r->percent) || r->percent >= BENCH_PCIE_MIN_PCT)
				continue;
			buf_reset(&ev);
			buf_reset(&t);
			buf_printf(&t, "%s copies reach only %.0f%% of the PCIe link", bench_kind_info(k)->label, r->percent);
			buf_printf(&ev, "%.1f GB/s measured, %s allows %.1f GB/s per direction; the link itself is at its maximum, so the limit is elsewhere: an IOMMU or hypervisor on the DMA path, the host memory on another NUMA node, or other traffic on the bus",
				   r->value, g->pcie_label ? g->pcie_label : "the link", r->ceiling);
			f = bench_gpu_finding(g, CAUSE_BENCH_BELOW_PEAK, bench_kind_info(k)->name, t.s, ev.s);
			if (g->pci) {
				buf_reset(&path);
				buf_printf(&path, "/sys/bus/pci/devices/%s/numa_node", g->pci);
				finding_fix_cmd(f, "cat", path.s, NULL);
				finding_fix_note(f, "the GPU's NUMA node: rerun gpudoctor bench under numactl --cpunodebind=<that node>; check nvidia-smi topo -m and the IOMMU mode (iommu=pt)");
			} else {
				finding_fix_cmd(f, "nvidia-smi", "topo", "-m", NULL);
				finding_fix_note(f, "rerun gpudoctor bench under numactl --cpunodebind=<the GPU's NUMA node>; check the IOMMU mode (iommu=pt)");
			}
		}
	}
	for (int k = BENCH_H2D_PAGEABLE; k <= BENCH_D2H_PAGEABLE; k++) {
		const struct bench_result *pg = &g->results[k];
		const struct bench_result *pin = &g->results[k - 2];

		if (!pg->measured || !pin->measured || !(pin->value > 0) ||
		    pg->value >= BENCH_PAGEABLE_MIN_RATIO * pin->value)
			continue;
		buf_reset(&ev);
		buf_reset(&t);
		buf_printf(&t, "pageable copies %s the GPU reach %.0f%% of pinned ones",
			   k == BENCH_H2D_PAGEABLE ? "to" : "from", 100.0 * pg->value / pin->value);
		buf_printf(&ev, "%s %.1f GB/s, %s %.1f GB/s: the driver stages pageable memory through a pinned buffer with a CPU copy",
			   bench_kind_info(k)->label, pg->value, bench_kind_info(k - 2)->label, pin->value);
		f = judge_note(&g->rep, LAYER_HARDWARE, bench_kind_info(k)->name, CAUSE_PAGEABLE_COPIES_SLOW, t.s);
		finding_scope(f, g->index, g->pci, NULL);
		finding_evidence(f, "%s", ev.s);
		finding_fix_note(f, "Pin the host buffers that feed the GPU: DataLoader(..., pin_memory=True) or tensor.pin_memory() in PyTorch; cudaHostAlloc / cudaHostRegister in CUDA C");
	}
	buf_release(&ev);
	buf_release(&t);
	buf_release(&path);
}

static void bench_judge_device(struct bench_gpu *g)
{
	struct buf ev = BUF_INIT, t = BUF_INIT, why = BUF_INIT;
	struct finding *f;

	bench_device_cause(g, &why);
	for (int k = BENCH_D2D; k < BENCH_NKINDS; k++) {
		struct bench_result *r = &g->results[k];
		const struct bench_kind_info *ki = bench_kind_info(k);
		double min = k == BENCH_D2D ? BENCH_D2D_MIN_PCT : BENCH_GEMM_MIN_PCT;

		if (r->verified == 0) {
			buf_reset(&ev);
			buf_reset(&t);
			buf_printf(&t, "%s gave wrong results", ki->label);
			buf_printf(&ev, "sampled entries of the %lldx%lldx%lld product differ from a float64 CPU reference: worst relative error %.3g",
				   r->size, r->size, r->size, r->max_err);
			f = bench_gpu_finding(g, CAUSE_GPU_COMPUTE_FAILED, ki->name, t.s, ev.s);
			judge_fix_hw(f, g->pci, g->index);
		}
		if (isnan(r->percent) || r->percent >= min)
			continue;
		buf_reset(&ev);
		buf_reset(&t);
		buf_printf(&t, "%s reaches only %.0f%% of the datasheet peak", ki->label, r->percent);
		buf_printf(&ev, "%.1f %s measured, datasheet %.1f %s; %s", r->value, ki->unit,
			   r->ceiling, ki->unit, why.s);
		if (g->sms > 0 && !isnan(g->clock_mhz))
			buf_printf(&ev, " (device: %d SMs, rated %.0f MHz)", g->sms, g->clock_mhz);
		f = bench_gpu_finding(g, CAUSE_BENCH_BELOW_PEAK, ki->name, t.s, ev.s);
		judge_fix_clocks(f, g->pci, g->index);
	}
	buf_release(&ev);
	buf_release(&t);
	buf_release(&why);
}

void bench_judge_gpu(struct bench_gpu *g)
{
	struct bench_judge_at at = { .run = BENCH_JUDGE_FULL, .id = "conv", .gpu = g->index, .pci = g->pci,
				     .gpus = -1, .checked = -1, .run_ms = NAN, .child_s = NAN };

	if (g->refused != CAUSE_NONE)
		return;
	bench_judge_copies(g);
	bench_judge_device(g);
	bench_judge_conv(&g->conv, &at, &g->rep);
}

/* ---- cuDNN: bench's full set and check --deep's smoke convolution ---- */

static const char *const conv_dir_labels[] = { "forward", "backward data", "backward filter" };

/*
 * The cause a failed cuDNN run stands for.  The causes a cuDNN child can end
 * in pass, and so does out of memory (another process holds the GPU); any
 * other (a CUDA call failing) is counted as a failed cuDNN call, since the
 * CUDA layer below already passed: bench's GEMM child, check's CUDA layer.
 */
static enum cause_id conv_cause(enum cause_id c)
{
	static const enum cause_id known[] = { CAUSE_CUDNN_MISSING, CAUSE_CUDNN_NOT_INITIALIZED,
					       CAUSE_CUDNN_NO_KERNEL_FOR_ARCH, CAUSE_CUDNN_HANG,
					       CAUSE_CUDNN_CALL_FAILED, CAUSE_GPU_OUT_OF_MEMORY };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == c)
			return c;
	return CAUSE_CUDNN_CALL_FAILED;
}

static void conv_fix(struct finding *f, enum cause_id cause, const struct bench_judge_at *at)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", at->gpu < 0 ? 0 : at->gpu);
	switch (cause) {
	case CAUSE_CUDNN_MISSING:
		finding_fix_cmd(f, "pip", "install", "nvidia-cudnn-cu13", NULL);
		finding_fix_note(f, "or the distribution's cuDNN 9 package; then gpudoctor bench --cudnn /path/to/libcudnn.so.9");
		break;
	case CAUSE_CUDNN_NOT_INITIALIZED:
		finding_fix_cmd(f, "gpudoctor", "matrix", "--solve", NULL);
		finding_fix_note(f, "cuDNN's runtime could not start on this driver/GPU: a cuDNN built for a newer CUDA than the driver supports, or a GPU the process cannot open");
		break;
	case CAUSE_CUDNN_NO_KERNEL_FOR_ARCH:
		finding_fix_cmd(f, "gpudoctor", "matrix", "--solve", NULL);
		finding_fix_note(f, "install a cuDNN release that still ships kernels for this GPU's architecture (cuDNN 9.11+ dropped pre-Turing GPUs)");
		break;
	case CAUSE_CUDNN_HANG:
		finding_fix_cmd(f, "nvidia-smi", "-q", "-i", judge_gpu_arg(at->pci, at->gpu, idx, sizeof(idx)), NULL);
		finding_fix_note(f, "and sudo dmesg | grep -i xid; a GPU that hangs in a kernel needs a reset (sudo nvidia-smi -r on it) or a reboot");
		break;
	case CAUSE_CUDNN_WRONG_RESULT:
		judge_fix_hw(f, at->pci, at->gpu);
		break;
	case CAUSE_GPU_OUT_OF_MEMORY:
		finding_fix_cmd(f, "nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv", NULL);
		finding_fix_note(f, "another process holds the GPU's memory; rerun when it is idle");
		break;
	default:
		if (at->run == BENCH_JUDGE_SMOKE) {
			finding_fix_cmd(f, "gpudoctor", "bench", "--gpu", idx, NULL);
			finding_fix_note(f, "runs the full cuDNN set and names the failing call");
		} else {
			finding_fix_cmd(f, "gpudoctor", "check", NULL);
			finding_fix_note(f, "then gpudoctor matrix --solve for a cuDNN release that fits this driver and GPU");
		}
		break;
	}
}

static struct finding *conv_finding(struct report *rep, const struct bench_judge_at *at, enum cause_id cause,
				    const char *title)
{
	struct finding *f = judge_add(rep, LAYER_LIBRARIES, at->id, cause, title);

	finding_scope(f, at->gpu, at->pci, NULL);
	conv_fix(f, cause, at);
	return f;
}

/* "cuDNN 9.19.0", or "cuDNN" when the child did not say. */
static void conv_name(const struct bench_conv *c, char *ver, size_t n)
{
	if (c->cudnn_version > 0)
		snprintf(ver, n, "cuDNN %ld.%ld.%ld", c->cudnn_version / 10000, c->cudnn_version / 100 % 100,
			 c->cudnn_version % 100);
	else
		snprintf(ver, n, "cuDNN");
}

/* A run that measured nothing: a missing cuDNN, or its refusal. */
static void conv_refused(const struct bench_conv *c, const struct bench_judge_at *at, struct report *rep)
{
	enum cause_id cause = conv_cause(c->refused);
	const char *msg = c->refused_msg ? c->refused_msg : cause_id_str(c->refused);
	struct buf t = BUF_INIT;
	char ver[32];
	struct finding *f;

	conv_name(c, ver, sizeof(ver));
	if (cause == CAUSE_CUDNN_MISSING) {
		/* check judges the library (its libraries layer); for the
		 * measurement a missing cuDNN is no verdict. */
		buf_printf(&t, "no cuDNN to run a convolution with on GPU %d", at->gpu);
		if (at->run == BENCH_JUDGE_SMOKE) {
			f = report_skip(rep, LAYER_LIBRARIES, at->id, "%s", t.s);
		} else {
			f = judge_note(rep, LAYER_LIBRARIES, at->id, cause, t.s);
			conv_fix(f, cause, at);
		}
		finding_scope(f, at->gpu, at->pci, NULL);
		finding_evidence(f, "%s", c->refused_msg ? c->refused_msg : "libcudnn.so.9 / .8 did not load");
	} else {
		buf_printf(&t, "%s could not run a convolution on GPU %d", ver, at->gpu);
		f = conv_finding(rep, at, cause, t.s);
		finding_evidence(f, "%s", msg);
	}
	if (c->cudnn)
		finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
	buf_release(&t);
}

/* Failed figures, one finding per cause (a cuDNN without kernels for this
 * GPU fails all nine alike): which ones, and the first message. */
static void conv_errors(const struct bench_conv *c, const struct bench_judge_at *at, struct report *rep)
{
	int done[BENCH_CONV_DIRS][BENCH_CONV_PRECS] = { { 0 } };

	for (int d0 = 0; d0 < BENCH_CONV_DIRS; d0++)
		for (int p0 = 0; p0 < BENCH_CONV_PRECS; p0++) {
			const struct bench_conv_result *first = &c->r[d0][p0];
			enum cause_id cause = conv_cause(first->cause);
			struct buf t = BUF_INIT, which = BUF_INIT;
			struct finding *f;
			int n = 0;

			if (!first->error || done[d0][p0])
				continue;
			for (int d = 0; d < BENCH_CONV_DIRS; d++)
				for (int p = 0; p < BENCH_CONV_PRECS; p++) {
					const struct bench_conv_result *r = &c->r[d][p];

					if (!r->error || done[d][p] || conv_cause(r->cause) != cause)
						continue;
					done[d][p] = 1;
					buf_printf(&which, "%s%s %s", n++ ? ", " : "", conv_dir_labels[d], bench_conv_prec_label(p));
				}
			buf_printf(&t, "%d cuDNN convolution%s failed (%s)", n, n == 1 ? "" : "s", which.s);
			f = conv_finding(rep, at, cause, t.s);
			finding_evidence(f, "%s", first->error);
			if (c->cudnn)
				finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
			buf_release(&t);
			buf_release(&which);
		}
}

/* Outputs that differ from the float64 reference: one finding for all. */
static int conv_wrong(const struct bench_conv *c, const struct bench_judge_at *at, struct report *rep)
{
	struct buf t = BUF_INIT, which = BUF_INIT;
	double worst = 0;
	char ver[32];
	struct finding *f;
	int n = 0;

	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			const struct bench_conv_result *r = &c->r[d][p];

			if (r->verified != 0)
				continue;
			buf_printf(&which, "%s%s %s (algorithm %d)", n++ ? ", " : "", conv_dir_labels[d],
				   bench_conv_prec_label(p), r->algo);
			if (r->max_err > worst || isnan(r->max_err))
				worst = r->max_err;
		}
	if (n) {
		conv_name(c, ver, sizeof(ver));
		buf_printf(&t, "%s computed %d convolution%s wrongly on GPU %d", ver, n, n == 1 ? "" : "s", at->gpu);
		f = conv_finding(rep, at, CAUSE_CUDNN_WRONG_RESULT, t.s);
		if (at->checked >= 0)
			finding_evidence(f, "%lld outputs of the %s convolution against a float64 CPU reference, worst relative error %.3g: %s",
					 at->checked, c->shape ? c->shape : "", worst, which.s);
		else
			finding_evidence(f, "sampled outputs of the %s convolution differ from a float64 CPU reference (worst relative error %.3g): %s",
					 c->shape ? c->shape : "", worst, which.s);
		if (c->cudnn)
			finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
	}
	buf_release(&t);
	buf_release(&which);
	return n;
}

void bench_judge_conv(const struct bench_conv *c, const struct bench_judge_at *at, struct report *rep)
{
	const struct bench_conv_result *fwd = &c->r[0][0];
	struct buf ev = BUF_INIT, t = BUF_INIT;
	size_t before = rep->n;
	int measured = 0;
	char ver[32];
	struct finding *f;

	if (!c->ran)
		return;
	if (c->refused != CAUSE_NONE)
		conv_refused(c, at, rep);
	conv_errors(c, at, rep);
	conv_wrong(c, at, rep);
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			const struct bench_conv_result *r = &c->r[d][p];

			measured |= r->measured || r->verified >= 0 || r->error;
			if (r->error || r->verified == 0 || isnan(r->percent) || r->percent >= BENCH_CONV_MIN_PCT)
				continue;
			buf_reset(&ev);
			buf_reset(&t);
			buf_printf(&t, "cuDNN %s %s reaches only %.0f%% of the datasheet peak", conv_dir_labels[d],
				   bench_conv_prec_label(p), r->percent);
			buf_printf(&ev, "%.1f TFLOP/s measured, datasheet %.1f TFLOP/s, algorithm %d", r->value,
				   r->ceiling, r->algo);
			f = judge_add(rep, LAYER_HARDWARE, at->id, CAUSE_BENCH_BELOW_PEAK, t.s);
			finding_scope(f, at->gpu, at->pci, NULL);
			finding_evidence(f, "%s", ev.s);
			judge_fix_clocks(f, at->pci, at->gpu);
		}
	conv_name(c, ver, sizeof(ver));
	if (rep->n == before && !measured) {
		/* A child that neither refused nor reported a figure. */
		buf_reset(&t);
		buf_printf(&t, "%s's convolution on GPU %d gave no result", ver, at->gpu);
		f = conv_finding(rep, at, CAUSE_CUDNN_CALL_FAILED, t.s);
		finding_evidence(f, "the cuDNN child ended without a checked output");
	} else if (rep->n == before && at->run == BENCH_JUDGE_SMOKE && fwd->verified == 1) {
		f = report_ok(rep, LAYER_LIBRARIES, at->id, "%s computes a convolution correctly on GPU %d", ver, at->gpu);
		finding_scope(f, at->gpu, at->pci, NULL);
		finding_evidence(f, "FP32 forward %s, algorithm %d: %lld outputs match a float64 CPU reference (worst relative error %.2g); the convolution took %.1f ms, the child %.2f s",
				 c->shape ? c->shape : "", fwd->algo, at->checked, fwd->max_err, at->run_ms, at->child_s);
		if (c->cudnn)
			finding_evidence(f, "cuDNN loaded: %s", c->cudnn);
	}
	buf_release(&ev);
	buf_release(&t);
}

/* ---- NCCL: bench's sweep and check --deep's one all-reduce ---- */

/* As conv_cause(): what an NCCL child can end in, else a failed call. */
static enum cause_id nccl_cause(enum cause_id c)
{
	return c == CAUSE_NCCL_MISSING || c == CAUSE_NCCL_HANG || c == CAUSE_GPU_OUT_OF_MEMORY ? c
											     : CAUSE_NCCL_CALL_FAILED;
}

static void nccl_fix(struct finding *f, enum cause_id cause, int wrong)
{
	if (cause == CAUSE_NCCL_MISSING) {
		finding_fix_cmd(f, "pip", "install", "nvidia-nccl-cu13", NULL);
		finding_fix_note(f, "or the distribution's libnccl2; then gpudoctor bench --nccl /path/to/libnccl.so.2");
	} else if (cause == CAUSE_NCCL_HANG) {
		finding_fix_cmd(f, "df", "-h", "/dev/shm", NULL);
		finding_fix_note(f, "docker: --shm-size=1g or --ipc=host; then NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH gpudoctor bench names the step, and NCCL_P2P_DISABLE=1 tells a broken P2P path (IOMMU/ACS) from the rest");
	} else if (cause == CAUSE_GPU_OUT_OF_MEMORY) {
		finding_fix_cmd(f, "nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv", NULL);
		finding_fix_note(f, "another process holds a GPU's memory; rerun when it is idle");
	} else if (wrong) {
		finding_fix(f, "NCCL_P2P_DISABLE=1 gpudoctor bench");
		finding_fix_note(f, "a correct result with P2P off points at the P2P path (IOMMU/ACS); nvidia-smi topo -m");
	} else {
		finding_fix(f, "NCCL_DEBUG=INFO gpudoctor bench");
		finding_fix_note(f, "NCCL's WARN lines name the failing step; nvidia-smi topo -m");
	}
}

static void nccl_over(struct buf *t, const char *what, int gpus)
{
	if (gpus > 0)
		buf_printf(t, "%s over %d GPUs", what, gpus);
	else
		buf_puts(t, what);
}

void bench_judge_nccl(const struct bench_nccl *n, const struct bench_judge_at *at, struct report *rep)
{
	static const char *const labels[] = { "all-reduce", "all-gather", "reduce-scatter" };
	struct buf ev = BUF_INIT, t = BUF_INIT;
	int gpus = at->gpus > 0 ? at->gpus : n->gpus;
	struct finding *f = NULL;

	if (!n->ran)
		return;
	if (n->skipped && n->refused == CAUSE_NONE) {
		/* fewer than two GPUs in the child's view: nothing to judge */
		if (at->run == BENCH_JUDGE_SMOKE)
			finding_evidence(report_skip(rep, LAYER_LIBRARIES, at->id, "no NCCL all-reduce: %s", n->skipped),
					 "the NCCL child ran no collective");
		return;
	}
	/* A run without a checked sum is a failure where the check is the
	 * point (check --deep); bench's sweep still has its figures. */
	if (n->refused != CAUSE_NONE || n->verified == 0 || (n->verified != 1 && at->run == BENCH_JUDGE_SMOKE)) {
		enum cause_id cause = n->refused != CAUSE_NONE ? nccl_cause(n->refused) : CAUSE_NCCL_CALL_FAILED;

		if (n->refused != CAUSE_NONE)
			nccl_over(&t, cause == CAUSE_NCCL_MISSING ? "no NCCL to run collectives with" : "NCCL could not run collectives", cause == CAUSE_NCCL_MISSING ? -1 : gpus);
		else
			nccl_over(&t, n->verified == 0 ? "an NCCL all-reduce gave wrong sums" : "an NCCL all-reduce gave no checked result", gpus);
		if (cause == CAUSE_NCCL_MISSING && at->run == BENCH_JUDGE_SMOKE)
			f = report_skip(rep, LAYER_LIBRARIES, at->id, "%s", t.s);
		else if (cause == CAUSE_NCCL_MISSING)
			f = judge_note(rep, LAYER_LIBRARIES, at->id, cause, t.s);
		else
			f = judge_add(rep, LAYER_LIBRARIES, at->id, cause, t.s);
		if (f->status != STATUS_SKIPPED)
			nccl_fix(f, cause, n->refused == CAUSE_NONE);
		finding_evidence(f, "%s", n->refused_msg ? n->refused_msg
				 : n->refused != CAUSE_NONE ? cause_id_str(n->refused)
				 : n->verified == 0 ? "1 MiB of FP32 rank+1 on every GPU did not sum to n(n+1)/2 everywhere"
				 : "the NCCL child ended without checking the all-reduce's sums");
		if (n->nccl_warning)
			finding_evidence(f, "NCCL WARN %s", n->nccl_warning);
		if (n->topology)
			finding_evidence(f, "NCCL chose: %s", n->topology);
	}
	for (int c = 0; c < BENCH_NCCL_COLLS; c++) {
		if (isnan(n->percent[c]) || n->percent[c] >= BENCH_NCCL_MIN_PCT)
			continue;
		buf_reset(&ev);
		buf_reset(&t);
		buf_printf(&t, "NCCL %s busbw reaches only %.0f%% of the link", labels[c], n->percent[c]);
		buf_printf(&ev, "peak busbw %.1f GB/s against %.1f GB/s (%s); NCCL chose: %s", n->peak_busbw[c],
			   n->ceiling_gbs, n->ceiling_source ? n->ceiling_source : "?",
			   n->topology ? n->topology : "unknown (no INFO lines)");
		f = judge_add(rep, LAYER_HARDWARE, at->id, CAUSE_BENCH_BELOW_PEAK, t.s);
		finding_evidence(f, "%s", ev.s);
		finding_fix_cmd(f, "nvidia-smi", "topo", "-m", NULL);
		finding_fix_note(f, "then nvidia-smi nvlink -s and env | grep ^NCCL_: P2P or NVLink off (NCCL_P2P_DISABLE, IOMMU/ACS), or SHM only");
	}
	if (!f && at->run == BENCH_JUDGE_SMOKE) {
		f = report_ok(rep, LAYER_LIBRARIES, at->id, "NCCL all-reduces correctly over %d GPUs", gpus);
		finding_evidence(f, "1 MiB FP32 all-reduce, sums checked on every GPU, %.1f ms; the child (ncclCommInitAll included) %.2f s",
				 at->run_ms, at->child_s);
		if (n->topology)
			finding_evidence(f, "NCCL chose: %s", n->topology);
	}
	buf_release(&ev);
	buf_release(&t);
}

/* ---- check --deep ---- */

void bench_judge_deep(const struct bench_deep *d, struct report *rep)
{
	char id[64];

	if (!d->ran)
		return;
	for (size_t i = 0; i < d->n; i++) {
		const struct bench_deep_gpu *g = &d->g[i];
		struct bench_judge_at at = { .run = BENCH_JUDGE_SMOKE, .id = id, .gpu = g->index, .gpus = -1,
					     .checked = g->checked, .run_ms = g->smoke_ms, .child_s = g->child_s };

		snprintf(id, sizeof(id), "libraries.cudnn-conv.gpu%d", g->index);
		bench_judge_conv(&g->conv, &at, rep);
	}
	{
		struct bench_judge_at at = { .run = BENCH_JUDGE_SMOKE, .id = "libraries.nccl-allreduce", .gpu = -1,
					     .gpus = d->gpus, .checked = -1, .run_ms = d->nccl_check_ms,
					     .child_s = d->nccl_child_s };

		bench_judge_nccl(&d->nccl, &at, rep);
	}
}

/* ---- the run ---- */

void bench_judge_cpu(struct bench_run *r)
{
	r->cpu.speedup = NAN;
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct bench_result *f = &r->gpus[i].results[BENCH_GEMM_FP32];

		if (f->measured && isfinite(f->value) && r->cpu.gflops > 0) {
			r->cpu.speedup = f->value * 1000.0 / r->cpu.gflops;
			break;
		}
	}
	r->cpu.conv_speedup = NAN;
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct bench_conv_result *c = &r->gpus[i].conv.r[0][0];

		if (c->measured && r->cpu.conv_gflops > 0) {
			r->cpu.conv_speedup = c->value * 1000.0 / r->cpu.conv_gflops;
			break;
		}
	}
}

enum status bench_judge_worst(const struct bench_run *r)
{
	enum status worst = STATUS_OK;

	for (size_t i = 0; i < r->ngpus; i++)
		for (size_t k = 0; k < r->gpus[i].rep.n; k++)
			if (r->gpus[i].rep.findings[k].status > worst)
				worst = r->gpus[i].rep.findings[k].status;
	for (size_t k = 0; k < r->nccl.rep.n; k++)
		if (r->nccl.rep.findings[k].status > worst)
			worst = r->nccl.rep.findings[k].status;
	return worst;
}

void bench_child_death(const struct child_result *r, const char *what, enum cause_id hang_cause,
		       enum cause_id fail_cause, enum cause_id *cause, char **msg)
{
	struct buf d = BUF_INIT;
	const char *err = r->err.len ? r->err.s : "";
	size_t len = strlen(err);

	while (len > 0 && (err[len - 1] == '\n' || err[len - 1] == ' ' || err[len - 1] == '\t'))
		len--;
	child_outcome_describe(r, &d);
	free(*msg);
	*cause = r->outcome == CHILD_TIMEOUT ? hang_cause : fail_cause;
	/* The last of stderr: NCCL's and cuDNN's logs end with what they were doing. */
	*msg = xasprintf("the isolated %s child %s%s%.*s", what, d.s, len ? "; the end of its stderr: " : "",
			 (int)(len > 300 ? 300 : len), len > 300 ? err + len - 300 : err);
	buf_release(&d);
}
