#!/bin/sh
# ci.sh - the whole test suite, from a clean clone of a fresh Debian 12 machine.
#
#   sh tests/ci.sh
#
# 1. installs what the tests need from Debian (gcc, make, clang, cppcheck, python3)
# 2. builds with gcc and clang, -Wall -Wextra -Werror; runs cppcheck
# 3. runs the unit tests of the plain build (make check SKIP_E2E=1)
# 4. runs the unit tests and the end-to-end tests (once, on two workers:
#    E2E_WORKERS) under AddressSanitizer + UndefinedBehaviorSanitizer
# 5. replays each libFuzzer target's checked-in corpus (tests/fuzz/corpus/)
#    and fuzzes it for a few seconds more (FUZZ_SECONDS, default 3)
# 6. runs the integration tests against the real CUDA libraries under
#    /usr/local/cuda and real framework wheels from PyPI (cached; skipped with
#    a message when there is no network and no cache)
# 7. runs the fleet tests (tests/fleet/run.sh: Slurm, the .deb, the wheel)
# It ends with one line "N passed, N failed, N skipped", and prints each
# step's wall time ("== ... done in Ns") so a slow step shows.
# The shared cache (GD_TEST_CACHE) is locked with flock(1): preparing the
# wheel venvs takes the lock exclusively, the integration and fleet steps
# share it, so two runs on one host never write the same venvs.
set -u
cd "$(dirname "$0")/.." || exit 2
total_p=0 total_f=0 total_s=0
need=""
# (shellcheck) tests/e2e/test_plan.py lints the scripts `gpudoctor plan --format sh` writes
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
t0=$(date +%s)
took() { echo "== $1 done in $(($(date +%s) - t0))s"; t0=$(date +%s); }
# locked MODE CMD...: run CMD holding the cache lock (-x or -s), or plainly
# where flock(1) is missing
locked() {
	mode=$1; shift
	if command -v flock >/dev/null 2>&1 && [ -d "$cache" ]; then
		flock "$mode" -w 7200 "$cache/.lock" "$@"
	else
		"$@"
	fi
}
cache=${GD_TEST_CACHE:-/var/cache/gpudoctor-test}

log=$(mktemp -d)
echo "== build (gcc, -Werror)"
make -j2 >"$log/build.txt" 2>&1 || { cat "$log/build.txt"; step_fail "gcc build"; }
took "gcc build"
if command -v clang >/dev/null 2>&1; then
	echo "== build (clang, -Werror)"
	make -j2 CC=clang B=build-clang >"$log/clang.txt" 2>&1 || { cat "$log/clang.txt"; step_fail "clang build"; }
	took "clang build"
fi
if command -v cppcheck >/dev/null 2>&1; then
	echo "== cppcheck"
	cppcheck -q --std=c11 --error-exitcode=1 --inline-suppr -Isrc \
		--suppress=missingIncludeSystem --suppress=unusedFunction src 2>"$log/cppcheck.txt" \
		|| { cat "$log/cppcheck.txt"; step_fail "cppcheck"; }
	took "cppcheck"
fi
# The e2e suite runs once, on the sanitized binary: it is the stricter run
# (a use-after-free the plain binary survives fails there), and the plain
# binary's behaviour is the same code.  The plain build runs the unit tests.
echo "== unit tests"
SKIP_E2E=1 make -j2 check 2>&1 | tee "$log/check.txt"; tally "$log/check.txt"
took "unit tests"
echo "== unit and e2e tests under AddressSanitizer + UBSan (e2e on ${E2E_WORKERS:-2} workers)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	E2E_WORKERS=${E2E_WORKERS:-2} make -j2 check SANITIZE=1 2>&1 | tee "$log/asan.txt"; tally "$log/asan.txt"
took "ASan+UBSan tests"
if [ -x tests/fuzz/run-fuzz.sh ]; then
	echo "== fuzz: replay the corpus, then ${FUZZ_SECONDS:-3}s of fresh inputs per target"
	tests/fuzz/run-fuzz.sh "${FUZZ_SECONDS:-3}" 2>&1 | tee "$log/fuzz.txt"; tally "$log/fuzz.txt"
	took "fuzz"
fi
if [ -x tests/integration/run.sh ]; then
	# Real framework wheels from PyPI, installed once into a persistent cache
	# (about 14 GB; reused by every later run).  Without network, time or
	# disk the wheel tests skip and say why.
	mkdir -p "$cache" 2>/dev/null
	free_kb=$(df -Pk "$cache" 2>/dev/null | awk 'NR==2 {print $4}')
	if [ "${free_kb:-0}" -gt 25000000 ] || [ -d "$cache/venvs" ]; then
		echo "== preparing the framework wheel cache in $cache (once; up to 40 minutes)"
		locked -x timeout 2400 python3 tests/integration/test_wheels.py --prepare >"$log/prepare.txt" 2>&1 \
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
	locked -s tests/integration/run.sh 2>&1 | tee "$log/integration.txt"; tally "$log/integration.txt"
	took "integration"
fi
if [ -x tests/fleet/run.sh ]; then
	# A real single-node Slurm, the .deb in a debootstrap root (cached under
	# /var/cache/gpudoctor-test), the wheel, the Kubernetes manifests: ~10 min.
	echo "== fleet (health --slurm under Slurm, NPD, NHC, .deb, wheel, Kubernetes)"
	locked -s tests/fleet/run.sh 2>&1 | tee "$log/fleet.txt"; tally "$log/fleet.txt"
	took "fleet"
fi
rm -rf "$log"
echo
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
