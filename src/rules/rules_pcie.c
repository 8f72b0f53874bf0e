/*
 * rules_pcie.c - the PCIe platform verdicts of the hardware layer: a GPU
 * whose BAR1 has no address (the driver then fails with "RmInitAdapter
 * failed"), and ACS redirecting peer-to-peer traffic on the switch ports
 * between two GPUs (NCCL's troubleshooting guide, PCI Access Control
 * Services: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html).
 * The IOMMU mode and BAR1 sizes are shown in an ok finding.  Reads the facts
 * of probes/hardware/pcie_platform.c; called by rules_hardware().
 */
#include "rules/rules.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void pcie_size(long long bytes, struct buf *b)
{
	if (bytes < 0)
		buf_puts(b, "size unknown");
	else if (bytes >= (1ll << 30))
		buf_printf(b, "%lld GiB", bytes >> 30);
	else
		buf_printf(b, "%lld MiB", bytes >> 20);
}

static void pcie_bar1(const struct hw_inventory *hw, struct report *rep)
{
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		struct buf id = BUF_INIT, sz = BUF_INIT;
		struct finding *f;

		if (g->bar1_assigned != 0)
			continue;
		buf_printf(&id, "hardware.bar1.%zu", i);
		pcie_size(g->bar1_size, &sz);
		f = report_add(rep, LAYER_HARDWARE, id.s, CAUSE_PCIE_BAR1_UNMAPPED, REACH_WORK,
			       "GPU %s: BAR1 has no address assigned; the driver cannot map it", g->bdf);
		finding_evidence(f, "/sys/bus/pci/devices/%s/resource line 1 (BAR1): no address "
				 "(%s)", g->bdf, sz.s);
		finding_fix_cmd(f, "sudo", "systemctl", "reboot", "--firmware-setup", NULL);
		finding_fix_note(f, "enable Above 4G Decoding (and Resizable BAR); in a VM give the guest a "
				 "64-bit MMIO window larger than the GPU's BAR1; then check: sudo lspci -vv -s "
				 "<the GPU's address> | grep 'Region 1'");
		buf_release(&id);
		buf_release(&sz);
	}
}

/* Index in g->upstream of the nearest bridge that is also above o, or -1. */
static int pcie_common(const struct hw_pci_fn *g, const struct hw_pci_fn *o)
{
	for (size_t a = 0; a < g->nupstream; a++)
		for (size_t b = 0; b < o->nupstream; b++)
			if (!strcasecmp(g->upstream[a], o->upstream[b]))
				return (int)a;
	return -1;
}

/*
 * The ports below the GPUs' nearest common bridge on g's side: peer traffic
 * enters the switch there, and ACS redirect on them sends it to the root.
 */
static void pcie_pair_side(const struct hw_inventory *hw, const struct hw_pci_fn *g, int below,
			   const struct hw_pci_fn *peer, char *mark, struct finding **f,
			   struct report *rep, int *unknown, struct fixwords *fix)
{
	for (int k = 0; k < below; k++) {
		const struct hw_bridge *b = hw_bridge_by_bdf(hw, g->upstream[k]);
		size_t at;

		if (!b)
			continue;
		at = (size_t)(b - hw->bridges);
		if (b->acs_ctl == -1)
			(*unknown)++;
		if (b->acs_ctl < 0 || !(b->acs_ctl & HW_ACS_P2P_BLOCKING) || mark[at])
			continue;
		mark[at] = 1;
		if (!*f) {
			*f = report_add(rep, LAYER_HARDWARE, "hardware.pcie-acs", CAUSE_PCIE_ACS_BLOCKS_P2P,
					REACH_WORK, "ACS redirects peer-to-peer traffic between GPUs "
					"behind a PCIe switch");
		}
		finding_evidence(*f, "bridge %s (between GPUs %s and %s): ACSCtl SrcValid%c "
				 "ReqRedir%c CmpltRedir%c (0x%04x)", b->bdf, g->bdf, peer->bdf,
				 b->acs_ctl & HW_ACS_SV ? '+' : '-', b->acs_ctl & HW_ACS_RR ? '+' : '-',
				 b->acs_ctl & HW_ACS_CR ? '+' : '-', (unsigned)b->acs_ctl);
		if (fix->n)
			fixwords_add(fix, FIX_AND);
		fixwords_add(fix, "sudo");
		fixwords_add(fix, "setpci");
		fixwords_add(fix, "-s");
		fixwords_add(fix, b->bdf);
		fixwords_add(fix, "ECAP_ACS+0x6.w=0000");
	}
}

