/*
 * rules_kernel.c - verdicts for the kernel layer: is the nvidia module loaded,
 * and if not, why not; does nouveau/nova-core hold a GPU; is nvidia_uvm there.
 *
 * When nvidia is not loaded one cause is named, the most specific first:
 * nouveau-loaded (another driver owns the GPU), module-missing-for-kernel
 * (nothing to load for the running kernel), secure-boot-blocks-module (a
 * module exists but Secure Boot is on, the usual "Key was rejected by
 * service"), else nvidia-module-not-loaded.
 *
 * nvidia_uvm: the driver loads it on demand -- libcuda runs nvidia-modprobe,
 * which is setuid root in NVIDIA's packages, when /dev/nvidia-uvm is missing.
 * So "not loaded" is only a warning when that cannot happen (no setuid
 * nvidia-modprobe and not root, or inside a container, where nothing can
 * load modules); otherwise it is an ok finding that says it loads on first use.
 */
#include "rules/rules.h"
#include "rules/rules_platform.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "inventory/inventory.h"

#include <string.h>

static int nvidia_loaded(const struct kernel_inventory *k)
{
	if (k->mods[KMOD_NVIDIA].loaded >= 0)
		return k->mods[KMOD_NVIDIA].loaded == 1;
	/* No /proc/modules: the module's own files say it is there. */
	if (k->module_version)
		return 1;
	return -1;
}

static void modules_line(const struct kmod_state *m, const char *name, struct buf *out)
{
	buf_reset(out);
	buf_printf(out, "/proc/modules: %s", name);
	if (m->state[0])
		buf_printf(out, " %s", m->state);
	if (m->refcount >= 0)
		buf_printf(out, ", used by %ld", m->refcount);
	if (m->taint[0])
		buf_printf(out, ", taint (%s)", m->taint);
}

/* Can nvidia_uvm and the /dev nodes appear on first CUDA use? */
static int loads_on_demand(const struct rules_in *in)
{
	const struct kernel_inventory *k = &in->inv->kernel;

	if (in->inv->devices.in_container)
		return 0;
	return k->nvidia_modprobe == 1 || (k->nvidia_modprobe == 0 && in->inv->devices.euid == 0);
}

static int rules_nouveau(const struct rules_in *in, struct report *rep, int nv_loaded)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	const struct hw_inventory *hw = &in->inv->hw;
	static const enum kmod_id ids[] = { KMOD_NOUVEAU, KMOD_NOVA_CORE };
	struct buf b = BUF_INIT;
	struct finding *f;
	int bound = 0, loaded = 0;

	for (size_t i = 0; i < hw->ngpus; i++)
		bound += hw_driver_is_nouveau(hw->gpus[i].driver);
	for (size_t i = 0; i < 2; i++)
		loaded += k->mods[ids[i]].loaded == 1;
	if (!bound && !loaded)
		return 0;
	/* Loaded but owning no GPU while nvidia drives them all: it could still
	 * grab a GPU at the next boot, so warn; owning a GPU is the failure. */
	f = report_add(rep, LAYER_KERNEL, "kernel.nouveau",
		       CAUSE_NOUVEAU_LOADED, bound || nv_loaded != 1 ? REACH_WORK : REACH_LATENT,
		       bound ? "the open-source nouveau/nova-core driver owns %d GPU%s" :
			       "the open-source nouveau/nova-core driver is loaded",
		       bound, bound == 1 ? "" : "s");
	for (size_t i = 0; i < 2; i++) {
		if (k->mods[ids[i]].loaded != 1)
			continue;
		modules_line(&k->mods[ids[i]], kernel_module_name(ids[i]), &b);
		finding_evidence(f, "%s", b.s);
	}
	for (size_t i = 0; i < hw->ngpus; i++)
		if (hw_driver_is_nouveau(hw->gpus[i].driver))
			finding_evidence(f, "/sys/bus/pci/devices/%s/driver -> .../%s",
					 hw->gpus[i].bdf, hw->gpus[i].driver);
	finding_fix(f, "printf 'blacklist nouveau\\noptions nouveau modeset=0\\nblacklist nova_core\\n"
		    "blacklist nova_drm\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf && "
		    "sudo update-initramfs -u && sudo reboot");
	buf_release(&b);
	return bound > 0;
}

