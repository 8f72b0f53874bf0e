/*
 * rules_fabric.c - NVSwitch system verdicts of the driver layer: on a machine
 * with NVSwitches (PCI class 0x0680 functions of NVIDIA, inv->hw.nvswitches,
 * or /dev/nvidia-nvswitchN nodes) the NVIDIA Fabric Manager must run, at
 * exactly the driver's version, and NVML must report each GPU's fabric
 * registration completed; otherwise CUDA fails with 802 "system not yet
 * initialized".  IMEX (GB200 NVL72-class systems) is noted.  Source: NVIDIA
 * Fabric Manager user guide,
 * https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html
 * Machines without NVSwitches get no finding here.  Called by rules_driver().
 */
#include "rules/rules.h"
#include "core/buf.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* nvmlGpuFabricState_t (nvml.h) */
#define FABRIC_NOT_SUPPORTED 0
#define FABRIC_COMPLETED 3

static const char *fabric_state_name(int s)
{
	switch (s) {
	case 0: return "not supported";
	case 1: return "not started";
	case 2: return "in progress";
	case 3: return "completed";
	default: return "unknown";
	}
}

/* The driver version Fabric Manager must equal: the loaded module's, else the library's. */
static const char *fabric_driver_version(const struct driver_inventory *d)
{
	return d->kernel_module_version ? d->kernel_module_version : d->version;
}

static void fabric_switch_evidence(const struct hw_inventory *hw,
				   const struct fabricmanager_info *fm, struct finding *f)
{
	if (hw->nnvswitches)
		finding_evidence(f, "%zu NVSwitch PCI function%s (class 0x0680, vendor 0x10de), "
				 "first %s", hw->nnvswitches, hw->nnvswitches == 1 ? "" : "s",
				 hw->nvswitches[0].bdf);
	if (fm->nvswitch_nodes > 0)
		finding_evidence(f, "%d /dev/nvidia-nvswitchN node%s", fm->nvswitch_nodes,
				 fm->nvswitch_nodes == 1 ? "" : "s");
}

/* GPUs whose fabric registration NVML reports as not complete; evidence for each. */
static int fabric_incomplete(const struct nvml_info *n, struct finding *f)
{
	int bad = 0;

	for (size_t i = 0; n->outcome == NVML_RAN_OK && i < n->ngpus; i++) {
		const struct nvml_gpu *g = &n->gpus[i];

		if (g->fabric_state < 0 || g->fabric_state == FABRIC_NOT_SUPPORTED)
			continue;
		if (g->fabric_state == FABRIC_COMPLETED && g->fabric_status == 0)
			continue;
		bad++;
		if (f)
			finding_evidence(f, "GPU %d: nvmlDeviceGetGpuFabricInfo state %d (%s), status %d (%s)",
					 g->index, g->fabric_state, fabric_state_name(g->fabric_state),
					 g->fabric_status, nvml_return_name(g->fabric_status));
	}
	return bad;
}

static int fabric_branch(const char *version)
{
	return version ? atoi(version) : 0;
}

