#!/bin/sh
# speed.sh - how fast is gpudoctor check?  (a measurement, not a test)
#
#   bench/speed.sh            on any machine: check --no-load on a fixture root
#                             (goal <= 20 ms), and on this machine's real root
#   on a GPU machine it also measures the full check against the floor of
#   cuInit + context creation alone, one context per device in parallel
#   (goal: <= 1.15x), beside `nvidia-smi -q`,
#   `python3 -m torch.utils.collect_env` and jax.print_environment_info().
# Prints one line per measurement: median and min over N runs, in ms.
set -u
cd "$(dirname "$0")/.."
GD=${GPUDOCTOR:-$PWD/build/gpudoctor}
[ -x "$GD" ] || make -s >/dev/null || exit 2
PY=${PYTHON:-python3}
N=${N:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A fixture root: a healthy one-GPU machine built by the e2e helpers.
GD_KEEP_FIXTURES=1 "$PY" - "$tmp/root" <<'PYEOF'
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "e2e"))
from gdtest import Root
import fixtures
os.makedirs(sys.argv[1])
fixtures.healthy_root(root=Root(sys.argv[1]))
PYEOF

measure() { # label, command...
	label=$1; shift
	"$PY" - "$N" "$label" "$@" <<'PYEOF'
import subprocess, sys, time
n, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ts = []
for i in range(n + 1):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t) * 1000)
ts = sorted(ts[1:])          # the first run warms caches
print(f"{label:58s} median {ts[len(ts)//2]:8.1f} ms   min {ts[0]:8.1f} ms   (n={n}, rc={p.returncode})")
PYEOF
}

echo "== gpudoctor $($GD --version | cut -d' ' -f2) on $(uname -n), $(nproc) cores"
measure "check --no-load, fixture root (goal <= 20 ms)" "$GD" --root "$tmp/root" check --no-load
measure "check --no-load --json, fixture root" "$GD" --root "$tmp/root" --json check --no-load
measure "check --no-load, this machine (goal <= 20 ms)" "$GD" check --no-load
if [ -e /dev/nvidiactl ]; then
	cc -O2 -pthread -o "$tmp/cuda_floor" bench/cuda_floor.c -ldl
	measure "floor: cuInit + contexts (parallel), destroyed" "$tmp/cuda_floor"
	measure "floor: cuInit + contexts (parallel), left to exit" "$tmp/cuda_floor" --keep
	measure "check (full: NVML + cuInit + context + PTX kernel)" "$GD" check
	N=3 measure "nvidia-smi -q" nvidia-smi -q
	if "$PY" -c "import torch" 2>/dev/null; then
		N=3 measure "python3 -m torch.utils.collect_env" "$PY" -m torch.utils.collect_env
	fi
	if "$PY" -c "import jax" 2>/dev/null; then
		N=3 measure "python3 -c 'import jax; jax.print_environment_info()'" "$PY" -c "import jax; jax.print_environment_info()"
	fi
else
	echo "(no /dev/nvidiactl: GPU measurements skipped)"
fi