static void evidence_not_loaded(const struct rules_in *in, struct finding *f)
{
	const struct kernel_inventory *k = &in->inv->kernel;

	if (k->modules_error)
		finding_evidence(f, "%s", k->modules_error);
	else if (k->mods[KMOD_NVIDIA].loaded == 1)
		finding_evidence(f, "/proc/modules: nvidia is in state %s",
				 k->mods[KMOD_NVIDIA].state);
	else
		finding_evidence(f, "/proc/modules has no line for nvidia");
	if (k->release)
		finding_evidence(f, "running kernel %s (/proc/sys/kernel/osrelease)", k->release);
	if (k->module_file)
		finding_evidence(f, "module file for it: %s", k->module_file);
	else if (k->module_search_note)
		finding_evidence(f, "%s", k->module_search_note);
	if (k->secure_boot_evidence)
		finding_evidence(f, "Secure Boot %s: %s",
				 k->secure_boot == 1 ? "on" : k->secure_boot == 0 ? "off" : "unknown",
				 k->secure_boot_evidence);
}

static void rules_not_loaded(const struct rules_in *in, struct report *rep)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	struct finding *f;

	if (k->module_file_found == 0) {
		f = report_add(rep, LAYER_KERNEL, "kernel.module", CAUSE_MODULE_MISSING_FOR_KERNEL,
			       REACH_WORK,
			       "the nvidia module is not loaded and none is built for kernel %s",
			       k->release ? k->release : "(unknown)");
		evidence_not_loaded(in, f);
		finding_fix(f, k->secure_boot == 1 ?
			    "sudo apt-get install linux-headers-$(uname -r) && sudo dkms autoinstall && sudo modprobe "
			    "nvidia; Secure Boot is on, so enroll the DKMS signing key first: sudo mokutil --import "
			    "/var/lib/dkms/mok.pub, reboot and enroll it (or boot the kernel the driver was built for)" :
			    "sudo apt-get install linux-headers-$(uname -r) && sudo dkms autoinstall && sudo modprobe "
			    "nvidia (or boot the kernel the driver was built for)");
	} else if (rules_platform_lockdown(in, rep)) {
		/* lockdown named as the reason; it carries the Secure Boot state */
	} else if (k->secure_boot == 1) {
		f = report_add(rep, LAYER_KERNEL, "kernel.module", CAUSE_SECURE_BOOT_BLOCKS_MODULE,
			       REACH_WORK,
			       "the nvidia module is not loaded and Secure Boot is on");
		evidence_not_loaded(in, f);
		finding_evidence(f, "with Secure Boot the kernel refuses modules not signed by an "
				 "enrolled key (modprobe: \"Key was rejected by service\")");
		finding_fix(f, "sudo mokutil --import /var/lib/dkms/mok.pub, reboot and enroll the "
			    "key in the MOK manager, then sudo dkms autoinstall && "
			    "sudo modprobe nvidia (or disable Secure Boot in the firmware)");
	} else {
		f = report_add(rep, LAYER_KERNEL, "kernel.module", CAUSE_NVIDIA_MODULE_NOT_LOADED,
			       REACH_WORK, "the nvidia kernel module is not loaded");
		evidence_not_loaded(in, f);
		finding_fix(f, "sudo modprobe nvidia && sudo dmesg | grep -i -e NVRM -e nvidia | tail");
	}
}

