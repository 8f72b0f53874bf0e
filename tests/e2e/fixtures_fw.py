"""Fixture parts for the frameworks layer: Python environments with
TensorFlow, PyTorch, JAX and CuPy laid out as their wheels install them.

The libraries are real ELF files (gdtest.Root.shared_lib) with the SONAME,
NEEDED and RPATH/RUNPATH layout of the real wheels:
  - TF: tensorflow/libtensorflow_framework.so.2 with RUNPATH
    $ORIGIN/../nvidia/<x>/lib:$ORIGIN/../../nvidia/<x>/lib (facts.md 1.4)
  - torch: torch/lib/libtorch_cuda.so with DT_RPATH
    $ORIGIN/../../nvidia/<x>/lib...:$ORIGIN (facts.md 10)
  - nvidia wheels: nvidia/<x>/lib/<soname> with RUNPATH $ORIGIN, listed in
    the wheel's RECORD; cuDNN 9 as a shim plus sub-libraries.
libtorch_cuda.so can carry a real .nv_fatbin section: nvcc -fatbin when
/usr/local/cuda/bin/nvcc exists, else a fat binary built byte by byte with
the layout documented in src/loader/fatbin.h.
"""
import os
import shutil
import struct
import subprocess
import tempfile

NVCC = "/usr/local/cuda/bin/nvcc"
CUDNN9_SUBS = ("libcudnn_graph", "libcudnn_ops", "libcudnn_cnn", "libcudnn_adv",
               "libcudnn_engines_precompiled", "libcudnn_engines_runtime_compiled",
               "libcudnn_heuristic")

TF_BUILD_INFO_215 = """# Auto-generated
import collections

build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-16/bin/clang'), ('cuda_compute_capabilities', ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), ('cuda_version', '12.2'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])
"""

TF_BUILD_INFO_220 = """import collections
build_info = collections.OrderedDict([('cpu_compiler', 'clang 18'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', False)])
"""

TF_BUILD_INFO_CPU = """import collections
build_info = collections.OrderedDict([('cpu_compiler', 'clang 18'), ('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])
"""

