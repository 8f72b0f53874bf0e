/* causes.c - the cause catalogue; see causes.h.  One row per cause id. */
#include "knowledge/causes.h"

#include <string.h>

static const struct cause causes[] = {
	/* hardware */
	{ "no-nvidia-gpu", LAYER_HARDWARE, "no NVIDIA GPU is visible on the PCI bus",
	  "Without an NVIDIA PCI function (vendor 0x10de, display or 3D controller class) there is nothing for the driver to bind; in a VM the GPU is not passed through, in a container /sys is not the host's.",
	  "Check the VM's PCI passthrough or the cloud instance type; on bare metal check seating and power (lspci -nn -d 10de:)." },
	{ "nouveau-loaded", LAYER_KERNEL, "the open-source nouveau (or nova_core) driver owns the GPU",
	  "Only one kernel driver can bind a GPU; while nouveau or nova_core holds it, the nvidia module cannot probe it and CUDA sees no device.",
	  "printf 'blacklist nouveau\\noptions nouveau modeset=0\\nblacklist nova_core\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf && sudo update-initramfs -u && sudo reboot" },
	{ "gpu-bound-to-other-driver", LAYER_HARDWARE, "the GPU is bound to a driver other than nvidia",
	  "A GPU bound to vfio-pci (for passthrough) or another driver is not available to the nvidia module on this host.",
	  "Unbind it from that driver (e.g. echo BDF | sudo tee /sys/bus/pci/drivers/vfio-pci/unbind) or remove the vfio-pci.ids= setting, then load nvidia." },
	{ "pcie-link-degraded", LAYER_HARDWARE, "the GPU's PCIe link runs below its maximum speed or width",
	  "A link trained at a lower generation or fewer lanes than the slot and card support cuts host-device bandwidth; idle GPUs lower the link speed to save power, so speed alone at idle is not a fault.",
	  "Reseat the card in a full x16 slot, check riser cables and BIOS PCIe settings; re-check under load (nvidia-smi -q -d PCIE)." },
	/* kernel */
	{ "nvidia-module-not-loaded", LAYER_KERNEL, "the nvidia kernel module is not loaded",
	  "The user-space driver talks to the GPU through the nvidia kernel module; without it nvidia-smi cannot communicate with the driver and CUDA finds no device.",
	  "sudo modprobe nvidia (and read dmesg if it fails)" },
	{ "secure-boot-blocks-module", LAYER_KERNEL, "Secure Boot is on and the nvidia module is not loaded",
	  "With UEFI Secure Boot enabled the kernel refuses modules not signed by an enrolled key (\"Key was rejected by service\").",
	  "Sign the module with a key enrolled through mokutil (DKMS can do this: sudo mokutil --import /var/lib/dkms/mok.pub, then reboot and enroll), or disable Secure Boot." },
	{ "module-missing-for-kernel", LAYER_KERNEL, "no nvidia module is built for the running kernel",
	  "After a kernel update DKMS must rebuild the module; if it did not, the running kernel has no nvidia.ko to load.",
	  "sudo apt-get install linux-headers-$(uname -r) && sudo dkms autoinstall, or boot the previous kernel." },
	{ "uvm-module-not-loaded", LAYER_KERNEL, "the nvidia_uvm module is not loaded",
	  "CUDA needs nvidia_uvm for unified memory; without it cuInit fails with CUDA_ERROR_UNKNOWN (999) although nvidia-smi works.",
	  "sudo modprobe nvidia_uvm (or sudo nvidia-modprobe -u -c 0)" },
	/* devices */
	{ "device-node-missing", LAYER_DEVICES, "an NVIDIA device node is missing from /dev",
	  "CUDA opens /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm; in containers they are injected by the NVIDIA runtime, on hosts created by the driver or nvidia-modprobe.",
	  "sudo nvidia-modprobe -c 0 -u (host), or run the container with --gpus all / the nvidia runtime." },
	{ "device-node-permission", LAYER_DEVICES, "the current user cannot open an NVIDIA device node",
	  "The device nodes must be readable and writable by the user running CUDA; restrictive modes or a missing group membership make CUDA see no device.",
	  "sudo chmod 0666 /dev/nvidia* (or add the user to the group that owns them and log in again)." },
	/* driver */
	{ "driver-library-mismatch", LAYER_DRIVER, "the user-space driver libraries and the kernel module are different versions",
	  "NVML and libcuda refuse to talk to a kernel module of another version (\"Driver/library version mismatch\"), typically after an unattended driver upgrade without a reboot.",
	  "sudo reboot (or unload and reload the nvidia modules); hold the driver packages to stop unattended upgrades." },
	{ "libcuda-missing", LAYER_DRIVER, "libcuda.so.1 (the CUDA driver library) cannot be found by the loader",
	  "Every CUDA program loads libcuda.so.1 from the driver; without it frameworks fall back to the CPU (\"Could not find cuda drivers\").",
	  "Install the driver's CUDA library (e.g. apt-get install libnvidia-compute-<branch>), or run the container with --gpus all." },
	{ "libcuda-stub-on-path", LAYER_DRIVER, "the CUDA toolkit's stub libcuda is on the loader's path",
	  "lib64/stubs/libcuda.so is for linking only; loaded at run time every CUDA call fails with cudaErrorStubLibrary (34).",
	  "Remove the stubs directory from LD_LIBRARY_PATH (and any libcuda.so.1 link to the stub)." },
	{ "nvml-missing", LAYER_DRIVER, "libnvidia-ml.so.1 (NVML) cannot be found by the loader",
	  "NVML ships with the driver; without it nvidia-smi and monitoring fail, and it usually means the driver's user-space part is missing.",
	  "Install the driver's utilities/NVML package (e.g. apt-get install libnvidia-compute-<branch>)." },
	{ "nvml-failed", LAYER_DRIVER, "NVML did not initialise or crashed",
	  "nvmlInit failing means the user-space driver cannot talk to the kernel module.",
	  "Read the evidence for NVML's error; reboot after driver updates; check dmesg for NVRM messages." },
	{ "gpu-hidden-by-env", LAYER_DRIVER, "an environment variable hides GPUs from CUDA",
	  "CUDA_VISIBLE_DEVICES (or NVIDIA_VISIBLE_DEVICES in containers) set to an empty value, -1, void or unknown ids makes CUDA see no GPU.",
	  "unset CUDA_VISIBLE_DEVICES (or set it to the GPU indices you mean, e.g. export CUDA_VISIBLE_DEVICES=0)" },
	{ "cuda-debug-env-set", LAYER_DRIVER, "a CUDA debugging variable changes how CUDA behaves",
	  "Variables such as CUDA_LAUNCH_BLOCKING, CUDA_INJECTION64_PATH or CUDA_MODULE_LOADING change timing, inject profilers or change loading; left set by accident they slow or break work.",
	  "unset the variable named in the evidence unless you are debugging." },
	{ "gpu-memory-held", LAYER_DRIVER, "another process holds much of a GPU's memory",
	  "A second process holding device memory makes frameworks fail with out-of-memory at start-up (TensorFlow preallocates).",
	  "Stop the process named in the evidence (nvidia-smi shows it), or pick another GPU with CUDA_VISIBLE_DEVICES." },
	{ "persistence-mode-off", LAYER_DRIVER, "persistence mode is off on a GPU",
	  "Without persistence the driver tears the GPU down when the last client exits, so every program start pays the initialisation again (seconds on datacenter GPUs), and container start-up can time out.",
	  "sudo systemctl enable --now nvidia-persistenced (or sudo nvidia-smi -pm 1)" },
	{ "ecc-errors", LAYER_DRIVER, "a GPU reports uncorrectable memory errors, retired pages or failed row remapping",
	  "Uncorrectable ECC errors corrupt results or crash jobs; pending retirement or remapping needs a GPU reset to take effect.",
	  "Drain the GPU, reset it (sudo nvidia-smi -r -i N) or reboot; if errors persist, RMA the card." },
	{ "gpu-lost", LAYER_DRIVER, "a GPU has fallen off the bus or is in an unrecoverable state",
	  "NVML reports the GPU lost (Xid 79): the device stopped answering on PCIe, from power, thermal or slot faults.",
	  "Reboot; check power supply, cooling, seating and BIOS; collect nvidia-bug-report.sh." },
	/* cuda */
	{ "cuda-init-failed", LAYER_CUDA, "cuInit failed",
	  "The CUDA driver API could not initialise; the CUresult names why.",
	  "See the evidence for the CUresult and its usual cause." },
	{ "fabric-manager-not-running", LAYER_CUDA, "CUDA is not ready because NVIDIA Fabric Manager is not running (NVSwitch system)",
	  "On NVSwitch systems (HGX A100/H100/H200/B200) CUDA returns 802 (system not yet initialized) until Fabric Manager has set up the switch fabric.",
	  "sudo apt-get install nvidia-fabricmanager-<branch> (same version as the driver) && sudo systemctl enable --now nvidia-fabricmanager" },
	{ "compat-lib-on-unsupported-gpu", LAYER_CUDA, "a forward-compatibility libcuda was loaded on a GPU that does not support it",
	  "cuda-compat's libcuda only works on datacenter GPUs, select RTX server SKUs and Jetson; elsewhere CUDA fails with 804.",
	  "Remove the .../compat directory from LD_LIBRARY_PATH or ld.so.conf, or upgrade the driver instead." },
	{ "gpu-compute-failed", LAYER_CUDA, "a real kernel did not run correctly on the GPU",
	  "Context creation, module load, launch or the result check failed: the GPU cannot do work although it is visible.",
	  "Read the evidence for the failing call; check dmesg for Xid errors; reset the GPU." },
	/* libraries */
	{ "cuda-runtime-missing", LAYER_LIBRARIES, "the CUDA runtime library a program needs cannot be found",
	  "libcudart (and the math libraries) of the CUDA major a framework was built for must be reachable by the loader.",
	  "Install the matching CUDA libraries (pip install nvidia-cuda-runtime-cuXX or the framework's [and-cuda]/cuXXX wheels)." },
	{ "cuda-runtime-too-new-for-driver", LAYER_LIBRARIES, "the CUDA runtime is newer than the driver supports",
	  "A runtime needs a driver at least as new as its toolkit's floor (or the major's minor-version-compatibility floor); otherwise \"CUDA driver version is insufficient for CUDA runtime version\".",
	  "Upgrade the driver, or install a build for an older CUDA." },
	{ "cudnn-missing", LAYER_LIBRARIES, "cuDNN cannot be found",
	  "Frameworks load libcudnn.so.<major> at run time; without it convolutions fail or the GPU is not used.",
	  "pip install nvidia-cudnn-cuXX (matching the framework's CUDA major)." },
	{ "cudnn-version-mismatch", LAYER_LIBRARIES, "the cuDNN that loads is of another major or older than the build",
	  "cuDNN runs programs built against the same major and an equal or lower minor only.",
	  "Install the cuDNN the framework was built with and remove the older copy from the loader's path." },
	{ "cudnn-incomplete", LAYER_LIBRARIES, "cuDNN 9 sub-libraries are missing or of mixed releases",
	  "libcudnn.so.9 is a shim that loads libcudnn_graph, _ops, _cnn, _adv, _engines_* and _heuristic at run time; a missing or mismatched one fails at the first call.",
	  "Reinstall cuDNN as one package (pip install --force-reinstall nvidia-cudnn-cuXX)." },
	{ "lib-unreadable", LAYER_LIBRARIES, "a library cannot be read by the current user",
	  "The loader must read and map the file; permissions that only root can read make it fail for everyone else.",
	  "sudo chmod a+r FILE (and a+x on its directories)." },
	{ "lib-corrupt", LAYER_LIBRARIES, "a library file is truncated or not a valid ELF shared object",
	  "A partial download or disk error leaves a file the loader rejects (\"file too short\", \"invalid ELF header\").",
	  "Reinstall the package that owns the file." },
	{ "lib-shadowed", LAYER_LIBRARIES, "an older copy of a library wins the loader's search over the one meant to load",
	  "LD_LIBRARY_PATH, RPATH/RUNPATH order and ld.so.cache decide which copy loads; an old copy first in that order is used.",
	  "Remove the directory of the shadowing copy from LD_LIBRARY_PATH, or remove that copy." },
	{ "lib-dependency-missing", LAYER_LIBRARIES, "a library's own dependency cannot be found",
	  "dlopen fails when any NEEDED entry cannot be resolved (e.g. libcusolver needs libnvJitLink).",
	  "Install the package providing the missing soname." },
	{ "cuda-symlink-broken", LAYER_LIBRARIES, "/usr/local/cuda points nowhere or at another version than the nvcc on PATH",
	  "Build systems and CUDA_HOME defaults use /usr/local/cuda; a dangling or mismatched link mixes toolkits.",
	  "sudo ln -sfn /usr/local/cuda-X.Y /usr/local/cuda (the version you use), or update-alternatives --config cuda." },
	{ "nccl-missing", LAYER_LIBRARIES, "NCCL (libnccl.so.2) cannot be found where a framework needs it",
	  "Multi-GPU frameworks load libnccl.so.2; NCCL is not part of the CUDA toolkit.",
	  "pip install nvidia-nccl-cuXX, or apt-get install libnccl2." },
	/* frameworks */
	{ "framework-cpu-only", LAYER_FRAMEWORKS, "the framework installed is a CPU-only build",
	  "A CPU build (tensorflow-cpu, torch +cpu, jax without a CUDA plugin) never uses the GPU, silently.",
	  "Install the CUDA build (pip install 'tensorflow[and-cuda]', torch from the cuXXX index, 'jax[cuda13]')." },
	{ "framework-cuda-mismatch", LAYER_FRAMEWORKS, "the framework was built for a CUDA major that no reachable library provides",
	  "Frameworks load the CUDA libraries of the major they were built with; another major's libraries do not satisfy them.",
	  "Install the framework's CUDA wheels for its major, or a framework build for the CUDA you have." },
	{ "framework-driver-too-old", LAYER_FRAMEWORKS, "the driver is too old for the CUDA the framework was built with",
	  "The framework's CUDA runtime needs at least its major's driver floor.",
	  "Upgrade the driver, or install a framework build for an older CUDA." },
	{ "gpu-arch-unsupported", LAYER_FRAMEWORKS, "the framework has no code for this GPU's architecture",
	  "Without SASS for the GPU's compute capability and without PTX it can JIT, kernels fail with \"no kernel image is available\".",
	  "Install a release or variant built for this architecture (named in the evidence)." },
};

const struct cause *cause_lookup(const char *id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!strcmp(causes[i].id, id))
			return &causes[i];
	return NULL;
}

const struct cause *cause_all(size_t *n)
{
	*n = sizeof(causes) / sizeof(causes[0]);
	return causes;
}
