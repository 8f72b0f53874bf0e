#!/bin/sh
# maps-vs-gpudoctor.sh - on a GPU machine: does gpudoctor name the files a real
# PyTorch process maps?
#
#   GPUDOCTOR=./build/gpudoctor PY=/opt/torch/.venv/bin/python bench/maps-vs-gpudoctor.sh
#
# For two environments -- as is, and with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
# (the system cuDNN 9.14 in front of the wheel's 9.19, the H200 failure of
# facts.md section 10) -- it:
#   1. starts $PY, imports torch, initialises CUDA and cuDNN with one conv2d,
#      and prints every CUDA library in /proc/self/maps (real paths);
#   2. runs `gpudoctor --json check --python $PY` in the same environment and
#      `gpudoctor which --from .../torch/lib/libtorch_cuda.so --all`;
#   3. prints, per mapped library: the file, gpudoctor's copy of it (version,
#      owner), whether gpudoctor's machine-level winner for that soname is the
#      same file, and, for cuDNN sub-libraries, what gpudoctor said the wheel's
#      shim would load.  MISMATCH lines are what to look at.
# Also prints torch.utils.collect_env's cuDNN line for comparison (slow: ~6 s).
set -u
GPUDOCTOR=${GPUDOCTOR:-./build/gpudoctor}
PY=${PY:-/opt/torch/.venv/bin/python}
OUT=${OUT:-/tmp/maps-vs-gpudoctor}
VENV=$(dirname "$(dirname "$PY")")
mkdir -p "$OUT"

run_case() {
	name=$1
	shift
	echo "=== case: $name ($*)"
	env "$@" VIRTUAL_ENV="$VENV" "$PY" - > "$OUT/$name.maps.json" 2> "$OUT/$name.torch.err" <<'PYEOF'
import json, os, re
res = {"ok": False}
try:
    import torch
    torch.backends.cudnn.enabled = True
    x = torch.randn(8, 3, 32, 32, device="cuda")
    w = torch.randn(16, 3, 3, 3, device="cuda")
    y = torch.nn.functional.conv2d(x, w)
    torch.cuda.synchronize()
    res["ok"] = True
    res["torch"] = torch.__version__
    res["cudnn"] = torch.backends.cudnn.version()
    res["torch_lib"] = os.path.join(os.path.dirname(torch.__file__), "lib")
except Exception as e:
    res["error"] = repr(e)
pat = re.compile(r"lib(cudart|cublas|cublasLt|cufft|cusolver|cusparse|curand|nvrtc|nvJitLink|cudnn\w*|nccl|nvinfer|cuda|nvidia-ml)\.so")
maps = set()
for line in open("/proc/self/maps"):
    parts = line.split()
    if len(parts) >= 6 and pat.search(os.path.basename(parts[5])):
        maps.add(os.path.realpath(parts[5]))
res["maps"] = sorted(maps)
print(json.dumps(res))
PYEOF
	env "$@" VIRTUAL_ENV="$VENV" "$GPUDOCTOR" --json check --python "$PY" > "$OUT/$name.gd.json" 2> "$OUT/$name.gd.err"
	tl=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("torch_lib") or "")' "$OUT/$name.maps.json" 2>/dev/null)
	if [ -n "$tl" ] && [ -e "$tl/libtorch_cuda.so" ]; then
		env "$@" "$GPUDOCTOR" which --from "$tl/libtorch_cuda.so" --all > "$OUT/$name.which.txt" 2>&1
	fi
	python3 - "$OUT/$name.maps.json" "$OUT/$name.gd.json" <<'PYEOF'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
print("torch:", m.get("torch"), "cudnn:", m.get("cudnn"), "ok:", m["ok"], m.get("error", ""))
libs = d["inventory"]["libraries"]
byreal = {os.path.realpath(c["realpath"]): c for c in libs}
winners = {c["soname"]: c for c in libs if c["winner"]}
subs = d["inventory"]["libraries_loader"]["cudnn_subs"]
for p in m["maps"]:
    c = byreal.get(p)
    if c is None:
        tag = "driver" if "libcuda.so" in p or "nvidia-ml" in p else "NOT-IN-INVENTORY"
        print(f"{tag:16} {p}")
        continue
    w = winners.get(c["soname"])
    same = w is not None and os.path.realpath(w["realpath"]) == p
    print(f"{'winner' if same else 'rpath-only':16} {p}  [{c['version']} from {c['version_source']}, {c['owner']}]"
          + ("" if same else f"  machine winner: {w['realpath'] if w else None}"))
for s in subs:
    if "nvidia/cudnn" in s["shim"]:
        real = os.path.realpath(s["path"]) if s["path"] else None
        ok = real in m["maps"] if real else False
        print(f"{'cudnn-sub ok' if ok else 'cudnn-sub MISMATCH':16} {s['soname']} -> {s['path']} ({s['version']}, via {s['source']})")
causes = sorted({f["cause"] for f in d["findings"] if f.get("cause") and f["layer"] == "libraries"})
print("libraries causes:", causes)
PYEOF
}

run_case plain
run_case llp-system LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
echo "=== collect_env (for comparison)"
"$PY" -m torch.utils.collect_env 2>/dev/null | grep -i -A3 cudnn
echo "files in $OUT"
