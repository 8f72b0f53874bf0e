"""Fixture parts for the hardware, kernel and devices layers.

Each function writes one part of a fixture machine into a gdtest.Root:
  add_gpus          /sys/bus/pci/devices/<bdf>/... for NVIDIA GPUs (+ a host bridge)
  add_nvswitches    NVSwitch bridges (class 0x068000)
  add_kernel        /proc/modules, module versions, osrelease, the module file,
                    the Secure Boot efivar, nvidia-modprobe
  add_device_nodes  /dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm (real char nodes:
                    needs root; returns False when mknod is refused)
Ids other than the vendor/device/class the checks key on are arbitrary
fixture values, not facts about any product.
"""
import os

EFI_GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
DEFAULT_MODULES = ("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia")
_SIZES = {"nvidia": 104071168, "nvidia_uvm": 1982464, "nvidia_drm": 126976,
          "nvidia_modeset": 1638400, "nouveau": 2973696, "nova_core": 98304}
_USERS = {"nvidia": ("2", "nvidia_uvm,nvidia_modeset,"), "nvidia_modeset": ("1", "nvidia_drm,")}


def gpu_bdf(i):
    return f"0000:{0x18 + i:02x}:00.0"


def _pci_fn(r, bdf, vendor, device, cls, driver=None, speed=None, max_speed=None,
            width=None, max_width=None, numa_node=0, subsystem=(0x10de, 0x1234)):
    d = f"sys/bus/pci/devices/{bdf}"
    r.write(f"{d}/vendor", f"0x{vendor:04x}\n")
    r.write(f"{d}/device", f"0x{device:04x}\n")
    r.write(f"{d}/class", f"0x{cls:06x}\n")
    if subsystem:
        r.write(f"{d}/subsystem_vendor", f"0x{subsystem[0]:04x}\n")
        r.write(f"{d}/subsystem_device", f"0x{subsystem[1]:04x}\n")
    if speed is not None:
        r.write(f"{d}/current_link_speed", speed + "\n")
    if max_speed is not None:
        r.write(f"{d}/max_link_speed", max_speed + "\n")
    if width is not None:
        r.write(f"{d}/current_link_width", f"{width}\n")
    if max_width is not None:
        r.write(f"{d}/max_link_width", f"{max_width}\n")
    if numa_node is not None:
        r.write(f"{d}/numa_node", f"{numa_node}\n")
    if driver:
        r.mkdir(f"sys/bus/pci/drivers/{driver}")
        r.symlink(f"{d}/driver", f"../../../bus/pci/drivers/{driver}")
    else:
        r.remove(f"{d}/driver")


def add_gpus(r, count=1, device_id=0x2335, driver="nvidia", cls=0x030200,
             speed="32.0 GT/s PCIe", max_speed="32.0 GT/s PCIe", width=16, max_width=16,
             numa_node=0, host_bridge=True):
    """count NVIDIA GPUs at 0000:18:00.0, 0000:19:00.0 ...; driver None: unbound.
    driver may be a list (one per GPU)."""
    if host_bridge:
        _pci_fn(r, "0000:00:00.0", 0x8086, 0x09a2, 0x060000, subsystem=None,
                numa_node=None)
    for i in range(count):
        drv = driver[i] if isinstance(driver, (list, tuple)) else driver
        _pci_fn(r, gpu_bdf(i), 0x10de, device_id, cls, driver=drv, speed=speed,
                max_speed=max_speed, width=width, max_width=max_width, numa_node=numa_node)


def add_nvswitches(r, count=4, device_id=0x22a3, driver="nvidia-nvswitch"):
    for i in range(count):
        _pci_fn(r, f"0000:{0x05 + i:02x}:00.0", 0x10de, device_id, 0x068000, driver=driver)


def modules_text(modules):
    lines = []
    for m in modules:
        refs, users = _USERS.get(m, ("0", "-"))
        lines.append(f"{m} {_SIZES.get(m, 65536)} {refs} {users} Live 0x0000000000000000 (POE)")
    return "".join(l + "\n" for l in lines)


def add_kernel(r, driver_version="580.95.05", release="6.8.0-49-generic",
               modules=DEFAULT_MODULES, open_module=True, secure_boot=False,
               module_file="updates/dkms/nvidia.ko.zst", nvidia_modprobe=None):
    """modules: names listed in /proc/modules (None: no /proc/modules at all).
    secure_boot: True/False writes the efivar, None writes no /sys/firmware.
    module_file: path under /lib/modules/RELEASE, or None for none.
    nvidia_modprobe: None absent, "setuid" or "plain" installs /usr/bin/nvidia-modprobe."""
    r.write("proc/sys/kernel/osrelease", release + "\n")
    if modules is not None:
        r.write("proc/modules", modules_text(modules))
    if "nvidia" in (modules or ()):
        r.write("sys/module/nvidia/version", driver_version + "\n")
        if open_module:
            line = (f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver_version}  "
                    "Release Build  (dvs-builder@U22-I3-AE18-09-3)  Wed Oct  1 00:00:00 UTC 2025")
        else:
            line = (f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver_version}  "
                    "Wed Oct  1 00:00:00 UTC 2025")
        r.write("proc/driver/nvidia/version",
                line + "\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
    else:
        r.remove("sys/module/nvidia")
        r.remove("proc/driver/nvidia/version")
    r.remove(f"lib/modules/{release}")
    r.mkdir(f"lib/modules/{release}/kernel/drivers/net")
    if module_file:
        r.write(f"lib/modules/{release}/{module_file}", "")
    set_secure_boot(r, secure_boot)
    if nvidia_modprobe:
        p = r.write("usr/bin/nvidia-modprobe", "#!/bin/sh\nexit 0\n")
        os.chmod(p, 0o4755 if nvidia_modprobe == "setuid" else 0o755)


def set_secure_boot(r, on):
    var = f"sys/firmware/efi/efivars/SecureBoot-{EFI_GLOBAL}"
    if on is None:
        r.remove("sys/firmware")
        return
    r.write(var, bytes([0x06, 0, 0, 0, 1 if on else 0]))


def add_device_nodes(r, gpus=1, mode=0o666, uid=0, gid=0, skip=()):
    """The nodes CUDA opens; skip: names (e.g. "nvidia-uvm") not to create.
    Returns False when mknod is not permitted (not root)."""
    ok = True
    nodes = [("nvidiactl", 195, 255)] + [(f"nvidia{i}", 195, i) for i in range(gpus)] \
        + [("nvidia-uvm", 510, 0)]
    for name, major, minor in nodes:
        if name in skip:
            r.remove(f"dev/{name}")
            continue
        ok = r.chardev(f"dev/{name}", major, minor, mode=mode) and ok
        if ok and (uid or gid):
            os.chown(r.p(f"dev/{name}"), uid, gid)
    return ok
