#!/bin/sh
# h200-issues18-24.sh - what the closing note of issues 18-24 quotes from an
# H200: check (with the new platform, MIG, fabric, PCIe facts), the markdown
# report, health, explain on real errors, watch's /metrics beside NVML, and a
# one-minute burn.  Run from the repository root on the GPU machine; writes
# its outputs under $OUT (or ./h200-out).
set -u
OUT=${OUT:-./h200-out}
mkdir -p "$OUT"
export PATH="/opt/torch/.venv/bin:$PATH"
make -j16 >/dev/null 2>&1 || { echo "build failed"; exit 1; }
G=./build/gpudoctor
$G --version
echo "== check"; $G check; echo "rc=$?"
$G --json check > "$OUT/check.json"
python3 - "$OUT/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inv = d["inventory"]
print("status:", d["status"], "| kb_as_of:", d.get("kb_as_of"))
print("platform:", json.dumps(inv.get("platform"))[:400])
g = inv["gpus"][0] if inv.get("gpus") else {}
print("gpu0:", {k: g.get(k) for k in ("bdf", "bar1", "bar1_bytes", "iommu_group", "iommu_group_type") if k in g})
print("iommu:", json.dumps(inv.get("iommu"))[:300], "| bridges:", json.dumps(inv.get("pcie_bridges"))[:200])
nv = (inv.get("driver") or {}).get("nvml") or {}
for x in nv.get("gpus", [])[:1]:
    print("nvml gpu0:", {k: x.get(k) for k in ("mig_mode", "mig_mode_pending", "mig_devices", "fabric_state", "fabric_status") if k in x})
print("fabric manager:", json.dumps((inv.get("driver") or {}).get("fabric_manager"))[:300])
print("findings not ok:", [(f["cause"], f["status"]) for f in d["findings"] if f["status"] not in ("ok", "skipped")])
PY
echo "== markdown (head)"; $G check --format markdown | head -25
echo "== health"; $G health; echo "rc=$?"
echo "== explain --run (an invalid device ordinal)"
$G explain --run -- python3 -c "import torch; torch.zeros(1, device='cuda:7')" 2>&1 | tail -12
echo "== explain of a pasted OOM"
printf '%s\n' "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 139.80 GiB of which 17.25 MiB is free. Of the allocated memory 1.10 GiB is allocated by PyTorch" | $G explain - 2>&1 | head -12
echo "== watch /metrics"
mkdir -p /tmp/gdstate && chmod 700 /tmp/gdstate
$G watch --listen 127.0.0.1:9835 --state-dir /tmp/gdstate --interval 2s > "$OUT/watch.log" 2>&1 &
WP=$!
sleep 8
python3 -c "import urllib.request; t=urllib.request.urlopen('http://127.0.0.1:9835/metrics', timeout=5).read().decode(); open('$OUT/metrics.txt','w').write(t); print('\n'.join(l for l in t.splitlines() if not l.startswith('#') and ('build_info' in l or 'driver_info' in l or 'temperature' in l or 'clock' in l or 'ecc' in l or 'spoofed' in l))[:2500])"
kill $WP; wait $WP 2>/dev/null
echo "== burn --quick"; $G burn --quick; echo "rc=$?"