TORCH_VERSION = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda}
git_version = '0000000000000000000000000000000000000000'
hip: Optional[str] = None
xpu: Optional[str] = None
"""


def add_venv(r, prefix="opt/venv", py="3.11", python_script=None):
    """A venv; returns its site-packages (relative to the root)."""
    site = f"{prefix}/lib/python{py}/site-packages"
    r.mkdir(site)
    r.write(f"{prefix}/pyvenv.cfg", f"home = /usr/bin\ninclude-system-site-packages = false\nversion = {py}.2\n")
    if python_script is not None:
        r.write(f"{prefix}/bin/python3", python_script, mode=0o755)
    else:
        r.write(f"{prefix}/bin/python3", "", mode=0o755)
    return site


def add_dist(r, site, name, version, requires=(), record=(), summary=None):
    """A .dist-info directory as pip writes it."""
    d = f"{site}/{name.replace('-', '_')}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    if summary:
        meta += f"Summary: {summary}\n"
    for q in requires:
        meta += f"Requires-Dist: {q}\n"
    r.write(f"{d}/METADATA", meta + "\nlong description\n")
    r.write(f"{d}/RECORD", "".join(f"{p},sha256=x,1\n" for p in record) + f"{d.split('/')[-1]}/RECORD,,\n")
    return d


def add_nvidia_wheel(r, site, dist, version, component, sonames, needed=None, runpath="$ORIGIN"):
    """nvidia-* wheel: site/nvidia/<component>/lib/<soname> with RUNPATH $ORIGIN."""
    paths = []
    for so in sonames:
        rel = f"nvidia/{component}/lib/{so}"
        r.shared_lib(f"{site}/{rel}", soname=so, needed=(needed or {}).get(so, ()), runpath=runpath)
        paths.append(rel)
    add_dist(r, site, dist, version, record=paths)
    return paths


def add_cudnn_wheel(r, site, version="9.1.0.70", cu="12"):
    sonames = ["libcudnn.so.9"] + [f"{s}.so.9" for s in CUDNN9_SUBS]
    return add_nvidia_wheel(r, site, f"nvidia-cudnn-cu{cu}", version, "cudnn", sonames)


def add_cuda12_wheels(r, site, cudnn="8.9.4.25"):
    """The [and-cuda] wheels of TF 2.15 (CUDA 12, cuDNN 8)."""
    add_nvidia_wheel(r, site, "nvidia-cuda-runtime-cu12", "12.2.140", "cuda_runtime", ["libcudart.so.12"])
    add_nvidia_wheel(r, site, "nvidia-cublas-cu12", "12.2.5.6", "cublas",
                     ["libcublasLt.so.12", "libcublas.so.12"], needed={"libcublas.so.12": ["libcublasLt.so.12"]})
    add_nvidia_wheel(r, site, "nvidia-cufft-cu12", "11.0.8.103", "cufft", ["libcufft.so.11"])
    add_nvidia_wheel(r, site, "nvidia-nvjitlink-cu12", "12.2.140", "nvjitlink", ["libnvJitLink.so.12"])
    # the real wheel's RUNPATH reaches its sibling nvjitlink wheel
    add_nvidia_wheel(r, site, "nvidia-cusolver-cu12", "11.5.2.141", "cusolver", ["libcusolver.so.11"],
                     needed={"libcusolver.so.11": ["libnvJitLink.so.12"]},
                     runpath="$ORIGIN:$ORIGIN/../../nvjitlink/lib")
    add_nvidia_wheel(r, site, "nvidia-cusparse-cu12", "12.1.2.141", "cusparse", ["libcusparse.so.12"])
    add_nvidia_wheel(r, site, "nvidia-curand-cu12", "10.3.3.141", "curand", ["libcurand.so.10"])
    add_nvidia_wheel(r, site, "nvidia-nccl-cu12", "2.18.1", "nccl", ["libnccl.so.2"])
    if cudnn.startswith("8"):
        subs = ["libcudnn_ops_infer", "libcudnn_ops_train", "libcudnn_cnn_infer", "libcudnn_cnn_train",
                "libcudnn_adv_infer", "libcudnn_adv_train"]
        add_nvidia_wheel(r, site, "nvidia-cudnn-cu12", cudnn, "cudnn",
                         ["libcudnn.so.8"] + [f"{s}.so.8" for s in subs])
    else:
        add_cudnn_wheel(r, site, cudnn)


TF_COMPONENTS = ("cublas", "cuda_cupti", "cuda_runtime", "cudnn", "cufft", "curand", "cusolver",
                 "cusparse", "nccl", "nvjitlink")


def add_tensorflow(r, site, version="2.15.0", dist="tensorflow", build_info=TF_BUILD_INFO_215,
                   and_cuda_pins=(), runpath_components=TF_COMPONENTS):
    """The tensorflow package: build_info.py and libtensorflow_framework.so.2 with TF's RUNPATH
    (one entry per nvidia/<component>/lib; TF 2.21's real one has no cusolver)."""
    add_dist(r, site, dist, version, requires=[f"{p}; extra == \"and-cuda\"" for p in and_cuda_pins])
    r.write(f"{site}/tensorflow/__init__.py", "")
    if build_info is not None:
        r.write(f"{site}/tensorflow/python/platform/build_info.py", build_info)
    rp = ":".join([f"$ORIGIN/../nvidia/{c}/lib" for c in runpath_components] +
                  [f"$ORIGIN/../../nvidia/{c}/lib" for c in runpath_components])
    r.shared_lib(f"{site}/tensorflow/libtensorflow_framework.so.2", soname="libtensorflow_framework.so.2",
                 runpath=rp)


def fatbin_bytes(archs, counts=None):
    """A fat binary with one entry per arch ("sm_90", "compute_120"); nvcc when present.
    counts {"sm_90a": 1, "sm_80": 12}: that many entries per arch, one container each
    (like the compilation units of a real library), built byte by byte."""
    if counts:
        out = b""
        for a in archs:
            for _ in range(counts.get(a, 1)):
                out += _fatbin_by_hand([a])
        return out
    if os.path.exists(NVCC):
        scratch = tempfile.mkdtemp(prefix="gd-fatbin-")
        try:
            cu = os.path.join(scratch, "k.cu")
            with open(cu, "w") as f:
                f.write("__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n")
            args = [NVCC, "-fatbin", "-o", os.path.join(scratch, "k.fatbin"), cu]
            for a in archs:
                kind, num = a.split("_")
                code = f"sm_{num}" if kind == "sm" else f"compute_{num}"
                args += ["-gencode", f"arch=compute_{num},code={code}"]
            p = subprocess.run(args, capture_output=True, text=True)
            if p.returncode == 0:
                with open(os.path.join(scratch, "k.fatbin"), "rb") as f:
                    return f.read()
        finally:
            shutil.rmtree(scratch, True)
    return _fatbin_by_hand(archs)


def _fatbin_by_hand(archs):
    """One container with the layout of src/loader/fatbin.h; "sm_90a" sets the arch-specific flag."""
    body = b""
    for a in archs:
        kind, num = a.split("_")
        k = 2 if kind == "sm" else 1
        flags = 0x11
        if num[-1] in "af":
            flags |= 0x100000 if num[-1] == "a" else 0x200000
            num = num[:-1]
        payload = b"\xab" * 16
        hdr = struct.pack("<HHIQIIHHIIIQQQ", k, 0x101, 64, len(payload), 0, 0, 8, 1, int(num), 0, 0, flags, 0, 0)
        body += hdr + payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def fatbin_source(archs, counts=None):
    """C source whose object carries a .nv_fatbin section with those archs."""
    fd, path = tempfile.mkstemp(prefix="gd-fatbin-", suffix=".bin")
    with os.fdopen(fd, "wb") as f:
        f.write(fatbin_bytes(archs, counts))
    return ('__asm__(".section .nv_fatbin,\\"a\\"\\n.balign 8\\n.incbin \\"%s\\"\\n.previous\\n");\n'
            "int gd_fixture_symbol(void) { return 42; }\n" % path)


TORCH_RPATH = ":".join(f"$ORIGIN/../../nvidia/{c}/lib" for c in
                       ("cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cudnn", "cufft",
                        "curand", "cusolver", "cusparse", "nccl", "nvjitlink")) + ":$ORIGIN"


def add_torch(r, site, version="2.5.1+cu124", cuda="'12.4'", archs=("sm_80", "sm_90"),
              needed=("libcudart.so.12", "libcublas.so.12", "libcudnn.so.9", "libc10_cuda.so"),
              cudnn_pin="9.1.0.70", cu="12", rpath=TORCH_RPATH, fatbin_counts=None):
    reqs = [f"nvidia-cudnn-cu{cu}=={cudnn_pin}; platform_system == \"Linux\""] if cudnn_pin else []
    add_dist(r, site, "torch", version, requires=reqs)
    r.write(f"{site}/torch/__init__.py", "")
    r.write(f"{site}/torch/version.py", TORCH_VERSION.format(version=version, cuda=cuda))
    if cuda == "None":
        r.shared_lib(f"{site}/torch/lib/libtorch_cpu.so", soname="libtorch_cpu.so")
        return
    r.shared_lib(f"{site}/torch/lib/libc10_cuda.so", soname="libc10_cuda.so", rpath=rpath)
    src = fatbin_source(archs, fatbin_counts) if archs else "int gd_fixture_symbol(void) { return 42; }\n"
    r.shared_lib(f"{site}/torch/lib/libtorch_cuda.so", soname="libtorch_cuda.so", needed=needed,
                 rpath=rpath, source=src)


def add_torch_cu12_wheels(r, site, cudnn="9.1.0.70"):
    add_nvidia_wheel(r, site, "nvidia-cuda-runtime-cu12", "12.4.127", "cuda_runtime", ["libcudart.so.12"])
    add_nvidia_wheel(r, site, "nvidia-cublas-cu12", "12.4.5.8", "cublas", ["libcublasLt.so.12", "libcublas.so.12"],
                     needed={"libcublas.so.12": ["libcublasLt.so.12"]})
    add_cudnn_wheel(r, site, cudnn, cu="12")


def add_system_cudnn(r, libdir="usr/lib/x86_64-linux-gnu", version="9.14.0"):
    """A distribution cuDNN 9: real files libX.so.<version>, soname links libX.so.9."""
    for base in ("libcudnn",) + CUDNN9_SUBS:
        r.shared_lib(f"{libdir}/{base}.so.{version}", soname=f"{base}.so.9", runpath="$ORIGIN")
        r.symlink(f"{libdir}/{base}.so.9", f"{base}.so.{version}")
    return "/" + libdir
