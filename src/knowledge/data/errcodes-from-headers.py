#!/usr/bin/env python3
"""Generate src/explain/errcodes.c: every error code of the GPU stack's C APIs,
by name and number, and the catalogue cause each one implies.

Sources (the real headers, read as text):
  CUresult       cuda.h          (enum cudaError_enum)   CUDA 13 toolkit
  cudaError_t    driver_types.h  (enum cudaError)        CUDA 13 toolkit
  cudaError_t    cudart-errors-cuda9.txt (beside this script): the numbering of
                 CUDA 10.0 and older, which CUDA 10.1 renumbered (family
                 ERR_CUDART_OLD; the extract names its header and source URL)
  cudnnStatus_t  cudnn_graph.h   (cuDNN 9)
  ncclResult_t   nccl.h          (NCCL 2.28)
  nvmlReturn_t   nvml.h: not shipped with the toolkit here; the enum below is
                 copied from the public header as documented at
                 https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html
                 (nvmlReturn_t, driver R570+).  pynvml spells each one
                 NVMLError_CamelCase (NVML_ERROR_GPU_IS_LOST -> NVMLError_GpuIsLost).

    errcodes-from-headers.py /usr/local/cuda/include > src/explain/errcodes.c

CAUSES maps a name to the catalogue ids it implies wherever it appears; a
name not listed implies no stack cause (a bug in the program, a bad
argument, or too generic to say).  Each mapping is the one the specific
rules of explain.tsv use for the same message, with their sources.
"""
import os
import re
import sys

NVML = """NVML_SUCCESS = 0 NVML_ERROR_UNINITIALIZED = 1 NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3 NVML_ERROR_NO_PERMISSION = 4 NVML_ERROR_ALREADY_INITIALIZED = 5
NVML_ERROR_NOT_FOUND = 6 NVML_ERROR_INSUFFICIENT_SIZE = 7 NVML_ERROR_INSUFFICIENT_POWER = 8
NVML_ERROR_DRIVER_NOT_LOADED = 9 NVML_ERROR_TIMEOUT = 10 NVML_ERROR_IRQ_ISSUE = 11
NVML_ERROR_LIBRARY_NOT_FOUND = 12 NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_CORRUPTED_INFOROM = 14 NVML_ERROR_GPU_IS_LOST = 15 NVML_ERROR_RESET_REQUIRED = 16
NVML_ERROR_OPERATING_SYSTEM = 17 NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18 NVML_ERROR_IN_USE = 19
NVML_ERROR_MEMORY = 20 NVML_ERROR_NO_DATA = 21 NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22
NVML_ERROR_INSUFFICIENT_RESOURCES = 23 NVML_ERROR_FREQ_NOT_SUPPORTED = 24
NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25 NVML_ERROR_DEPRECATED = 26 NVML_ERROR_NOT_READY = 27
NVML_ERROR_GPU_NOT_FOUND = 28 NVML_ERROR_INVALID_STATE = 29 NVML_ERROR_UNKNOWN = 999"""

