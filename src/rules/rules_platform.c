/*
 * rules_platform.c - the layers' verdicts on WSL, on GPU Operator nodes and
 * under kernel lockdown; see rules_platform.h.
 *
 * WSL (NVIDIA's CUDA on WSL user guide,
 * https://docs.nvidia.com/cuda/wsl-user-guide/index.html): the Windows
 * driver is the driver.  Inside WSL2 there is no NVIDIA PCI function (the
 * GPU shows as a "Microsoft Corporation" 3D controller, microsoft/WSL#9821),
 * no nvidia module and no /dev/nvidia*: the GPU is /dev/dxg and the driver's
 * Linux libraries are the files in /usr/lib/wsl/lib.  The guide says never
 * to install a Linux display driver inside WSL, so no fix written here names
 * modprobe, DKMS, kernel headers or a Linux driver package to install
 * (tests/e2e/test_env_wsl.py walks every finding of every WSL fixture).
 */
#include "rules/rules_platform.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct platform_inventory *plat(const struct rules_in *in)
{
	return &in->inv->platform;
}

static void wsl_evidence(const struct platform_inventory *p, struct finding *f)
{
	if (p->proc_version)
		finding_evidence(f, "/proc/version: %s", p->proc_version);
	finding_evidence(f, "/dev/dxg: %s", p->dxg == 1 ? "present" : p->dxg == 0 ? "absent" : "unknown");
	if (p->wsl_lib_dir == 1)
		finding_evidence(f, "%s: present%s", PLATFORM_WSL_LIB_DIR,
				 p->wsl_libcuda ? " (the Windows driver's libraries)" : ", without libcuda.so.1");
}

int rules_platform_hardware(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	struct finding *f;

	if (p->wsl == PLATFORM_WSL1) {
		f = report_add(rep, LAYER_HARDWARE, "hardware.wsl", CAUSE_WSL1_NO_GPU, REACH_WORK,
			       "this is WSL1, which has no GPU support (CUDA needs WSL2)");
		wsl_evidence(p, f);
		finding_fix(f, "on Windows: wsl -l -v, then wsl --set-version <distro> 2 "
			    "(and wsl --set-default-version 2); do not install a Linux NVIDIA driver inside WSL");
		report_set_summary(rep, LAYER_HARDWARE, "WSL1: no GPU");
		return 1;
	}
	if (p->wsl != PLATFORM_WSL2)
		return 0;
	if (p->dxg != 1) {
		f = report_add(rep, LAYER_HARDWARE, "hardware.wsl", CAUSE_NO_NVIDIA_GPU, REACH_WORK,
			       "WSL2 without /dev/dxg: Windows shares no GPU with this distribution");
		wsl_evidence(p, f);
		finding_fix(f, "on Windows: install the current NVIDIA driver (it carries WSL support), "
			    "update WSL (wsl --update) and Windows (Windows 11, or Windows 10 21H2 or "
			    "later), then wsl --shutdown; do not install a Linux NVIDIA driver inside WSL");
		report_set_summary(rep, LAYER_HARDWARE, "WSL2 without /dev/dxg");
		return 1;
	}
	f = report_ok(rep, LAYER_HARDWARE, "hardware.wsl",
		      "WSL2: the GPU is reached through /dev/dxg (GPU paravirtualization)");
	wsl_evidence(p, f);
	finding_evidence(f, "no NVIDIA PCI function is expected here: the GPU belongs to Windows "
			 "(lspci shows a Microsoft Corporation 3D controller)");
	if (p->docker_desktop == 1)
		finding_evidence(f, "Docker Desktop's WSL 2 backend is mounted (/mnt/wsl/docker-desktop): "
				 "its containers get the GPU with docker run --gpus all, from the same "
				 "Windows driver");
	report_set_summary(rep, LAYER_HARDWARE, "WSL2: GPU through /dev/dxg");
	return 1;
}

int rules_platform_kernel(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct kernel_inventory *k = &in->inv->kernel;
	struct finding *f;

	if (!platform_is_wsl(p))
		return 0;
	if (p->wsl == PLATFORM_WSL1) {
		f = report_skip(rep, LAYER_KERNEL, "kernel.wsl",
				"WSL1 has no Linux kernel: nothing to check");
		wsl_evidence(p, f);
		report_set_summary(rep, LAYER_KERNEL, "WSL1");
		return 1;
	}
	f = report_ok(rep, LAYER_KERNEL, "kernel.wsl",
		      "WSL2 kernel%s%s: no nvidia module is needed (the Windows driver serves the GPU "
		      "through dxgkrnl)", k->release ? " " : "", k->release ? k->release : "");
	wsl_evidence(p, f);
	if (k->mods[KMOD_NVIDIA].loaded == 1 || k->module_file)
		finding_evidence(f, "a Linux nvidia module is %s%s%s; under WSL2 it has no GPU to drive",
				 k->mods[KMOD_NVIDIA].loaded == 1 ? "loaded" : "installed",
				 k->module_file ? ": " : "", k->module_file ? k->module_file : "");
	report_set_summary(rep, LAYER_KERNEL, "WSL2 kernel (no nvidia module needed)");
	return 1;
}

