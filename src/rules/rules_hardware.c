/*
 * rules_hardware.c - verdicts for the hardware layer: is there an NVIDIA GPU,
 * who drives it, and does its PCIe link run as wide as it can.
 *
 * A GPU on nouveau/nova-core or on no driver at all is not judged here: the
 * kernel layer owns those causes (nouveau-loaded, nvidia-module-not-loaded).
 *
 * PCIe links: a link narrower than its maximum (x8 of x16) is a real fault
 * (seating, riser, slot wiring) and warns.  A link slower than its maximum
 * with full width is what an idle GPU does to save power (it drops to Gen1
 * and retrains under load), so speed alone only shows in the evidence of the
 * ok finding; when width is degraded the speed is reported beside it.
 */
#include "rules/rules.h"
#include "rules/rules_platform.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0000:18:00.0 (NVIDIA H200)" or "0000:18:00.0 (10de:2335)". */
static void gpu_label(const struct rules_in *in, const struct hw_pci_fn *g, struct buf *out)
{
	const struct kb_gpu *k = NULL;

	if (in->kb && g->device >= 0)
		k = kb_gpu_by_pci(in->kb, (unsigned)g->vendor, (unsigned)g->device);
	buf_reset(out);
	if (k && k->name)
		buf_printf(out, "%s (%s)", g->bdf, k->name);
	else if (g->device >= 0)
		buf_printf(out, "%s (%04lx:%04lx)", g->bdf, g->vendor, g->device);
	else
		buf_printf(out, "%s", g->bdf);
}

static void link_text(const struct hw_pci_fn *g, int max, struct buf *out)
{
	double gts = max ? g->max_speed_gts : g->speed_gts;
	int w = max ? g->max_width : g->width;
	int gen = hw_pcie_gen(gts);

	if (gen > 0)
		buf_printf(out, "Gen%d", gen);
	else if (!isnan(gts))
		buf_printf(out, "%g GT/s", gts);
	else
		buf_puts(out, "speed unknown");
	if (w >= 0)
		buf_printf(out, " x%d", w);
}

static void rules_pcie(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	struct buf lbl = BUF_INIT, now = BUF_INIT, max = BUF_INIT, id = BUF_INIT;
	struct finding *ok = NULL;

	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		int narrow = g->width >= 0 && g->max_width > 0 && g->width < g->max_width;
		int slow = !isnan(g->speed_gts) && !isnan(g->max_speed_gts) &&
			   g->speed_gts + 0.01 < g->max_speed_gts;
		if (g->width < 0 && isnan(g->speed_gts))
			continue;	/* no link attributes (a VM's bridge, a fixture) */
		gpu_label(in, g, &lbl);
		buf_reset(&now);
		buf_reset(&max);
		link_text(g, 0, &now);
		link_text(g, 1, &max);
		if (narrow) {
			struct finding *f;

			buf_reset(&id);
			buf_printf(&id, "hardware.pcie-link.%s", g->bdf);
			f = report_add(rep, LAYER_HARDWARE, id.s, CAUSE_PCIE_LINK_DEGRADED, REACH_WORK,
				       "GPU %s: PCIe link runs at x%d of x%d lanes", lbl.s,
				       g->width, g->max_width);
			finding_evidence(f, "/sys/bus/pci/devices/%s/current_link_width: %d, "
					 "max_link_width: %d", g->bdf, g->width, g->max_width);
			finding_evidence(f, "current_link_speed: %s, max_link_speed: %s%s",
					 g->link_speed ? g->link_speed : "unknown",
					 g->link_max_speed ? g->link_max_speed : "unknown",
					 slow ? " (a lower speed alone can be idle power saving; "
						"fewer lanes is not)" : "");
			/* The PCI directory name comes from sysfs: one quoted word. */
			finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PCIE", "-i", g->bdf, NULL);
			finding_fix_note(f, "compare under load after reseating the GPU in a full x16 "
					 "slot and checking riser cables and the BIOS PCIe lane "
					 "settings");
			continue;
		}
		if (!ok)
			ok = report_ok(rep, LAYER_HARDWARE, "hardware.pcie-link",
					"PCIe links run at full width");
		finding_evidence(ok, "%s: %s (max %s)%s", lbl.s, now.s, max.s,
				 slow ? "; the lower speed is normal while the GPU idles "
					"(power saving), it retrains under load" : "");
	}
	buf_release(&lbl);
	buf_release(&now);
	buf_release(&max);
	buf_release(&id);
}

