#!/bin/sh
# which-speed.sh - time `gpudoctor which --from LIB --all` and compare it with ldd.
#
#   bench/which-speed.sh [LIB] [GPUDOCTOR]
#
# LIB defaults to torch's libtorch_cuda.so (found with python3), GPUDOCTOR to
# build/gpudoctor.  Prints the tree-resolution time (min and median of 20 runs,
# measured inside gpudoctor), the whole-process time, the objects resolved,
# the bytes read per library against its size, and any disagreement with ldd.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
gd=${2:-$here/build/gpudoctor}
if [ -z "$lib" ]; then
	lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))')
fi
[ -f "$lib" ] || { echo "no such library: $lib" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt 20 ]; do
	"$gd" --json which --from "$lib" --all > "$tmp/out.json" || true
	i=$((i + 1))
done
start=$(date +%s%N)
"$gd" --json which --from "$lib" --all > "$tmp/out.json" || true
end=$(date +%s%N)
ldd "$lib" > "$tmp/ldd.txt" 2>&1 || true
python3 - "$tmp/out.json" "$tmp/ldd.txt" "$gd" "$lib" "$(( (end - start) / 1000 ))" <<'PY'
import json, os, re, statistics, subprocess, sys
out, lddf, gd, lib, wall_us = sys.argv[1:6]
times = []
for _ in range(20):
    d = json.loads(subprocess.run([gd, "--json", "which", "--from", lib, "--all"],
                                  capture_output=True, text=True).stdout)
    times.append(d["seconds"] * 1e3)
d = json.load(open(out))
print(f"{lib}")
print(f"  tree: min {min(times):.2f} ms, median {statistics.median(times):.2f} ms "
      f"(issue bound: 10 ms); whole process {int(wall_us) / 1e3:.1f} ms")
print(f"  {len(d['libraries'])} objects, {d['bytes_read']} bytes read in total")
for n in d["libraries"]:
    if n["source"] == "already-loaded" or not n["path"]:
        continue
    size = os.path.getsize(n["realpath"] or n["path"])
    print(f"    {n['name']:40s} {n['bytes_read']:8d} of {size:11d} bytes  ({n['source']})")
want = {}
for line in open(lddf):
    m = re.match(r"^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$", line)
    if m:
        want[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
got = {}
for n in d["libraries"][1:]:
    if n["source"] != "already-loaded":
        got.setdefault(n["name"], n["path"])
bad = [(k, v, got.get(k, "(absent)")) for k, v in want.items() if got.get(k, "(absent)") != v]
bad += [(k, "(absent)", v) for k, v in got.items() if k not in want and not k.startswith("ld-linux")]
print(f"  agreement with ldd: {len(want) - len(bad)}/{len(want)}" + ("" if not bad else ""))
for k, l, g in bad:
    print(f"    DIFF {k}: ldd {l}  gpudoctor {g}")
sys.exit(1 if bad else 0)
PY