int rules_platform_devices(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	struct finding *f;

	if (!platform_is_wsl(p))
		return 0;
	if (p->dxg == 1) {
		f = report_ok(rep, LAYER_DEVICES, "devices.dxg",
			      "/dev/dxg present: CUDA under WSL2 opens it, not /dev/nvidia*");
		report_set_summary(rep, LAYER_DEVICES, "/dev/dxg");
	} else {
		f = report_skip(rep, LAYER_DEVICES, "devices.dxg",
				"/dev/dxg absent: no GPU is shared with this WSL distribution");
		report_set_summary(rep, LAYER_DEVICES, "no /dev/dxg");
	}
	finding_evidence(f, "/dev/nvidia* nodes are not used under WSL");
	return 1;
}

static const char *lib_file(const struct driver_lib *l)
{
	return l->realpath ? l->realpath : l->path;
}

int rules_platform_driver_libcuda(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct driver_inventory *d = &in->inv->driver;
	struct finding *f;

	if (!platform_is_wsl(p))
		return 0;
	if (!d->cuda.path && p->wsl_libcuda) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda", CAUSE_WSL_LIB_NOT_ON_LOADER_PATH,
			       REACH_WORK, "%s holds the Windows driver's libcuda.so.1, but the loader "
			       "does not search %s", p->wsl_libcuda, PLATFORM_WSL_LIB_DIR);
		finding_evidence(f, "libcuda.so.1 is not found through LD_LIBRARY_PATH, "
				 "/etc/ld.so.cache or the default directories");
		finding_evidence(f, "%s is a %s, as the Windows driver ships it", p->wsl_libcuda,
				 p->wsl_libcuda_is_link == 1 ? "symbolic link" : "file");
		if (d->cuda.error)
			finding_evidence(f, "%s", d->cuda.error);
		finding_fix_cmd(f, "echo", PLATFORM_WSL_LIB_DIR, FIX_PIPE, "sudo", "tee", "/etc/ld.so.conf.d/ld.wsl.conf",
				FIX_AND, "sudo", "ldconfig", NULL);
		finding_fix_note(f, "its \"is not a symbolic link\" messages about " PLATFORM_WSL_LIB_DIR
				 " are harmless");
		return 1;
	}
	if (!d->cuda.path) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda", CAUSE_LIBCUDA_MISSING, REACH_WORK,
			       "libcuda.so.1 is missing: %s has no Windows driver libraries",
			       PLATFORM_WSL_LIB_DIR);
		finding_evidence(f, "%s/libcuda.so.1: absent", PLATFORM_WSL_LIB_DIR);
		finding_fix(f, "on Windows: install or update the NVIDIA driver (it provides " PLATFORM_WSL_LIB_DIR "), "
			    "then wsl --shutdown; do not install a Linux NVIDIA driver inside WSL");
		return 1;
	}
	if (!platform_path_in_wsl(d->cuda.path) && !platform_path_in_wsl(lib_file(&d->cuda)) &&
	    !d->cuda.stub_reason) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda", CAUSE_WSL_LINUX_DRIVER_IN_WSL,
			       REACH_WORK, "the loader picks a Linux driver's libcuda.so.1 (%s), not the "
			       "Windows driver's in %s", d->cuda.path, PLATFORM_WSL_LIB_DIR);
		finding_evidence(f, "%s -> %s (found via %s)", d->cuda.path,
				 lib_file(&d->cuda) ? lib_file(&d->cuda) : "(unresolved)",
				 d->cuda.how ? ldso_source_name(d->cuda.how) : "?");
		if (p->wsl_libcuda)
			finding_evidence(f, "%s (the Windows driver's) comes later in the search",
					 p->wsl_libcuda);
		finding_evidence(f, "a Linux driver's libcuda needs /dev/nvidiactl and the nvidia "
				 "module, which WSL2 does not have");
		if (d->cuda.how == LDSO_LD_LIBRARY_PATH) {
			char *dir = strrchr(d->cuda.path, '/') ? xstrndup(d->cuda.path,
				(size_t)(strrchr(d->cuda.path, '/') - d->cuda.path)) : NULL;

			finding_fix_cmd(f, "export", "LD_LIBRARY_PATH=", FIX_GLUE, FIX_SH,
					"$(printf %s \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -vxF", dir ? dir : "",
					FIX_GLUE, FIX_SH, " | paste -sd:)", FIX_SEMI, "sudo", "apt-get", "remove",
					"--purge", "nvidia-driver-*", "libnvidia-compute-*", "cuda-drivers", NULL);
			finding_fix_note(f, "the libcuda's directory off LD_LIBRARY_PATH, and the Linux "
					 "driver packages inside WSL removed");
			free(dir);
		} else {
			finding_fix_cmd(f, "sudo", "apt-get", "remove", "--purge", "nvidia-driver-*", "libnvidia-compute-*",
					"cuda-drivers", FIX_AND, "sudo", "ldconfig", NULL);
			finding_fix_note(f, "the Linux driver inside WSL owns the libcuda the evidence names; install "
					 "CUDA inside WSL with the cuda-toolkit package only, never cuda or cuda-drivers");
		}
		return 1;
	}
	return 0;
}

