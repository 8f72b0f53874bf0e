/* bench_judge.c - findings from bench figures; see bench_judge.h. */
#include "bench/bench_judge.h"
#include "bench/bench_pcie.h"
#include "core/buf.h"

#include <math.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *bench_fix_clocks =
	"nvidia-smi -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE   # 'Clocks Event Reasons' names any throttle; nvidia-smi --query-compute-apps=pid,used_memory --format=csv lists other processes";

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

static void bench_judge_copies(struct bench_gpu *g)
{
	struct buf ev = BUF_INIT, t = BUF_INIT;
	int degraded = bench_link_degraded(g, &ev);

	if (degraded) {
		const struct bench_result *h = &g->results[BENCH_H2D_PINNED], *d = &g->results[BENCH_D2H_PINNED];

		buf_printf(&ev, "; pinned copies %.1f GB/s to and %.1f GB/s from the GPU, against %.1f GB/s for %s",
			   h->value, d->value, g->pcie_gbs, g->pcie_label ? g->pcie_label : "the full link");
		bench_gpu_add_finding(g, REACH_WORK, CAUSE_PCIE_LINK_DEGRADED, "h2d_pinned",
				      "the GPU's PCIe link runs below its maximum speed or width", ev.s,
				      "Reseat the card in a full x16 slot; check riser cables and the BIOS PCIe settings; confirm under load with nvidia-smi -q -d PCIE");
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
			bench_gpu_add_finding(g, REACH_WORK, CAUSE_BENCH_BELOW_PEAK, bench_kind_info(k)->name, t.s, ev.s,
					      "numactl --cpunodebind=$(cat /sys/bus/pci/devices/<GPU>/numa_node) gpudoctor bench   # and check 'nvidia-smi topo -m' and the IOMMU mode (iommu=pt)");
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
		bench_gpu_add_note(g, CAUSE_PAGEABLE_COPIES_SLOW, bench_kind_info(k)->name, t.s, ev.s,
				      "Pin the host buffers that feed the GPU: DataLoader(..., pin_memory=True) or tensor.pin_memory() in PyTorch; cudaHostAlloc / cudaHostRegister in CUDA C");
	}
	buf_release(&ev);
	buf_release(&t);
}

static void bench_judge_device(struct bench_gpu *g)
{
	struct buf ev = BUF_INIT, t = BUF_INIT, why = BUF_INIT;

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
			bench_gpu_add_finding(g, REACH_WORK, CAUSE_GPU_COMPUTE_FAILED, ki->name, t.s, ev.s,
					      "nvidia-smi -q -d ECC,ROW_REMAPPER; sudo dmesg | grep -i xid   # then rerun gpudoctor bench; replace or service the GPU if it repeats");
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
		bench_gpu_add_finding(g, REACH_WORK, CAUSE_BENCH_BELOW_PEAK, ki->name, t.s, ev.s, bench_fix_clocks);
	}
	buf_release(&ev);
	buf_release(&t);
	buf_release(&why);
}

void bench_judge_gpu(struct bench_gpu *g)
{
	if (g->refused != CAUSE_NONE)
		return;
	bench_judge_copies(g);
	bench_judge_device(g);
	bench_judge_conv(g);
}

static const char *bench_fix_cudnn_hw =
	"nvidia-smi -q -d ECC,ROW_REMAPPER; sudo dmesg | grep -i xid   # then rerun gpudoctor bench; replace or service the GPU if it repeats";

static const char *const conv_dir_labels[] = { "forward", "backward data", "backward filter" };

/* A cause a child reported; fallback when it named none. */
static enum cause_id bench_cause(enum cause_id c, enum cause_id fallback)
{
	return c == CAUSE_NONE ? fallback : c;
}

/* Failed figures, one finding per cause (a cuDNN without kernels for this
 * GPU fails all nine alike): which ones, and the first message. */