void rules_fabric(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	const struct driver_inventory *d = &in->inv->driver;
	const struct fabricmanager_info *fm = &d->fm;
	const char *drv = fabric_driver_version(d);
	struct finding *f;
	int branch = fabric_branch(drv);

	if (!hw->nnvswitches && fm->nvswitch_nodes <= 0)
		return;
	if (fm->pid < 0 && (fm->procs_listed || (!fm->binary && !fm->unit))) {
		f = report_add(rep, LAYER_DRIVER, "driver.fabricmanager", CAUSE_FABRIC_MANAGER_NOT_RUNNING,
			       REACH_WORK, "NVSwitch system without a running Fabric Manager: CUDA "
			       "initialisation fails with 802 (system not yet initialized)");
		fabric_switch_evidence(hw, fm, f);
		if (fm->binary || fm->unit)
			finding_evidence(f, "installed (%s), %s; no nv-fabricmanager process in /proc",
					 fm->unit ? fm->unit : fm->binary,
					 fm->enabled == 1 ? "enabled" : fm->enabled == 0 ? "not enabled"
					 : "enablement unknown");
		else
			finding_evidence(f, "not installed: no /usr/bin/nv-fabricmanager, no "
					 "nvidia-fabricmanager.service");
		fabric_incomplete(&d->nvml_live, f);
		if (fm->binary || fm->unit)
			finding_fix(f, "sudo systemctl enable --now nvidia-fabricmanager; "
				    "journalctl -u nvidia-fabricmanager -n 50");
		else if (branch > 0)
			{
				char pkg[48];

				snprintf(pkg, sizeof(pkg), "nvidia-fabricmanager-%d", branch);
				finding_fix_cmd(f, "sudo", "apt-get", "install", pkg, FIX_AND, "sudo", "systemctl", "enable",
						"--now", "nvidia-fabricmanager", NULL);
				finding_fix_note(f, "the package of the driver's branch; its version must be the driver's");
			}
		else
			finding_fix_catalogue(f);
		return;
	}
	if (fm->version && drv && strcmp(fm->version, drv) != 0) {
		f = report_add(rep, LAYER_DRIVER, "driver.fabricmanager-version",
			       CAUSE_FABRIC_MANAGER_VERSION_MISMATCH, REACH_WORK,
			       "Fabric Manager %s is not the driver's version %s", fm->version, drv);
		finding_evidence(f, "Fabric Manager %s (%s)", fm->version,
				 fm->version_source ? fm->version_source : "?");
		finding_evidence(f, "driver %s (%s)", drv, d->kernel_module_version
				 ? "the loaded kernel module" : d->version_source ? d->version_source : "?");
		fabric_incomplete(&d->nvml_live, f);
		{
			const char *pkg = fm->package ? fm->package : "nvidia-fabricmanager";

			finding_fix_cmd(f, "apt-cache", "madison", pkg, NULL);
			finding_fix_note(f, "then install the driver's version of it (sudo apt-get install "
					 "PACKAGE=VERSION) and sudo systemctl restart nvidia-fabricmanager");
		}
		return;
	}
	if (fabric_incomplete(&d->nvml_live, NULL)) {
		f = report_add(rep, LAYER_DRIVER, "driver.fabric", CAUSE_FABRIC_MANAGER_NOT_RUNNING,
			       REACH_WORK, "Fabric Manager runs but the GPUs' NVSwitch fabric is not "
			       "set up: CUDA initialisation fails with 802");
		fabric_incomplete(&d->nvml_live, f);
		finding_evidence(f, "nv-fabricmanager pid %lld", fm->pid);
		finding_fix(f, "journalctl -u nvidia-fabricmanager -n 100; sudo systemctl restart "
			    "nvidia-fabricmanager");
		return;
	}
	if (fm->pid < 0) {
		report_skip(rep, LAYER_DRIVER, "driver.fabricmanager",
			    "Fabric Manager installed; whether it runs is unknown (/proc not readable)");
		return;
	}
	f = report_ok(rep, LAYER_DRIVER, "driver.fabricmanager", "Fabric Manager %s runs%s",
		      fm->version ? fm->version : "(version unknown)",
		      fm->version && drv ? " at the driver's version" : "");
	fabric_switch_evidence(hw, fm, f);
	finding_evidence(f, "nv-fabricmanager pid %lld", fm->pid);
	if (fm->imex_binary || fm->imex_channels)
		finding_evidence(f, "IMEX: %s%s", fm->imex_pid > 0 ? "nvidia-imex running" :
				 fm->imex_binary ? "nvidia-imex installed, not running" :
				 "nvidia-imex not installed",
				 fm->imex_channels ? ", /dev/nvidia-caps-imex-channels present" : "");
}
