#!/usr/bin/env python3
"""which-vs-torch.py - does gpudoctor name the files a real PyTorch process maps?

    python3 bench/which-vs-torch.py [GPUDOCTOR]

Starts PyTorch, initialises CUDA, cuBLAS and cuDNN (a small conv on the GPU),
reads /proc/self/maps, then asks `gpudoctor which --from libtorch_cuda.so
--all` (and, for libraries dlopen()ed at run time such as cuDNN's
sub-libraries and NCCL, `gpudoctor which NAME --from <the library that opens
it>`) and compares realpaths.  Prints one line per CUDA library, and what
torch.utils.collect_env says about cuDNN for contrast.  Needs a GPU.
"""
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
gd = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "build", "gpudoctor")

import torch  # noqa: E402

x = torch.randn(8, 3, 32, 32, device="cuda")
torch.nn.Conv2d(3, 8, 3).cuda()(x).sum().item()
(x.view(8, -1) @ x.view(8, -1).t()).sum().item()
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())

interesting = re.compile(r"lib(cudart|cublas|cublasLt|cudnn\w*|nccl|nvrtc\w*|nvJitLink|cusparse\w*|cufft\w*|"
                         r"curand|cusolver\w*|nvToolsExt|cupti)\.so")
mapped = {}
for line in open("/proc/self/maps"):
    parts = line.split()
    if len(parts) >= 6 and interesting.search(os.path.basename(parts[5])):
        mapped[os.path.basename(parts[5])] = os.path.realpath(parts[5])

libdir = os.path.join(os.path.dirname(torch.__file__), "lib")
top = os.path.join(libdir, "libtorch_cuda.so")
env = dict(os.environ)
tree = json.loads(subprocess.run([gd, "--json", "which", "--from", top, "--all"], capture_output=True,
                                 text=True, env=env).stdout)
print(f"tree of {top}: {len(tree['libraries'])} objects in {tree['seconds'] * 1e3:.2f} ms")
by_real = {}
for n in tree["libraries"]:
    if n.get("realpath"):
        by_real[n["realpath"]] = n
ok = bad = 0
for base, real in sorted(mapped.items()):
    n = by_real.get(real)
    how = "in the NEEDED tree" if n else None
    if not n:
        # dlopen()ed at run time: ask with the opener's RPATH/RUNPATH.
        soname = re.sub(r"(\.so\.\d+).*", r"\1", base)
        for opener in [v for k, v in mapped.items() if k.startswith("libcudnn.so")] + [top]:
            d = json.loads(subprocess.run([gd, "--json", "which", soname, "--from", opener],
                                          capture_output=True, text=True, env=env).stdout)
            if d.get("realpath") == real:
                n, how = d, f"which {soname} --from {opener}"
                break
    if n:
        ok += 1
        print(f"  same  {real}  ({how})")
    else:
        bad += 1
        print(f"  DIFF  mapped {real}; gpudoctor does not name it")
try:
    from torch.utils import collect_env
    info = collect_env.get_env_info()
    print("collect_env cudnn_version:", info.cudnn_version)
except Exception as e:  # noqa: BLE001
    print("collect_env failed:", e)
print(f"{ok} agree, {bad} differ")
sys.exit(1 if bad else 0)
