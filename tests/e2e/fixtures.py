"""Fixture machines built from parts: a healthy one, and ways to break each link.

healthy_root() composes the parts; each part lives in its own module so the
owners of each layer can extend it:
  fixtures_lower.py  - PCI devices, kernel modules, /dev nodes  (hardware, kernel, devices)
  fixtures_driver.py - driver libraries (libcuda, NVML), fake behaviours (driver, cuda)
"""
from gdtest import Root
import fixtures_lower
import fixtures_driver

DRIVER_VERSION = "580.95.05"
H200_PCI_ID = 0x2335


def healthy_root(driver_version=DRIVER_VERSION, gpus=1, device_id=H200_PCI_ID, root=None):
    """A machine whose lower chain is healthy: one H200 on nvidia, module
    loaded, nodes present, driver libraries of the module's version."""
    r = root or Root()
    fixtures_lower.add_gpus(r, count=gpus, device_id=device_id)
    fixtures_lower.add_kernel(r, driver_version=driver_version)
    fixtures_lower.add_device_nodes(r, gpus=gpus)
    fixtures_driver.add_driver_libs(r, driver_version=driver_version)
    return r