static void pcie_acs(const struct hw_inventory *hw, struct report *rep, struct buf *okev)
{
	char *mark = xcalloc(hw->nbridges + 1, 1);
	struct fixwords fix = FIXWORDS_INIT;
	struct finding *f = NULL;
	int unknown = 0, pairs = 0;

	for (size_t i = 0; i < hw->ngpus; i++)
		for (size_t j = i + 1; j < hw->ngpus; j++) {
			const struct hw_pci_fn *a = &hw->gpus[i], *b = &hw->gpus[j];
			int ca = pcie_common(a, b), cb = pcie_common(b, a);

			if (ca < 0 || cb < 0)
				continue;
			pairs++;
			pcie_pair_side(hw, a, ca, b, mark, &f, rep, &unknown, &fix);
			pcie_pair_side(hw, b, cb, a, mark, &f, rep, &unknown, &fix);
		}
	if (f) {
		finding_fix_argv(f, fix.w);
		finding_evidence(f, "NCCL's troubleshooting guide: ACS forces P2P through the root "
				 "complex (slow, or hangs); disable it in the firmware or with setpci "
				 "(until the next boot; keep it where VMs need isolation)");
		if (hw->nnvswitches)
			finding_evidence(f, "GPU-to-GPU traffic takes NVLink through the NVSwitches "
					 "here; ACS still redirects what crosses these PCIe switches "
					 "(GPUDirect RDMA between GPUs and NICs)");
	} else if (unknown) {
		report_skip(rep, LAYER_HARDWARE, "hardware.pcie-acs",
			    "ACS on the switch ports between GPUs not checked: their PCI config "
			    "space is readable only by root");
	} else if (pairs) {
		buf_printf(okev, "%sACS off on the switch ports between %d GPU pair%s",
			   okev->len ? "; " : "", pairs, pairs == 1 ? "" : "s");
	}
	free(mark);
	fixwords_release(&fix);
}

void rules_pcie_platform(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	struct buf ev = BUF_INIT, sz = BUF_INIT;
	struct finding *f;
	int bar1_known = 0;

	if (!hw->ngpus)
		return;
	pcie_bar1(hw, rep);
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];

		if (g->bar1_assigned != 1)
			continue;
		buf_reset(&sz);
		pcie_size(g->bar1_size, &sz);
		buf_printf(&ev, "%s%s BAR1 %s", ev.len ? "; " : "", g->bdf, sz.s);
		bar1_known = 1;
	}
	pcie_acs(hw, rep, &ev);
	if (hw->iommu_units >= 0) {
		const char *type = hw->gpus[0].iommu_type;

		buf_printf(&ev, "%sIOMMU: %d unit%s, %d group%s%s%s%s%s", ev.len ? "; " : "",
			   hw->iommu_units, hw->iommu_units == 1 ? "" : "s", hw->iommu_groups,
			   hw->iommu_groups == 1 ? "" : "s", type ? ", GPU group type " : "",
			   type ? type : "", hw->iommu_cmdline ? ", kernel command line " : "",
			   hw->iommu_cmdline ? hw->iommu_cmdline : "");
	}
	if (ev.len) {
		/* The facts themselves in the title when they are short: text shows no ok evidence. */
		if (ev.len <= 160)
			f = report_ok(rep, LAYER_HARDWARE, "hardware.pcie-platform", "PCIe platform: %s",
				      ev.s);
		else
			f = report_ok(rep, LAYER_HARDWARE, "hardware.pcie-platform", "PCIe platform: %s",
				      bar1_known ? "BAR1 mapped" : "no problem seen");
		finding_evidence(f, "%s", ev.s);
	}
	buf_release(&ev);
	buf_release(&sz);
}
