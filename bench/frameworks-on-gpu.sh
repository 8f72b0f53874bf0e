#!/bin/sh
# frameworks-on-gpu.sh - for the lead, on the GPU machine: gpudoctor's
# frameworks layer against what PyTorch, JAX and CuPy say about themselves,
# in one run, plus timings beside torch.utils.collect_env and
# jax.print_environment_info().
#
#   bench/frameworks-on-gpu.sh [GPUDOCTOR] [PYTHON]
#     GPUDOCTOR  default build/gpudoctor
#     PYTHON     default /opt/torch/.venv/bin/python3 (torch 2.11+cu130,
#                jax 0.11.2 + cuda13 plugin, cupy-cuda13x 14.2)
#   OUT=dir keeps the raw outputs (default /tmp/gd-frameworks-on-gpu).
#
# Prints a comparison table (static prediction vs the framework, library by
# library for the files the process really mapped) and the timings.  Exit
# status 0 when every compared item agrees, 1 otherwise.
set -u
gd=${1:-build/gpudoctor}
py=${2:-/opt/torch/.venv/bin/python3}
venv=$(cd "$(dirname "$py")/.." && pwd)
out=${OUT:-/tmp/gd-frameworks-on-gpu}
mkdir -p "$out"
export VIRTUAL_ENV="$venv"

now() { date +%s.%N; }
elapsed() { echo "$1 $2" | awk '{printf "%.3f", $2 - $1}'; }

echo "== gpudoctor $("$gd" --version 2>/dev/null | head -1) on $(hostname), python $py"

# 1. static check, 5 runs (the first may be a cold cache); and static-only (--no-load)
: >"$out/times.txt"
for i in 1 2 3 4 5; do
	t0=$(now); "$gd" --json check >"$out/check.json" 2>"$out/check.err"; t1=$(now)
	echo "check $(elapsed "$t0" "$t1")" >>"$out/times.txt"
done
for i in 1 2 3 4 5; do
	t0=$(now); "$gd" --no-load --json check >"$out/check-noload.json" 2>/dev/null; t1=$(now)
	echo "check--no-load $(elapsed "$t0" "$t1")" >>"$out/times.txt"
done
"$gd" check >"$out/check.txt" 2>&1

# 2. --live
t0=$(now); "$gd" --json check --live >"$out/live.json" 2>"$out/live.err"; t1=$(now)
echo "check--live $(elapsed "$t0" "$t1")" >>"$out/times.txt"
"$gd" check --live >"$out/live.txt" 2>&1

# 3. what the frameworks say, and which files the process really mapped
"$py" - >"$out/frameworks.json" 2>"$out/frameworks.err" <<'PY'
import json, os, re
r = {}
def maps():
    out = set()
    for line in open("/proc/self/maps"):
        p = line.split()[-1] if len(line.split()) >= 6 else ""
        if re.search(r"/lib(cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|cufft|cusolver|cusparse|nvrtc|nvJitLink|cuda)\.so", p):
            out.add(os.path.realpath(p))
    return sorted(out)
try:
    import torch
    t = {"version": torch.__version__, "cuda": torch.version.cuda,
         "is_available": torch.cuda.is_available()}
    if t["is_available"]:
        t["arch_list"] = torch.cuda.get_arch_list()
        t["device"] = torch.cuda.get_device_name(0)
        t["capability"] = list(torch.cuda.get_device_capability(0))
        x = torch.randn(1, 3, 32, 32, device="cuda")
        torch.nn.functional.conv2d(x, torch.randn(8, 3, 3, 3, device="cuda"))
        torch.cuda.synchronize()
    t["cudnn"] = torch.backends.cudnn.version()
    t["mapped"] = maps()
    r["torch"] = t
except Exception as e:
    r["torch"] = {"error": repr(e)}
try:
    import jax
    r["jax"] = {"version": jax.__version__, "devices": [str(d) for d in jax.devices()],
                "platforms": sorted({d.platform for d in jax.devices()}), "mapped": maps()}
except Exception as e:
    r["jax"] = {"error": repr(e)}
