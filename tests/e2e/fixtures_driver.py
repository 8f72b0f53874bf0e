"""Fixture parts for the driver and cuda layers: the driver libraries.

add_driver_libs() puts libnvidia-ml.so.<version> and libcuda.so.<version>
(with their .so.1 links) into the fixture root.  They are the fake libraries
of tests/fakelib, compiled here with the real SONAMEs, so the isolated NVML
and CUDA probes really dlopen and call them.  Each test picks the fakes'
behaviour with environment variables (FAKE_NVML_MODE, FAKE_CUDA_MODE, ...:
see the header of tests/fakelib/fake_nvml.c and fake_cuda.c).
"""
import os
import shutil
import subprocess
import tempfile

from gdtest import CC, REPO

LIBDIR = "usr/lib/x86_64-linux-gnu"
FAKELIB = os.path.join(REPO, "tests", "fakelib")
_built = {}


def build_fake(kind, soname, driver_version="580.95.05", cflags=()):
    """Compile tests/fakelib/fake_<kind>.c once per process; returns its path."""
    key = (kind, soname, driver_version, tuple(cflags))
    if key in _built and os.path.exists(_built[key]):
        return _built[key]
    out_dir = tempfile.mkdtemp(prefix="gd-fake-")
    out = os.path.join(out_dir, f"fake_{kind}.so")
    cmd = [CC, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(FAKELIB, f"fake_{kind}.c"),
           f"-Wl,-soname,{soname}", f'-DFAKE_DRIVER_VERSION="{driver_version}"'] + list(cflags)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    _built[key] = out
    return out


def add_lib(r, base, soname, kind, version, libdir=LIBDIR, cflags=(), driver_version=None):
    """Install fake <kind> as libdir/<base>.<version> with the soname link."""
    src = build_fake(kind, soname, driver_version or version, cflags)
    real = f"{libdir}/{base}.{version}"
    os.makedirs(os.path.dirname(r.p(real)), exist_ok=True)
    shutil.copyfile(src, r.p(real))
    r.symlink(f"{libdir}/{soname}", f"{base}.{version}")
    return real


def refresh_ldcache(r, libdir=LIBDIR):
    """List libdir in the root's ld.so.conf and rebuild etc/ld.so.cache with the
    host's ldconfig, as the driver's package scripts do on a real machine (a
    fixture without libc.so.6 gets only /lib:/usr/lib as default directories)."""
    conf = r.p("etc/ld.so.conf")
    if not os.path.exists(conf):
        r.write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    r.write(f"etc/ld.so.conf.d/gd-{libdir.replace('/', '-')}.conf", "/" + libdir + "\n")
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    subprocess.run([ldconfig, "-r", r.path, "-X"], check=True, capture_output=True)


def add_driver_libs(r, driver_version="580.95.05", libdir=LIBDIR, nvml=True, cuda=True,
                    nvml_cflags=(), cuda_cflags=()):
    if nvml:
        add_lib(r, "libnvidia-ml.so", "libnvidia-ml.so.1", "nvml", driver_version, libdir,
                nvml_cflags)
    if cuda:
        add_lib(r, "libcuda.so", "libcuda.so.1", "cuda", driver_version, libdir, cuda_cflags)
    refresh_ldcache(r, libdir)


def add_toolkit_stub(r, toolkit="usr/local/cuda-13.0"):
    """The toolkit's link-time stub: lib64/stubs/libcuda.so, soname libcuda.so.1,
    whose cuInit returns CUDA_ERROR_STUB_LIBRARY (34) like the real one."""
    src = build_fake("cuda", "libcuda.so.1", cflags=('-DFAKE_DEFAULT_MODE="init-error:34"',))
    rel = f"{toolkit}/targets/x86_64-linux/lib/stubs/libcuda.so"
    os.makedirs(os.path.dirname(r.p(rel)), exist_ok=True)
    shutil.copyfile(src, r.p(rel))
    return rel
