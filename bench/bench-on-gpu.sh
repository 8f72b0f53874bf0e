#!/bin/sh
# bench-on-gpu.sh - for the lead, on the GPU machine: build gpudoctor, run
# `gpudoctor bench` (text, then --json, timed), then the PyTorch comparison.
#
#   sh bench/bench-on-gpu.sh          # from the repository root
#
# Writes everything under $OUT (or ./bench-out) and prints the comparison
# table last.  PYTHON defaults to the machine's torch interpreter.
set -u
OUT=${OUT:-$PWD/bench-out}
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
mkdir -p "$OUT"
B=build-gpu
echo "== build"
make -j"$(nproc)" B=$B >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 2; }
GD=$PWD/$B/gpudoctor
nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,clocks.sm,clocks.max.sm,memory.used,memory.total --format=csv >"$OUT/nvidia-smi.csv" 2>&1
cat "$OUT/nvidia-smi.csv"
echo "== gpudoctor bench --quick (warm-up of the driver, and the quick timing)"
s=$(date +%s%N)
"$GD" bench --quick --gpu 0 >"$OUT/bench-quick.txt" 2>"$OUT/bench-quick.err"
echo "rc=$? quick run: $(( ($(date +%s%N) - s) / 1000000 )) ms"
echo "== gpudoctor bench (default, text)"
s=$(date +%s%N)
"$GD" bench >"$OUT/bench.txt" 2>"$OUT/bench.err"
rc=$?
ms=$(( ($(date +%s%N) - s) / 1000000 ))
secs=$(( ms / 1000 )).$(( ms % 1000 / 100 ))
cat "$OUT/bench.txt"; tail -5 "$OUT/bench.err"
echo "rc=$rc default run: $secs s"
echo "== gpudoctor bench --json"
"$GD" bench --json >"$OUT/bench.json" 2>"$OUT/bench-json.err"
echo "rc=$?"
echo "== PyTorch comparison"
"$PYTHON" bench/compare-torch.py "$OUT/bench.json" --seconds "$secs" | tee "$OUT/compare.txt"
