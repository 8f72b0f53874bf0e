"""Fixture parts for the libraries layer: toolkits, cuDNN, venvs with nvidia wheels.

Built on top of fixtures.healthy_root() (never edits it).  Every library is a
real ELF compiled by gdtest.Root.shared_lib with the soname, NEEDED and
RUNPATH the real one has; file names follow the real packages:
  toolkit (apt/runfile)  lib64/libcudart.so.13.0.96 + link libcudart.so.13
  system cuDNN (apt)     libcudnn_graph.so.9.14.0 + link libcudnn_graph.so.9
  pip wheels             nvidia/cudnn/lib/libcudnn.so.9 (no version in the name)
                         + nvidia_cudnn_cu13-9.19.0.56.dist-info beside nvidia/
"""
import json
import os

import fixtures
import fixtures_driver

CUDNN9_SUBS = ("graph", "ops", "cnn", "adv", "engines_precompiled",
               "engines_runtime_compiled", "heuristic")
SYSLIB = "usr/lib/x86_64-linux-gnu"


def inside(r, rel):
    """Refuse a path whose real location leaves the fixture root: Root.write
    follows links, and an absolute link in the tree (usr/local/cuda ->
    /usr/local/cuda-13.0) would otherwise write to the host's own file."""
    root = os.path.realpath(r.path)
    real = os.path.realpath(r.p(rel))
    if real != root and not real.startswith(root + os.sep):
        raise AssertionError(f"fixture path {rel} resolves outside the root: {real}")
    return rel


def register_dir(r, libdir):
    """List libdir in ld.so.conf and rebuild the root's ld.so.cache (ldconfig -r)."""
    fixtures_driver.refresh_ldcache(r, libdir)


def _parts(v, n=3):
    p = [int(x) for x in v.split(".")[:n]]
    return p + [0] * (n - len(p))


def cudart_source(version):
    """What the real libcudart answers: cudaRuntimeGetVersion = 1000*major + 10*minor."""
    ma, mi = _parts(version, 2)
    # FAKE_LIBVERSION_MS: the call takes that long (a cold load of a big library).
    return ("#include <stdlib.h>\n#include <unistd.h>\n"
            "int cudaRuntimeGetVersion(int *v) { const char *ms = getenv(\"FAKE_LIBVERSION_MS\"); "
            "if (ms) usleep((unsigned)atoi(ms) * 1000u); "
            f"*v = {ma * 1000 + mi * 10}; return 0; }}\n")


def cublas_source(version):
    ma, mi, pa = _parts(version)
    return ("int cublasGetProperty(int t, int *v) { static const int p[3] = { "
            f"{ma}, {mi}, {pa} }}; if (t < 0 || t > 2) return 7; *v = p[t]; return 0; }}\n")


def cudnn_source(version, cudart=13000):
    ma, mi, pa = _parts(version)
    code = ma * 10000 + mi * 100 + pa if ma >= 9 else ma * 1000 + mi * 100 + pa
    return (f"unsigned long cudnnGetVersion(void) {{ return {code}; }}\n"
            f"unsigned long cudnnGetCudartVersion(void) {{ return {cudart}; }}\n")


def nccl_source(version):
    ma, mi, pa = _parts(version)
    return f"int ncclGetVersion(int *v) {{ *v = {ma * 10000 + mi * 100 + pa}; return 0; }}\n"


def _lib(r, libdir, base, soname, version=None, needed=(), runpath=None, source=None):
    """libdir/<base>.<version> with the soname link, or libdir/<soname> alone."""
    inside(r, libdir)
    kw = {}
    if source:
        kw["source"] = source
    if version:
        real = f"{libdir}/{base}.{version}"
        r.shared_lib(real, soname=soname, needed=needed, runpath=runpath, **kw)
        r.symlink(f"{libdir}/{soname}", f"{base}.{version}")
        return real
    r.shared_lib(f"{libdir}/{soname}", soname=soname, needed=needed, runpath=runpath, **kw)
    return f"{libdir}/{soname}"


