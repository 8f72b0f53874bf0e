"""Fixture parts for the hardware, kernel and devices layers."""


def add_gpus(r, count=1, device_id=0x2335, driver="nvidia"):
    for i in range(count):
        bdf = f"0000:{0x18 + i:02x}:00.0"
        d = f"sys/bus/pci/devices/{bdf}"
        r.write(f"{d}/vendor", "0x10de\n")
        r.write(f"{d}/device", f"0x{device_id:04x}\n")
        r.write(f"{d}/class", "0x030200\n")
        if driver:
            r.mkdir(f"sys/bus/pci/drivers/{driver}")
            r.symlink(f"{d}/driver", f"../../../bus/pci/drivers/{driver}")


def add_kernel(r, driver_version="580.95.05", release="6.8.0-49-generic"):
    r.write("proc/sys/kernel/osrelease", release + "\n")
    r.write("proc/modules",
            "nvidia_uvm 1982464 0 - Live 0x0000000000000000 (POE)\n"
            "nvidia_drm 126976 0 - Live 0x0000000000000000 (POE)\n"
            "nvidia_modeset 1638400 1 nvidia_drm, Live 0x0000000000000000 (POE)\n"
            "nvidia 104071168 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n")
    r.write("sys/module/nvidia/version", driver_version + "\n")
    r.write("proc/driver/nvidia/version",
            f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver_version}  "
            "Release Build  (dvs-builder@U22-I3-AE18-09-3)  Wed Oct  1 00:00:00 UTC 2025\n"
            "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
    r.write(f"lib/modules/{release}/updates/dkms/nvidia.ko.zst", "")


def add_device_nodes(r, gpus=1):
    ok = r.chardev("dev/nvidiactl", 195, 255)
    for i in range(gpus):
        ok = r.chardev(f"dev/nvidia{i}", 195, i) and ok
    ok = r.chardev("dev/nvidia-uvm", 510, 0) and ok
    return ok
