"""Fixture parts for the driver and cuda layers: driver libraries."""

LIBDIR = "usr/lib/x86_64-linux-gnu"


def add_driver_libs(r, driver_version="580.95.05", libdir=LIBDIR):
    for base in ("libnvidia-ml.so", "libcuda.so"):
        real = f"{libdir}/{base}.{driver_version}"
        r.shared_lib(real, soname=f"{base}.1")
        r.symlink(f"{libdir}/{base}.1", f"{base}.{driver_version}")