static void rules_loaded(const struct rules_in *in, struct report *rep)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	const char *ver = k->module_version;
	const char *flavour = k->open_module == 1 ? " (open kernel module)" :
			      k->open_module == 0 ? " (proprietary kernel module)" : "";
	struct buf b = BUF_INIT;
	struct finding *f;

	f = report_ok(rep, LAYER_KERNEL, "kernel.module-version",
		       "nvidia %s%s loaded", ver ? ver : "(version unknown)", flavour);
	if (k->mods[KMOD_NVIDIA].loaded == 1) {
		modules_line(&k->mods[KMOD_NVIDIA], "nvidia", &b);
		finding_evidence(f, "%s", b.s);
	}
	if (k->sys_version)
		finding_evidence(f, "/sys/module/nvidia/version: %s", k->sys_version);
	if (k->proc_version_line)
		finding_evidence(f, "/proc/driver/nvidia/version: %s", k->proc_version_line);
	if (k->release)
		finding_evidence(f, "running kernel %s", k->release);
	if (k->module_file_found == 0 && k->release && k->modules_dir_present == 0) {
		/*
		 * No /lib/modules/RELEASE at all while the module is loaded: the
		 * kernel's modules live outside this filesystem (a VM given its
		 * kernel by the host, a container).  Nothing to warn about here.
		 */
		finding_evidence(f, "/lib/modules/%s does not exist: this system's kernel modules "
				 "are provided from outside this filesystem (VM or container), so "
				 "whether the module loads after a reboot is not decided here",
				 k->release);
	} else if (k->module_file_found == 0 && in->inv->platform.operator_root) {
		/*
		 * A GPU Operator node: the driver container builds the module for
		 * the running kernel and loads it at each start; the host's
		 * /lib/modules never has it (GPU Operator docs, "driver container").
		 */
		finding_evidence(f, "no nvidia.ko under the host's /lib/modules/%s: the GPU Operator's "
				 "driver container (%s) builds and loads it at each start", k->release,
				 in->inv->platform.operator_root);
	} else if (k->module_file_found == 0 && k->release) {
		f = report_add(rep, LAYER_KERNEL, "kernel.module-file", CAUSE_MODULE_MISSING_FOR_KERNEL,
			       REACH_LATENT,
			       "nvidia is loaded, but no nvidia module for kernel %s is on disk",
			       k->release);
		finding_evidence(f, "%s", k->module_search_note ? k->module_search_note :
					  "no nvidia.ko found");
		finding_evidence(f, "the module will not load after the next reboot");
		finding_fix(f, "sudo apt-get install --reinstall linux-headers-$(uname -r) && "
			    "sudo dkms autoinstall (or reinstall the driver's kernel module package)");
	}
	buf_release(&b);
}

static void rules_unbound(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;

	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		struct buf id = BUF_INIT;
		struct finding *f;

		if (g->driver)
			continue;
		buf_printf(&id, "kernel.unbound.%s", g->bdf);
		f = report_add(rep, LAYER_KERNEL, id.s, CAUSE_GPU_BOUND_TO_OTHER_DRIVER, REACH_WORK,
			       "GPU %s is bound to no driver although nvidia is loaded", g->bdf);
		finding_evidence(f, "/sys/bus/pci/devices/%s/driver does not exist", g->bdf);
		finding_evidence(f, "nvidia did not claim it: an unsupported GPU for this driver "
				 "branch, NVreg_ExcludedGpus, or an initialisation error (RmInitAdapter)");
		finding_fix_cmd(f, "sudo", "dmesg", FIX_PIPE, "grep", "-i", "-e", "NVRM", "-e", g->bdf, FIX_PIPE, "tail",
				FIX_SEMI, "echo", g->bdf, FIX_PIPE, "sudo", "tee", "/sys/bus/pci/drivers/nvidia/bind", NULL);
		buf_release(&id);
	}
}

