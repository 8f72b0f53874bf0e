#!/bin/sh
# ci.sh - the whole test suite, from a clean clone of a fresh Debian 12 machine.
#
#   sh tests/ci.sh
#
# 1. installs what the tests need from Debian (gcc, make, clang, cppcheck, python3)
# 2. builds with gcc and clang, -Wall -Wextra -Werror; runs cppcheck
# 3. runs the unit and end-to-end tests (make check)
# 4. runs them again under AddressSanitizer + UndefinedBehaviorSanitizer
# 5. runs each libFuzzer target for a short smoke time (FUZZ_SECONDS, default 20)
# 6. runs the integration tests against the real CUDA libraries under
#    /usr/local/cuda and real framework wheels from PyPI (cached; skipped with
#    a message when there is no network and no cache)
# 7. runs the fleet tests (tests/fleet/run.sh: Slurm, the .deb, the wheel)
# It ends with one line "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
total_p=0 total_f=0 total_s=0
need=""
# shellcheck: tests/e2e/test_plan.py lints the scripts `gpudoctor plan --format sh` writes
# strace: tests/e2e/test_one_reading.py counts the opens of the shared inputs
for tool in gcc make clang cppcheck python3 shellcheck strace; do
	command -v "$tool" >/dev/null 2>&1 || need="$need $tool"
done
if [ -n "$need" ]; then
	echo "== installing:$need"
	if command -v apt-get >/dev/null 2>&1; then
		pkgs=$(echo "$need" | sed 's/python3/python3 python3-venv/')
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs) >/dev/null 2>&1 \
			|| echo "warning: could not install$need"
	fi
fi
# gpudoctor watch's tests run the real Prometheus (with promtool), node_exporter
# and systemd-analyze, from Debian's packages; without them those tests skip.
wneed=""
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || wneed="$wneed prometheus"
command -v prometheus-node-exporter >/dev/null 2>&1 || wneed="$wneed prometheus-node-exporter"
command -v systemd-analyze >/dev/null 2>&1 || wneed="$wneed systemd"
if [ -n "$wneed" ] && command -v apt-get >/dev/null 2>&1; then
	echo "== installing:$wneed"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $wneed) \
		>/dev/null 2>&1 || echo "warning: could not install$wneed"
fi

tally() { # $1 = log file: add its closing "N passed, N failed, N skipped" line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	if [ -z "$line" ]; then total_f=$((total_f + 1)); echo "no totals in $1"; return; fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); s=${s:-0}
	total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
}
step_fail() { echo "FAILED: $1"; total_f=$((total_f + 1)); }

log=$(mktemp -d)
echo "== build (gcc, -Werror)"
make -j2 >"$log/build.txt" 2>&1 || { cat "$log/build.txt"; step_fail "gcc build"; }
if command -v clang >/dev/null 2>&1; then
	echo "== build (clang, -Werror)"
	make -j2 CC=clang B=build-clang >"$log/clang.txt" 2>&1 || { cat "$log/clang.txt"; step_fail "clang build"; }
fi
if command -v cppcheck >/dev/null 2>&1; then
	echo "== cppcheck"
	cppcheck -q --std=c11 --error-exitcode=1 --inline-suppr -Isrc \
		--suppress=missingIncludeSystem --suppress=unusedFunction src 2>"$log/cppcheck.txt" \
		|| { cat "$log/cppcheck.txt"; step_fail "cppcheck"; }
fi
echo "== tests"
make -j2 check 2>&1 | tee "$log/check.txt"; tally "$log/check.txt"
echo "== tests under AddressSanitizer + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	SKIP_SLOW=1 make -j2 check SANITIZE=1 2>&1 | tee "$log/asan.txt"; tally "$log/asan.txt"
if [ -x tests/fuzz/run-fuzz.sh ]; then
	echo "== fuzz smoke"
	tests/fuzz/run-fuzz.sh "${FUZZ_SECONDS:-20}" 2>&1 | tee "$log/fuzz.txt"; tally "$log/fuzz.txt"
fi
if [ -x tests/integration/run.sh ]; then
	# Real framework wheels from PyPI, installed once into a persistent cache
	# (about 14 GB; reused by every later run).  Without network, time or
	# disk the wheel tests skip and say why.
	cache=${GD_TEST_CACHE:-/var/cache/gpudoctor-test}
	mkdir -p "$cache" 2>/dev/null
	free_kb=$(df -Pk "$cache" 2>/dev/null | awk 'NR==2 {print $4}')
	if [ "${free_kb:-0}" -gt 25000000 ] || [ -d "$cache/venvs" ]; then
		echo "== preparing the framework wheel cache in $cache (once; up to 40 minutes)"
		timeout 2400 python3 tests/integration/test_wheels.py --prepare >"$log/prepare.txt" 2>&1 \
			|| { tail -5 "$log/prepare.txt"; echo "wheel cache incomplete: the wheel tests that need it will skip"; }
	else
		echo "== less than 25 GB free under $cache: the real-wheel tests will skip"
	fi
	# The real-container test: a debootstrap root run with podman (runc for
	# hosts where crun refuses cgroup v1); it skips when containers cannot run.
	if command -v apt-get >/dev/null 2>&1 && ! command -v podman >/dev/null 2>&1; then
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap) \
			>/dev/null 2>&1 || echo "warning: could not install podman, runc, debootstrap"
	fi
	echo "== integration (real CUDA libraries and framework wheels)"
	tests/integration/run.sh 2>&1 | tee "$log/integration.txt"; tally "$log/integration.txt"
fi
if [ -x tests/fleet/run.sh ]; then
	# A real single-node Slurm, the .deb in a debootstrap root (cached under
	# /var/cache/gpudoctor-test), the wheel, the Kubernetes manifests: ~10 min.
	echo "== fleet (health --slurm under Slurm, NPD, NHC, .deb, wheel, Kubernetes)"
	tests/fleet/run.sh 2>&1 | tee "$log/fleet.txt"; tally "$log/fleet.txt"
fi
rm -rf "$log"
echo
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