def add_toolkit(r, mm="13.0", full="13.0.2", cudart="13.0.96", cublas="13.1.0.3",
                link=True, nvcc=True, cache=True, cudart_lib=True, cudart_src=None,
                extra=()):
    """/usr/local/cuda-MM with version.json, libcudart/libcublas/libcublasLt, bin/nvcc,
    the /usr/local/cuda link, and its lib64 in ld.so.cache.  Returns the lib64 dir."""
    major = mm.split(".")[0]
    tk = f"usr/local/cuda-{mm}"
    lib = f"{tk}/lib64"
    inside(r, tk)
    r.mkdir(lib)
    r.write(f"{tk}/version.json", json.dumps({
        "cuda": {"name": "CUDA SDK", "version": full},
        "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": cudart},
        "libcublas": {"name": "CUDA cuBLAS", "version": cublas}}, indent=3))
    if cudart_lib:
        _lib(r, lib, "libcudart.so", f"libcudart.so.{major}", cudart,
             source=cudart_src or cudart_source(cudart))
    _lib(r, lib, "libcublasLt.so", f"libcublasLt.so.{major}", cublas)
    _lib(r, lib, "libcublas.so", f"libcublas.so.{major}", cublas,
         needed=(f"libcublasLt.so.{major}",), runpath="$ORIGIN", source=cublas_source(cublas))
    for fn in extra:
        fn(r, lib)
    if nvcc:
        r.write(f"{tk}/bin/nvcc", "#!/bin/sh\necho fake nvcc\n", mode=0o755)
    if link:
        r.symlink("usr/local/cuda", f"/usr/local/cuda-{mm}")
    if cache:
        register_dir(r, lib)
    return lib


def add_cudnn(r, libdir, version="9.19.0", subs=CUDNN9_SUBS, sub_versions=None,
              full_names=True, runpath="$ORIGIN"):
    """cuDNN 9: the shim libcudnn.so.9 and its sub-libraries in libdir."""
    sub_versions = sub_versions or {}
    _lib(r, libdir, "libcudnn.so", "libcudnn.so.9", version if full_names else None,
         runpath=runpath, source=cudnn_source(version))
    for s in subs:
        v = sub_versions.get(s, version)
        _lib(r, libdir, f"libcudnn_{s}.so", f"libcudnn_{s}.so.9", v if full_names else None,
             runpath=runpath)


def add_cudnn_header(r, version, path="usr/local/cuda-13.0/include/cudnn_version.h"):
    inside(r, path)
    ma, mi, pa = (version.split(".") + ["0", "0"])[:3]
    r.write(path, f"#define CUDNN_MAJOR {ma}\n#define CUDNN_MINOR {mi}\n"
                  f"#define CUDNN_PATCHLEVEL {pa}\n"
                  "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")


def add_venv(r, prefix="opt/venv", py="3.12"):
    """A venv (pyvenv.cfg + lib/pythonX.Y/site-packages); returns the site dir."""
    r.write(f"{prefix}/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n"
                                    f"version = {py}.1\n")
    site = f"{prefix}/lib/python{py}/site-packages"
    inside(r, prefix)
    r.mkdir(site)
    return site


def add_wheel_cudnn(r, site, version="9.19.0.56", cu="13", subs=CUDNN9_SUBS):
    """nvidia-cudnn-cuNN as pip installs it."""
    lib = f"{site}/nvidia/cudnn/lib"
    add_cudnn(r, lib, version=version, subs=subs, full_names=False)
    r.write(f"{site}/nvidia_cudnn_cu{cu}-{version}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: nvidia-cudnn-cu{cu}\nVersion: {version}\n")
    return lib


def add_wheel_runtime(r, site, version="13.0.96", cu13=True):
    """nvidia-cuda-runtime: nvidia/cu13/lib/libcudart.so.13 (CUDA 13's unified layout)."""
    major = version.split(".")[0]
    lib = f"{site}/nvidia/cu13/lib" if cu13 else f"{site}/nvidia/cuda_runtime/lib"
    _lib(r, lib, "libcudart.so", f"libcudart.so.{major}")
    name = "nvidia_cuda_runtime" if cu13 else f"nvidia_cuda_runtime_cu{major}"
    r.write(f"{site}/{name}-{version}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    return lib


def healthy_libs_root(**kw):
    """healthy_root() plus a CUDA 13.0 toolkit whose runtime the loader finds."""
    r = fixtures.healthy_root(**kw)
    add_toolkit(r)
    return r


def lib_entry(doc, path_suffix):
    for c in doc["inventory"]["libraries"]:
        if c["path"].endswith(path_suffix) or (c["realpath"] or "").endswith(path_suffix):
            return c
    return None


def make_world_readable(path):
    """chmod a+rX up the tree so that another user (nobody) can walk into it."""
    for dirpath, dirnames, filenames in os.walk(path):
        os.chmod(dirpath, 0o755)
    p = path
    while p not in ("/", ""):
        st = os.stat(p)
        os.chmod(p, st.st_mode | 0o005 if os.path.isdir(p) else st.st_mode)
        p = os.path.dirname(p)