static void bench_judge_conv_errors(struct bench_gpu *g)
{
	const struct bench_conv *c = &g->conv;
	int done[BENCH_CONV_DIRS][BENCH_CONV_PRECS] = { { 0 } };

	for (int d0 = 0; d0 < BENCH_CONV_DIRS; d0++)
		for (int p0 = 0; p0 < BENCH_CONV_PRECS; p0++) {
			const struct bench_conv_result *first = &c->r[d0][p0];
			enum cause_id cause = bench_cause(first->cause, CAUSE_CUDNN_CALL_FAILED);
			struct buf t = BUF_INIT, which = BUF_INIT;
			int n = 0;

			if (!first->error || done[d0][p0])
				continue;
			for (int d = 0; d < BENCH_CONV_DIRS; d++)
				for (int p = 0; p < BENCH_CONV_PRECS; p++) {
					const struct bench_conv_result *r = &c->r[d][p];

					if (!r->error || done[d][p] || bench_cause(r->cause, CAUSE_CUDNN_CALL_FAILED) != cause)
						continue;
					done[d][p] = 1;
					buf_printf(&which, "%s%s %s", n++ ? ", " : "", conv_dir_labels[d], bench_conv_prec_label(p));
				}
			buf_printf(&t, "%d cuDNN convolution%s failed (%s)", n, n == 1 ? "" : "s", which.s);
			bench_gpu_add_finding(g, REACH_WORK, cause, "conv", t.s, first->error,
					      cause == CAUSE_CUDNN_NO_KERNEL_FOR_ARCH
					      ? "gpudoctor matrix --solve   # a cuDNN release that still ships kernels for this GPU's architecture"
					      : "gpudoctor check   # then gpudoctor matrix --solve for a cuDNN release that fits this driver and GPU");
			buf_release(&t);
			buf_release(&which);
		}
}

static void bench_judge_conv_wrong(struct bench_gpu *g)
{
	const struct bench_conv *c = &g->conv;
	struct buf t = BUF_INIT, ev = BUF_INIT, which = BUF_INIT;
	double worst = 0;
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
		buf_printf(&t, "%d cuDNN convolution%s gave wrong results", n, n == 1 ? "" : "s");
		buf_printf(&ev, "sampled outputs of the %s convolution differ from a float64 CPU reference (worst relative error %.3g): %s",
			   c->shape ? c->shape : "", worst, which.s);
		bench_gpu_add_finding(g, REACH_WORK, CAUSE_CUDNN_WRONG_RESULT, "conv", t.s, ev.s, bench_fix_cudnn_hw);
	}
	buf_release(&t);
	buf_release(&ev);
	buf_release(&which);
}

void bench_judge_conv(struct bench_gpu *g)
{
	struct bench_conv *c = &g->conv;
	struct buf ev = BUF_INIT, t = BUF_INIT;

	if (!c->ran)
		return;
	if (c->refused != CAUSE_NONE) {
		const char *fix = "gpudoctor check   # names the broken link below cuDNN";

		if (c->refused == CAUSE_CUDNN_MISSING)
			fix = "pip install nvidia-cudnn-cu13   # or the distribution's cuDNN 9 package; then gpudoctor bench --cudnn /path/to/libcudnn.so.9";
		else if (c->refused == CAUSE_CUDNN_NOT_INITIALIZED)
			fix = "gpudoctor check   # cuDNN could not start its runtime on this driver/GPU: the CUDA layer or a cuDNN built for a newer CUDA than the driver supports";
		else if (c->refused == CAUSE_CUDNN_NO_KERNEL_FOR_ARCH)
			fix = "gpudoctor matrix --solve   # pick a cuDNN release that still ships kernels for this GPU's architecture";
		else if (c->refused == CAUSE_CUDNN_HANG)
			fix = "nvidia-smi; sudo dmesg | grep -i xid   # a GPU that hangs a kernel needs a reset (nvidia-smi -r) or a reboot";
		buf_printf(&t, "cuDNN convolutions could not run%s", c->cudnn ? "" : ": no cuDNN loaded");
		buf_printf(&ev, "%s%s%s", c->refused_msg ? c->refused_msg : cause_id_str(c->refused),
			   c->cudnn ? "; cuDNN: " : "", c->cudnn ? c->cudnn : "");
		/* No cuDNN to measure is a note for bench (check judges the library). */
		if (bench_cause(c->refused, CAUSE_CUDNN_CALL_FAILED) == CAUSE_CUDNN_MISSING)
			bench_gpu_add_note(g, CAUSE_CUDNN_MISSING, "conv", t.s, ev.s, fix);
		else
			bench_gpu_add_finding(g, REACH_WORK, bench_cause(c->refused, CAUSE_CUDNN_CALL_FAILED),
					      "conv", t.s, ev.s, fix);
	}
	bench_judge_conv_errors(g);
	bench_judge_conv_wrong(g);
	for (int d = 0; d < BENCH_CONV_DIRS; d++)
		for (int p = 0; p < BENCH_CONV_PRECS; p++) {
			const struct bench_conv_result *r = &c->r[d][p];

			if (r->error || r->verified == 0 || isnan(r->percent) || r->percent >= BENCH_CONV_MIN_PCT)
				continue;
			buf_reset(&ev);
			buf_reset(&t);
			buf_printf(&t, "cuDNN %s %s reaches only %.0f%% of the datasheet peak", conv_dir_labels[d],
				   bench_conv_prec_label(p), r->percent);
			buf_printf(&ev, "%.1f TFLOP/s measured, datasheet %.1f TFLOP/s, algorithm %d", r->value,
				   r->ceiling, r->algo);
			bench_gpu_add_finding(g, REACH_WORK, CAUSE_BENCH_BELOW_PEAK, "conv", t.s, ev.s, bench_fix_clocks);
		}
	buf_release(&ev);
	buf_release(&t);
}