static void rules_uvm(const struct rules_in *in, struct report *rep)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	const struct kmod_state *u = &k->mods[KMOD_NVIDIA_UVM];
	struct buf b = BUF_INIT;
	struct finding *f;

	if (u->loaded == 1) {
		modules_line(u, "nvidia_uvm", &b);
		f = report_ok(rep, LAYER_KERNEL, "kernel.uvm", "nvidia_uvm loaded");
		finding_evidence(f, "%s", b.s);
	} else if (u->loaded == 0 && loads_on_demand(in)) {
		f = report_ok(rep, LAYER_KERNEL, "kernel.uvm",
			       "nvidia_uvm not loaded yet: CUDA loads it on first use");
		finding_evidence(f, "/proc/modules has no line for nvidia_uvm");
		finding_evidence(f, "%s%s lets libcuda load it", k->nvidia_modprobe_path,
				 k->nvidia_modprobe == 1 ? " is setuid root and" :
				 " exists and we run as root, which");
	} else if (u->loaded == 0) {
		f = report_add(rep, LAYER_KERNEL, "kernel.uvm", CAUSE_UVM_MODULE_NOT_LOADED, REACH_WORK,
			       "the nvidia_uvm module is not loaded");
		finding_evidence(f, "/proc/modules has no line for nvidia_uvm");
		if (in->inv->devices.in_container)
			finding_evidence(f, "inside a container (%s) nothing can load it: the host "
					 "must", in->inv->devices.container_marker);
		else if (k->nvidia_modprobe == 0)
			finding_evidence(f, "%s is not setuid root, so CUDA run by a user cannot "
					 "load it on demand", k->nvidia_modprobe_path);
		else
			finding_evidence(f, "no nvidia-modprobe in /usr/bin to load it on demand");
		finding_evidence(f, "without it cuInit fails with CUDA_ERROR_UNKNOWN (999)");
		finding_fix(f, in->inv->devices.in_container ?
			    "sudo modprobe nvidia_uvm (or sudo nvidia-modprobe -u -c 0) on the host" :
			    "sudo modprobe nvidia_uvm (or sudo nvidia-modprobe -u -c 0)");
	}
	buf_release(&b);
}

static void rules_summary(const struct rules_in *in, struct report *rep, int nv_loaded)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	const char *ver = k->module_version;

	if (nv_loaded == 1)
		report_set_summary(rep, LAYER_KERNEL, "nvidia %s%s loaded, nvidia_uvm %s",
				   ver ? ver : "(version unknown)",
				   k->open_module == 1 ? " (open kernel module)" :
				   k->open_module == 0 ? " (proprietary)" : "",
				   k->mods[KMOD_NVIDIA_UVM].loaded == 1 ? "loaded" :
				   k->mods[KMOD_NVIDIA_UVM].loaded == 0 ? "not loaded" : "unknown");
	else if (nv_loaded == 0)
		report_set_summary(rep, LAYER_KERNEL, "nvidia module not loaded%s%s",
				   k->release ? " on kernel " : "", k->release ? k->release : "");
	else
		report_set_summary(rep, LAYER_KERNEL, "module state unknown");
}

void rules_kernel(const struct rules_in *in, struct report *rep)
{
	const struct kernel_inventory *k = &in->inv->kernel;
	int nv, owned;

	if (rules_platform_kernel(in, rep))
		return;		/* WSL: no Linux module is involved */
	nv = nvidia_loaded(k);
	owned = rules_nouveau(in, rep, nv);

	if (nv == 1 && k->mods[KMOD_NVIDIA].loaded == 1 &&
	    strcmp(k->mods[KMOD_NVIDIA].state, "Live") != 0 && k->mods[KMOD_NVIDIA].state[0]) {
		nv = 0;		/* "Loading" or "Unloading": not usable */
	}
	if (nv == 1) {
		rules_loaded(in, rep);
		rules_unbound(in, rep);
		rules_uvm(in, rep);
	} else if (nv == 0) {
		/* With nouveau holding the GPU, that is the cause to fix first. */
		if (!owned)
			rules_not_loaded(in, rep);
	} else {
		struct finding *f = report_skip(rep, LAYER_KERNEL, "kernel.module", "cannot tell whether the nvidia module is loaded");

		finding_evidence(f, "%s", k->modules_error ? k->modules_error :
					  "/proc/modules unreadable");
	}
	rules_summary(in, rep, nv);
}