int rules_platform_driver_nvml(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct driver_inventory *d = &in->inv->driver;
	struct finding *f;

	if (!platform_is_wsl(p))
		return 0;
	if (d->nvml.path && !platform_path_in_wsl(d->nvml.path) &&
	    !platform_path_in_wsl(lib_file(&d->nvml))) {
		f = report_add(rep, LAYER_DRIVER, "driver.nvml-library", CAUSE_WSL_LINUX_DRIVER_IN_WSL,
			       REACH_WORK, "the loader picks a Linux driver's libnvidia-ml.so.1 (%s), not "
			       "the Windows driver's in %s", d->nvml.path, PLATFORM_WSL_LIB_DIR);
		finding_evidence(f, "%s -> %s (found via %s)", d->nvml.path,
				 lib_file(&d->nvml) ? lib_file(&d->nvml) : "(unresolved)",
				 d->nvml.how ? ldso_source_name(d->nvml.how) : "?");
		finding_evidence(f, "nvidia-smi and NVML monitoring then fail (\"Failed to initialize "
				 "NVML\", microsoft/WSL#9099)");
		finding_fix_cmd(f, "sudo", "apt-get", "remove", "--purge", "nvidia-driver-*", "libnvidia-compute-*",
				"cuda-drivers", FIX_AND, "sudo", "ldconfig", NULL);
		finding_fix_note(f, "the Linux driver inside WSL owns the NVML the evidence names; and drop its "
				 "directory from LD_LIBRARY_PATH");
		return 1;
	}
	if (d->nvml.path)
		return 0;
	f = report_add(rep, LAYER_DRIVER, "driver.nvml-library", CAUSE_NVML_MISSING, REACH_WORK,
		       "libnvidia-ml.so.1 (NVML) is not found by the loader");
	finding_evidence(f, "under WSL2 the Windows driver provides it in %s", PLATFORM_WSL_LIB_DIR);
	if (d->nvml.error)
		finding_evidence(f, "%s", d->nvml.error);
	if (p->wsl_libcuda)
		finding_fix_cmd(f, "echo", PLATFORM_WSL_LIB_DIR, FIX_PIPE, "sudo", "tee", "/etc/ld.so.conf.d/ld.wsl.conf",
				FIX_AND, "sudo", "ldconfig", NULL);
	else
		finding_fix(f, "on Windows: install or update the NVIDIA driver, then wsl --shutdown");
	return 1;
}

int rules_platform_driver_versions(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct driver_inventory *d = &in->inv->driver;
	struct finding *f;

	if (!platform_is_wsl(p))
		return 0;
	if (!platform_path_in_wsl(d->cuda.path) || !platform_path_in_wsl(d->nvml.path)) {
		f = report_skip(rep, LAYER_DRIVER, "driver.version-match",
				"driver versions not compared: WSL2 has no Linux module, and the "
				"libraries the loader picks are not all the Windows driver's");
		finding_evidence(f, "libcuda.so.1: %s; libnvidia-ml.so.1: %s",
				 d->cuda.path ? d->cuda.path : "not found",
				 d->nvml.path ? d->nvml.path : "not found");
		return 1;
	}
	if (d->nvml_live.driver_version)
		f = report_ok(rep, LAYER_DRIVER, "driver.version-match",
			      "the driver is the Windows driver, %s; WSL2 has no Linux module to match",
			      d->nvml_live.driver_version);
	else
		f = report_ok(rep, LAYER_DRIVER, "driver.version-match",
			      "the driver is the Windows driver; WSL2 has no Linux module to match");
	finding_evidence(f, "the libraries in %s come with the Windows driver and are updated with it",
			 PLATFORM_WSL_LIB_DIR);
	if (d->nvml_live.driver_version)
		finding_evidence(f, "nvmlSystemGetDriverVersion: %s", d->nvml_live.driver_version);
	return 1;
}