CAUSES = {
    # CUDA driver API and runtime (the cuinit-*, cuda-* rules of explain.tsv)
    "CUDA_ERROR_NO_DEVICE": "gpu-hidden-by-env;device-node-missing;no-nvidia-gpu",
    "cudaErrorNoDevice": "gpu-hidden-by-env;device-node-missing;no-nvidia-gpu",
    "cudaErrorInsufficientDriver": "cuda-runtime-too-new-for-driver;framework-driver-too-old",
    "CUDA_ERROR_STUB_LIBRARY": "libcuda-stub-on-path",
    "cudaErrorStubLibrary": "libcuda-stub-on-path",
    "CUDA_ERROR_SYSTEM_NOT_READY": "fabric-manager-not-running",
    "cudaErrorSystemNotReady": "fabric-manager-not-running",
    "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "driver-library-mismatch;cuda-compat-unusable",
    "cudaErrorSystemDriverMismatch": "driver-library-mismatch;cuda-compat-unusable",
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "compat-lib-on-unsupported-gpu;cuda-compat-unusable",
    "cudaErrorCompatNotSupportedOnDevice": "compat-lib-on-unsupported-gpu;cuda-compat-unusable",
    "CUDA_ERROR_ECC_UNCORRECTABLE": "ecc-errors",
    "cudaErrorECCUncorrectable": "ecc-errors",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "gpu-arch-unsupported",
    "cudaErrorNoKernelImageForDevice": "gpu-arch-unsupported",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": "ptx-too-new-for-driver",
    "cudaErrorUnsupportedPtxVersion": "ptx-too-new-for-driver",
    # the cuda-invalid-device-function rule (cudaGetErrorString's "invalid device function")
    "cudaErrorInvalidDeviceFunction": "gpu-arch-unsupported",
    "CUDA_ERROR_INVALID_IMAGE": "ptx-too-new-for-driver;gpu-arch-unsupported",
    "cudaErrorInvalidKernelImage": "ptx-too-new-for-driver;gpu-arch-unsupported",
    "CUDA_ERROR_OUT_OF_MEMORY": "gpu-memory-held",
    "cudaErrorMemoryAllocation": "gpu-memory-held",
    "CUDA_ERROR_DEVICE_UNAVAILABLE": "gpu-exclusive-busy",
    "cudaErrorDevicesUnavailable": "gpu-exclusive-busy",
    "CUDA_ERROR_NOT_INITIALIZED": "cuda-init-failed",
    "cudaErrorInitializationError": "cuda-init-failed",
    # cuDNN (the cudnn-* rules)
    "CUDNN_STATUS_NOT_INITIALIZED": "cudnn-not-initialized",
    "CUDNN_STATUS_ARCH_MISMATCH": "cudnn-no-kernel-for-arch",
    "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH": "cudnn-no-kernel-for-arch",
    "CUDNN_STATUS_VERSION_MISMATCH": "cudnn-version-mismatch",
    "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH": "lib-mixed-builds;cudnn-version-mismatch",
    "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED": "cudnn-incomplete",
    "CUDNN_STATUS_ALLOC_FAILED": "gpu-memory-held",
    "CUDNN_STATUS_EXECUTION_FAILED": "cudnn-call-failed",
    # NCCL (the nccl-* rules)
    "ncclSystemError": "shm-too-small;memlock-limited;nccl-call-failed",
    "ncclRemoteError": "nccl-ib-network-error;nccl-call-failed",
    "ncclUnhandledCudaError": "cuda-init-failed",
    # NVML (the nvml-* rules)
    "NVML_ERROR_DRIVER_NOT_LOADED": "nvidia-module-not-loaded",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "driver-library-mismatch",
    "NVML_ERROR_GPU_IS_LOST": "gpu-lost",
    "NVML_ERROR_LIBRARY_NOT_FOUND": "nvml-missing",
    "NVML_ERROR_NO_PERMISSION": "device-node-permission",
    "NVML_ERROR_CORRUPTED_INFOROM": "inforom-corrupted",
}


def enum(text, pattern):
    return [(m.group(1), int(m.group(2), 0)) for m in re.finditer(pattern, text)]


def pynvml(name):
    words = name[len("NVML_ERROR_"):].split("_")
    return "NVMLError_" + "".join(w.capitalize() for w in words)