try:
    import cupy, io, contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        cupy.show_config()
    r["cupy"] = {"version": cupy.__version__, "runtime": cupy.cuda.runtime.runtimeGetVersion(),
                 "devices": cupy.cuda.runtime.getDeviceCount(), "show_config": buf.getvalue(),
                 "mapped": maps()}
except Exception as e:
    r["cupy"] = {"error": repr(e)}
print(json.dumps(r, indent=1))
PY

# 4. the same question asked the frameworks' own way, timed
t0=$(now); "$py" -m torch.utils.collect_env >"$out/collect_env.txt" 2>&1; t1=$(now)
echo "torch.utils.collect_env $(elapsed "$t0" "$t1")" >>"$out/times.txt"
t0=$(now); "$py" -c "import jax; jax.print_environment_info()" >"$out/jax_env.txt" 2>&1; t1=$(now)
echo "jax.print_environment_info $(elapsed "$t0" "$t1")" >>"$out/times.txt"

# 5. compare
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
doc = json.load(open(f"{out}/check.json"))
live = json.load(open(f"{out}/live.json"))
fw = json.load(open(f"{out}/frameworks.json"))
bad = 0
def cmp(what, ours, theirs, ok=None):
    global bad
    good = (ours == theirs) if ok is None else ok
    bad += 0 if good else 1
    print(f"  {'ok  ' if good else 'DIFF'} {what}: gpudoctor {ours!r}  framework {theirs!r}")
def entry(name):
    for f in doc["inventory"]["frameworks"]:
        if f["name"] == name and os.environ.get("VIRTUAL_ENV", "") in f["env"]:
            return f
    return None
for name in ("torch", "jax", "cupy"):
    f, t = entry(name), fw.get(name, {})
    print(f"== {name}")
    if not f or "error" in t:
        cmp("found", bool(f), t.get("error", "installed"), ok=bool(f) == ("error" not in t))
        continue
    libs = {os.path.realpath(l["path"]) for l in f["libraries"] if l["path"]}
    if name == "torch":
        cmp("CUDA build", f["cuda_build"], t["cuda"])
        cmp("prediction gpu <-> is_available", f["prediction"] == "gpu", t["is_available"])
        if t.get("arch_list"):
            ours = sorted(a for a in f["archs"])
            cmp("archs (fatbin vs get_arch_list)", ours, sorted(t["arch_list"]))
        cud = [l for l in f["libraries"] if l["soname"].startswith("libcudnn.so")]
        if cud and t.get("cudnn"):
            v = str(t["cudnn"])
            theirs = f"{int(v[:-4])}.{int(v[-4:-2])}.{int(v[-2:])}" if len(v) >= 5 else v
            cmp("cuDNN version", ".".join((cud[0]["version"] or "?").split(".")[:3]), theirs)
    if name == "jax":
        cmp("prediction gpu <-> a gpu device", f["prediction"] == "gpu", "gpu" in t["platforms"])
    if name == "cupy":
        cmp("CUDA major", f["cuda_build"], f"{t['runtime'] // 1000}.x")
    mapped = [m for m in t.get("mapped", []) if "libcuda.so" not in m]
    for m in mapped:
        cmp(f"mapped {os.path.basename(m)}", m in libs or any(os.path.basename(m) == os.path.basename(x) and x == m for x in libs),
            True, ok=(m in libs) or not any(os.path.basename(x).split('.so')[0] == os.path.basename(m).split('.so')[0] for x in libs))
    lv = next((x for x in live["inventory"]["frameworks"] if x["name"] == name and x["env"] == f["env"]), None)
    if lv and lv.get("live"):
        print(f"  live: {json.dumps(lv['live'])[:400]}")
dis = [x for x in live["findings"] if x.get("cause") == "framework-live-disagrees"]
cmp("--live disagreements", len(dis), 0)
print("== timings (s)")
print(open(f"{out}/times.txt").read())
print("== frameworks layer:", [l for l in doc["layers"] if l["id"] == "frameworks"])
sys.exit(1 if bad else 0)
PY