void rules_platform_operator(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct driver_inventory *d = &in->inv->driver;
	struct buf missing = BUF_INIT;
	struct finding *f;
	int driver_missing = 0, nmissing = 0;

	if (!p->operator_root && p->validations_dir != 1)
		return;
	for (int m = 0; m < OPMARK_COUNT; m++)
		if (p->markers[m] != 1) {
			buf_printf(&missing, "%s%s", nmissing ? ", " : "",
				   platform_marker_name((enum operator_marker)m));
			nmissing++;
			driver_missing |= m == OPMARK_DRIVER;
		}
	if (nmissing) {
		f = report_add(rep, LAYER_DRIVER, "driver.gpu-operator", CAUSE_GPU_OPERATOR_NOT_READY,
			       driver_missing ? REACH_WORK : REACH_LATENT,
			       "the GPU Operator's validator has not marked %s ready on this node",
			       driver_missing ? "the driver" : "every component");
		if (p->validations_dir == 1)
			finding_evidence(f, "%s lacks: %s", PLATFORM_OPERATOR_VALIDATIONS, missing.s);
		else
			finding_evidence(f, "%s does not exist: the validator has not run on this node",
					 PLATFORM_OPERATOR_VALIDATIONS);
		if (p->operator_root)
			finding_evidence(f, "driver container root: %s%s%s%s", p->operator_root,
					 p->operator_os ? " (" : "", p->operator_os ? p->operator_os : "",
					 p->operator_os ? ")" : "");
		finding_fix(f, driver_missing ?
			    "kubectl -n gpu-operator get pods -o wide | grep -e driver -e validator; "
			    "kubectl -n gpu-operator logs ds/nvidia-operator-validator -c driver-validation" :
			    "kubectl -n gpu-operator get pods -o wide | grep -e driver -e validator; "
			    "kubectl -n gpu-operator logs ds/nvidia-operator-validator -c cuda-validation");
	} else {
		f = report_ok(rep, LAYER_DRIVER, "driver.gpu-operator",
			      "GPU Operator node: the validator marked driver, toolkit, CUDA and device plugin ready");
		finding_evidence(f, "%s: driver-ready toolkit-ready cuda-ready plugin-ready",
				 PLATFORM_OPERATOR_VALIDATIONS);
	}
	if (p->operator_root) {
		finding_evidence(f, "driver container root %s%s%s%s: libcuda %s, nvidia-smi %s",
				 p->operator_root, p->operator_os ? " (" : "",
				 p->operator_os ? p->operator_os : "", p->operator_os ? ")" : "",
				 p->operator_libcuda_version ? p->operator_libcuda_version : "absent",
				 p->operator_nvidia_smi ? "present" : "absent");
		if (d->cuda.operator_root)
			finding_evidence(f, "the host's loader knows no libcuda.so.1: the driver is "
					 "the container's, which the NVIDIA container toolkit gives "
					 "to GPU pods");
		if (p->toolkit_driver_root)
			finding_evidence(f, "%s: [nvidia-container-cli] root = \"%s\"%s",
					 p->toolkit_config, p->toolkit_driver_root,
					 strcmp(p->toolkit_driver_root, p->operator_root) ? "  <- not the "
					 "driver container's root: containers get no driver libraries" :
					 " (the driver container's root, as the operator sets it)");
	}
	buf_release(&missing);
}

int rules_platform_lockdown(const struct rules_in *in, struct report *rep)
{
	const struct platform_inventory *p = plat(in);
	const struct kernel_inventory *k = &in->inv->kernel;
	struct finding *f;

	if (!p->lockdown || !strcmp(p->lockdown, "none") || k->module_file_found == 0)
		return 0;
	f = report_add(rep, LAYER_KERNEL, "kernel.module", CAUSE_KERNEL_LOCKDOWN_BLOCKS_MODULE,
		       REACH_WORK, "the nvidia module is not loaded and the kernel is in lockdown "
		       "(%s): it loads only modules signed with a trusted key", p->lockdown);
	finding_evidence(f, "/sys/kernel/security/lockdown: %s", p->lockdown_line);
	if (k->module_file)
		finding_evidence(f, "module file: %s", k->module_file);
	if (k->secure_boot_evidence)
		finding_evidence(f, "Secure Boot %s: %s",
				 k->secure_boot == 1 ? "on" : k->secure_boot == 0 ? "off" : "unknown",
				 k->secure_boot_evidence);
	finding_evidence(f, "modprobe fails with \"Operation not permitted\" (or \"Key was rejected "
			 "by service\") for an unsigned module (man 7 kernel_lockdown)");
	finding_fix(f, "sudo mokutil --import /var/lib/dkms/mok.pub, reboot and enroll the key in "
		    "the MOK manager, then sudo dkms autoinstall && sudo modprobe nvidia (DKMS signs "
		    "the module with that key)");
	return 1;
}