def main():
    inc = sys.argv[1]
    read = lambda f: open(os.path.join(inc, f), encoding="utf-8", errors="replace").read()
    cu = read("cuda.h")
    cu = cu[cu.index("typedef enum cudaError_enum"):]
    cu = cu[:cu.index("} CUresult;")]
    rt = read("driver_types.h")
    rt = rt[rt.index("enum __device_builtin__ cudaError"):]
    rt = rt[:rt.index("};")]
    dnn = read("cudnn_graph.h")
    dnn = dnn[dnn.index("typedef enum {", dnn.index("CUDNN_STATUS_SUCCESS") - 200):]
    dnn = dnn[:dnn.index("} cudnnStatus_t;")]
    nccl = read("nccl.h")
    nccl = nccl[nccl.index("typedef enum { ncclSuccess"):]
    nccl = nccl[:nccl.index("} ncclResult_t;")]
    rows = []
    rows += [("ERR_CU", n, c) for n, c in enum(cu, r"\b(CUDA_[A-Z0-9_]+)\s*=\s*(\d+)")]
    rows += [("ERR_CUDART", n, c) for n, c in enum(rt, r"\b(cuda[A-Z][A-Za-z0-9]+)\s*=\s*(\d+)")]
    rows += [("ERR_CUDNN", n, c) for n, c in enum(dnn, r"\b(CUDNN_STATUS_[A-Z0-9_]+)\s*=\s*(\d+)")]
    # deprecated aliases: "CUDNN_STATUS_ALLOC_FAILED CUDNN_DEPRECATED_ENUM = CUDNN_STATUS_..."
    known = {n: c for _, n, c in rows}
    for m in re.finditer(r"\b(CUDNN_STATUS_[A-Z0-9_]+) CUDNN_DEPRECATED_ENUM\s*=\s*(CUDNN_STATUS_[A-Z0-9_]+)", dnn):
        if m.group(2) in known:
            rows.append(("ERR_CUDNN", m.group(1), known[m.group(2)]))
    rows += [("ERR_NCCL", n, c) for n, c in enum(nccl, r"\b(nccl[A-Z][A-Za-z]+)\s*=\s*(\d+)")
             if n != "ncclNumResults"]
    old = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cudart-errors-cuda9.txt"),
               encoding="utf-8").read()
    nv = enum(NVML, r"\b(NVML_[A-Z_]+) = (\d+)")
    rows += [("ERR_NVML", n, c) for n, c in nv]
    rows += [("ERR_NVML", pynvml(n), c) for n, c in nv if n.startswith("NVML_ERROR_")]
    # after every other row: a name looked up finds its current number first
    rows += [("ERR_CUDART_OLD", n, c) for n, c in enum(old, r"(?m)^(cuda[A-Za-z0-9]+) = (\d+)$")]
    names = {n for _, n, _ in rows}
    for k in CAUSES:
        base = k
        if base not in names:
            sys.exit(f"CAUSES names {k}, which no header defines")
    out = sys.stdout
    out.write("/*\n * errcodes.c - GENERATED by src/knowledge/data/errcodes-from-headers.py from the\n"
              " * CUDA 13 toolkit's cuda.h and driver_types.h, cuDNN 9's cudnn_graph.h, NCCL's nccl.h,\n"
              " * cudaError_t's numbering before CUDA 10.1 (cudart-errors-cuda9.txt)\n"
              " * and NVML's nvmlReturn_t (see the script for the sources); do not edit.\n */\n")
    out.write('#include "explain/errcodes.h"\n\nconst struct errcode errcodes[] = {\n')
    for fam, n, c in rows:
        causes = CAUSES.get(n)
        if fam == "ERR_NVML" and n.startswith("NVMLError_"):
            causes = CAUSES.get("NVML_ERROR_" + re.sub(r"(?<!^)([A-Z])", r"_\1", n[10:]).upper())
        # Causes by enum: an id the catalogue lacks does not compile.
        enums = ["CAUSE_" + x.upper().replace("-", "_") for x in causes.split(";")] if causes else []
        if len(enums) > 4:
            sys.exit(f"{n}: more than 4 causes")
        cell = "{ %s }" % ", ".join(enums) if enums else "{ CAUSE_NONE }"
        out.write('\t{ %s, %d, "%s", %s },\n' % (fam, c, n, cell))
    out.write("};\n\nconst unsigned long errcodes_count = sizeof(errcodes) / sizeof(errcodes[0]);\n")


if __name__ == "__main__":
    main()