void bench_judge_nccl(struct bench_nccl *n)
{
	struct buf ev = BUF_INIT, t = BUF_INIT;
	static const char *const labels[] = { "all-reduce", "all-gather", "reduce-scatter" };

	if (!n->ran)
		return;
	if (n->refused != CAUSE_NONE) {
		int missing = n->refused == CAUSE_NCCL_MISSING;
		const char *fix = missing ? "pip install nvidia-nccl-cu13   # or the distribution's libnccl2; then gpudoctor bench --nccl /path/to/libnccl.so.2"
			: n->refused == CAUSE_NCCL_HANG
			? "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH gpudoctor bench   # then: df -h /dev/shm (docker: --shm-size=1g or --ipc=host); nvidia-smi topo -m; try NCCL_P2P_DISABLE=1 to tell a broken P2P path"
			: "NCCL_DEBUG=INFO gpudoctor bench   # NCCL's WARN lines name the failing step";

		buf_printf(&t, "NCCL collectives could not run");
		buf_printf(&ev, "%s%s%s", n->refused_msg ? n->refused_msg : cause_id_str(n->refused),
			   n->nccl_warning ? "; NCCL WARN: " : "", n->nccl_warning ? n->nccl_warning : "");
		if (missing)
			bench_nccl_add_note(n, bench_cause(n->refused, CAUSE_NCCL_CALL_FAILED), t.s, ev.s, fix);
		else
			bench_nccl_add_finding(n, REACH_WORK, bench_cause(n->refused, CAUSE_NCCL_CALL_FAILED),
					       t.s, ev.s, fix);
	}
	if (n->verified == 0) {
		bench_nccl_add_finding(n, REACH_WORK, CAUSE_NCCL_CALL_FAILED, "an NCCL all-reduce gave wrong sums",
				       "a 1 MiB FP32 all-reduce of rank+1 on every GPU did not give n(n+1)/2 everywhere",
				       "NCCL_P2P_DISABLE=1 gpudoctor bench   # a correct result with P2P off points at the P2P path (IOMMU/ACS); nvidia-smi topo -m");
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
		bench_nccl_add_finding(n, REACH_WORK, CAUSE_BENCH_BELOW_PEAK, t.s, ev.s,
				       "nvidia-smi topo -m; nvidia-smi nvlink -s; env | grep ^NCCL_   # P2P or NVLink off (NCCL_P2P_DISABLE, IOMMU/ACS), or SHM only");
	}
	buf_release(&ev);
	buf_release(&t);
}

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
		for (size_t k = 0; k < r->gpus[i].nfindings; k++)
			if (r->gpus[i].findings[k].status > worst)
				worst = r->gpus[i].findings[k].status;
	for (size_t k = 0; k < r->nccl.nfindings; k++)
		if (r->nccl.findings[k].status > worst)
			worst = r->nccl.findings[k].status;
	return worst;
}
