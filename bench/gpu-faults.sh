#!/bin/sh
# bench/gpu-faults.sh - gpudoctor's driver and cuda layers on a real GPU, next to
# nvidia-smi, then three real faults made on purpose; each must be named.
#
#   sh bench/gpu-faults.sh            # builds ./build/gpudoctor if needed
#   GPUDOCTOR=/path/to/gpudoctor sh bench/gpu-faults.sh
#
# Needs: an NVIDIA GPU, nvidia-smi, python3 (ctypes only: the memory holder
# talks to libcuda directly, so no framework is needed), and a CUDA toolkit
# stub at $CUDA_STUB (default /usr/local/cuda/lib64/stubs/libcuda.so) for the
# last section.  Nothing here needs root; nothing is changed on the machine.
set -u
cd "$(dirname "$0")/.." || exit 2
GD=${GPUDOCTOR:-./build/gpudoctor}
CUDA_STUB=${CUDA_STUB:-/usr/local/cuda/lib64/stubs/libcuda.so}
HOLD_GIB=${HOLD_GIB:-40}
TMP=$(mktemp -d /tmp/gd-faults.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

section() { printf '\n==================== %s ====================\n' "$*"; }
# Print the driver/cuda findings of a JSON report, one line each.
findings() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("overall:", d["status"], " layers:", " ".join(l["id"] + "=" + l["status"] for l in d["layers"]))
for f in d["findings"]:
    if f["layer"] in ("driver", "cuda"):
        print("  %-7s %-28s %-30s %s" % (f["status"], f["id"], f["cause"] or "-", f["title"]))
        if f["status"] not in ("ok",):
            for e in f["evidence"]:
                print("            evidence:", e)
            if f.get("fix"):
                print("            fix:", f["fix"])
' "$1"
}

[ -x "$GD" ] || make -j"$(nproc 2>/dev/null || echo 4)" >/dev/null || exit 2

section "1. nvidia-smi (the reference)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,memory.used,persistence_mode,compute_mode,ecc.mode.current --format=csv
nvidia-smi | sed -n '3p'	# the banner line with "CUDA Version"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv

section "2. gpudoctor check (text)"
t0=$(date +%s.%N)
"$GD" check
rc=$?
echo "exit status: $rc, wall $(awk "BEGIN { print $(date +%s.%N) - $t0 }") s"

section "3. gpudoctor --json check: what to compare with section 1"
"$GD" --json check > "$TMP/healthy.json"
echo "exit status: $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
inv = d["inventory"]
n, c = inv["driver"]["nvml"], inv["cuda"]
print("kernel module:", inv["driver"]["kernel_module_version"])
for k in ("nvml", "cuda"):
    l = inv["driver"]["libraries"][k]
    print("%-5s library: %s -> %s (%s, via %s)" % (k, l["path"], l["realpath"], l["version"], l["how"]))
print("NVML: driver", n["driver_version"], " CUDA", n["cuda_version"], " GPUs", n["gpu_count"])
for g in n["gpus"]:
    print("  GPU %d %s %s mem %s/%s MiB persistence=%s compute_mode=%s mig=%s ecc=%s procs=%s" % (
        g["index"], g["name"], g["bus_id"], g["memory_used_mib"], g["memory_total_mib"],
        g["persistence_mode"], g["compute_mode"], g["mig_mode"], g["ecc"], g["processes"]))
print("cuInit:", c["init_result_name"], " driver API", c["driver_version"], " devices", c["device_count"],
      " kernel_ok", c["kernel_ok"], " timings_ms", c["timings_ms"])
for dv in c["devices"]:
    print("  device %d %s cc %s %s SMs %s bytes %s kernel_ok=%s %s" % (dv["index"], dv["name"], dv["cc"],
          dv["sm_count"], dv["memory_bytes"], dv["bus_id"], dv["kernel_ok"], dv["timings_ms"]))
' "$TMP/healthy.json"
findings "$TMP/healthy.json"

section "4. fault: CUDA_VISIBLE_DEVICES=-1 (expect gpu-hidden-by-env, fail)"
CUDA_VISIBLE_DEVICES=-1 "$GD" --json check > "$TMP/cvd.json"
echo "exit status: $? (expect 1)"
findings "$TMP/cvd.json"
section "4b. CUDA_VISIBLE_DEVICES=0,7 (expect gpu-hidden-by-env, warn: 7 ends the list)"
CUDA_VISIBLE_DEVICES=0,7 "$GD" --json check > "$TMP/cvd2.json"
findings "$TMP/cvd2.json"

section "5. fault: another process holds ${HOLD_GIB} GiB on GPU 0 (expect gpu-memory-held, warn, naming its pid)"
python3 - "$HOLD_GIB" > "$TMP/holder.out" 2>&1 <<'PY' &
import ctypes, sys, time
cu = ctypes.CDLL("libcuda.so.1")
assert cu.cuInit(0) == 0
dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
rc = cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(int(sys.argv[1]) << 30))
print("cuMemAlloc_v2 rc", rc, flush=True)
time.sleep(90)
PY
HOLDER=$!
sleep 8
echo "holder pid: $HOLDER ($(cat "$TMP/holder.out"))"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
"$GD" --json check > "$TMP/held.json"
echo "exit status: $? (expect 0: a warning only)"
findings "$TMP/held.json"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null

section "6. fault: LD_LIBRARY_PATH dir with libcuda.so.1 -> the toolkit stub (expect libcuda-stub-on-path, fail)"
if [ -e "$CUDA_STUB" ]; then
	mkdir -p "$TMP/stubdir"
	ln -s "$CUDA_STUB" "$TMP/stubdir/libcuda.so.1"
	LD_LIBRARY_PATH="$TMP/stubdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$GD" --json check > "$TMP/stub.json"
	echo "exit status: $? (expect 1)"
	findings "$TMP/stub.json"
	section "6b. the stub itself in the CUDA probe (expect init.result=34)"
	"$GD" __probe cuda "$CUDA_STUB"
	section "6c. the stubs directory itself on LD_LIBRARY_PATH (expect libcuda-stub-on-path, warn)"
	LD_LIBRARY_PATH="$(dirname "$CUDA_STUB")" "$GD" --json check > "$TMP/stubdir.json"
	findings "$TMP/stubdir.json"
else
	echo "SKIPPED: no toolkit stub at $CUDA_STUB (set CUDA_STUB=...)"
fi

section "7. debugging variables (expect cuda-debug-env-set, warn)"
CUDA_LAUNCH_BLOCKING=1 "$GD" --json check > "$TMP/dbg.json"
findings "$TMP/dbg.json"

section "8. --no-load (expect driver.nvml and cuda.init skipped)"
"$GD" --no-load --json check > "$TMP/noload.json"
findings "$TMP/noload.json"