static void rules_binding(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	struct buf lbl = BUF_INIT, id = BUF_INIT;

	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		struct finding *f;

		if (!g->driver || !strcmp(g->driver, "nvidia") || hw_driver_is_nouveau(g->driver))
			continue;
		gpu_label(in, g, &lbl);
		buf_reset(&id);
		buf_printf(&id, "hardware.driver.%s", g->bdf);
		f = report_add(rep, LAYER_HARDWARE, id.s, CAUSE_GPU_BOUND_TO_OTHER_DRIVER, REACH_WORK,
			       "GPU %s is bound to %s, not nvidia", lbl.s, g->driver);
		finding_evidence(f, "/sys/bus/pci/devices/%s/driver -> .../%s", g->bdf, g->driver);
		if (!strcmp(g->driver, "vfio-pci"))
			finding_evidence(f, "vfio-pci holds GPUs for passthrough to virtual machines");
		{
			char *unbind = xasprintf("/sys/bus/pci/drivers/%s/unbind", g->driver);

			finding_fix_cmd(f, "echo", g->bdf, FIX_PIPE, "sudo", "tee", unbind, FIX_AND,
					"echo", g->bdf, FIX_PIPE, "sudo", "tee", "/sys/bus/pci/drivers/nvidia/bind", NULL);
			finding_fix_note(f, "and remove vfio-pci.ids=10de:%04lx from the kernel command line or "
					 "/etc/modprobe.d to keep it after a reboot", g->device >= 0 ? g->device : 0L);
			free(unbind);
		}
	}
	buf_release(&lbl);
	buf_release(&id);
}

static void rules_gpus_ok(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	struct buf lbl = BUF_INIT;
	struct finding *f;

	f = report_ok(rep, LAYER_HARDWARE, "hardware.gpus",
		       "%zu NVIDIA GPU%s on the PCI bus", hw->ngpus, hw->ngpus == 1 ? "" : "s");
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];

		gpu_label(in, g, &lbl);
		finding_evidence(f, "%s: class 0x%06lx, subsystem %04lx:%04lx, driver %s, "
				 "NUMA node %d", lbl.s, g->class_code,
				 g->subsys_vendor >= 0 ? g->subsys_vendor : 0L,
				 g->subsys_device >= 0 ? g->subsys_device : 0L,
				 g->driver ? g->driver : "(none)", g->numa_node);
	}
	if (hw->nnvswitches) {
		f = report_ok(rep, LAYER_HARDWARE, "hardware.nvswitch",
			       "%zu NVSwitch%s present: CUDA needs Fabric Manager on this system",
			       hw->nnvswitches, hw->nnvswitches == 1 ? "" : "es");
		for (size_t i = 0; i < hw->nnvswitches; i++)
			finding_evidence(f, "%s: %04lx:%04lx class 0x%06lx, driver %s",
					 hw->nvswitches[i].bdf, hw->nvswitches[i].vendor,
					 hw->nvswitches[i].device, hw->nvswitches[i].class_code,
					 hw->nvswitches[i].driver ? hw->nvswitches[i].driver : "(none)");
	}
	buf_release(&lbl);
}

static void rules_summary(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	struct buf s = BUF_INIT;
	const char *drv = NULL;
	int same = 1;

	for (size_t i = 0; i < hw->ngpus; i++) {
		const char *d = hw->gpus[i].driver ? hw->gpus[i].driver : "no driver";

		if (!drv)
			drv = d;
		else if (strcmp(drv, d) != 0)
			same = 0;
	}
	if (hw->ngpus == 1)
		buf_printf(&s, "1 NVIDIA GPU (%s)", hw->gpus[0].bdf);
	else
		buf_printf(&s, "%zu NVIDIA GPUs", hw->ngpus);
	if (drv && same)
		buf_printf(&s, " %s %s", strcmp(drv, "no driver") ? "bound to" : "with", drv);
	else
		buf_puts(&s, " on mixed drivers");
	if (hw->nnvswitches)
		buf_printf(&s, ", %zu NVSwitch%s", hw->nnvswitches,
			   hw->nnvswitches == 1 ? "" : "es");
	report_set_summary(rep, LAYER_HARDWARE, "%s", s.s);
	buf_release(&s);
}

void rules_hardware(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;

	if (rules_platform_hardware(in, rep))
		return;		/* WSL: the GPU belongs to Windows */
	if (!hw->ngpus) {
		struct finding *f = report_add(rep, LAYER_HARDWARE, "hardware.gpus", CAUSE_NO_NVIDIA_GPU,
					       REACH_WORK,
					       "no NVIDIA GPU is visible on the PCI bus");

		if (hw->error)
			finding_evidence(f, "%s", hw->error);
		else
			finding_evidence(f, "/sys/bus/pci/devices: %zu PCI functions, none with "
					 "vendor 0x10de and a display/3D class (0x03xxxx)",
					 hw->nfunctions);
		if (hw->nnvswitches)
			finding_evidence(f, "%zu NVSwitch bridge(s) are visible but no GPU",
					 hw->nnvswitches);
		finding_fix(f, "lspci -nn -d 10de: (nothing listed: check the VM's PCI "
			    "passthrough, the cloud instance type, or on bare metal the card's "
			    "seating and power cables)");
		report_set_summary(rep, LAYER_HARDWARE, "no NVIDIA GPU");
		return;
	}
	rules_gpus_ok(in, rep);
	rules_binding(in, rep);
	rules_pcie(in, rep);
	rules_pcie_platform(in, rep);
	rules_summary(in, rep);
}
