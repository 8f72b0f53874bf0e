#!/bin/sh
# run-fuzz.sh SECONDS - build every tests/fuzz/fuzz_*.c with clang's libFuzzer
# (+ASan +UBSan), replay its checked-in seed corpus (tests/fuzz/corpus/<target>/,
# made from the real fixtures by make-corpus.py), then fuzz it for SECONDS
# (default 3) of fresh inputs mutated from those seeds.  Prints one closing line
# "N passed, N failed, N skipped".
#
# FUZZ_ONLY="fuzz_x fuzz_y" runs only those targets; FUZZ_JOBS (default 2)
# targets build and run at once, and their reports are printed in name order.
# Every target links the project's library, build-fuzz/lib/libgd.a, built
# here once by the Makefile with clang and -fsanitize=fuzzer-no-link,address,
# undefined (no list of sources to keep in step by hand; a target says
# "fuzz-links: libgd.a" in its header).  New inputs found by the fresh run
# stay in build-fuzz/<target>/corpus (never written to the checked-in seeds);
# crash inputs are kept in build-fuzz/<target>/.  Without clang's libFuzzer
# every target is counted as skipped.
set -u
secs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build-fuzz
cc=${FUZZ_CC:-clang}
passed=0 failed=0 skipped=0
mkdir -p "$out"
cd "$top" || exit 2

have_fuzzer=0
probe=$out/probe.c
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' >"$probe"
if command -v "$cc" >/dev/null 2>&1 &&
   "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" >/dev/null 2>&1; then
	have_fuzzer=1
fi

lib=$out/lib/libgd.a
if [ "$have_fuzzer" -eq 1 ]; then
	# shellcheck disable=SC2086
	if ! make -s -j"${FUZZ_JOBS:-2}" CC="$cc" B="$out/lib" \
		CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
		"$lib" >"$out/lib.log" 2>&1; then
		echo "libgd.a: FAILED to build for fuzzing:"; tail -40 "$out/lib.log"
		exit 1
	fi
fi

# one_target NAME: build and run one target; its report goes to $out/NAME/result
# (first word: passed, FAILED or skipped).
one_target() {
	name=$1 dir=$out/$1
	mkdir -p "$dir/corpus"
	if [ "$have_fuzzer" -eq 0 ]; then
		echo "skipped (clang with -fsanitize=fuzzer is not available): fuzzing was skipped" >"$dir/result"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$cc" -std=c11 -D_GNU_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o "$dir/$name" "$here/$name.c" "$lib" -ldl -lm -pthread \
		>"$dir/build.log" 2>&1; then
		{ echo "FAILED to build:"; cat "$dir/build.log"; } >"$dir/result"
		return
	fi
	seeds=$here/corpus/$name
	nseeds=$(find "$seeds" -type f 2>/dev/null | wc -l | tr -d ' ')
	# The first directory takes what the fresh run finds; the checked-in seeds
	# are read (replayed in full before fuzzing starts), never written.
	if (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 "./$name" -max_total_time="$secs" \
		-artifact_prefix="$dir/" corpus "$seeds" >"$dir/run.log" 2>&1); then
		echo "passed ($nseeds seeds replayed, $(grep -aE '^#[0-9]+.*DONE' "$dir/run.log" | tail -1 | sed 's/ *cov.*//' || true) runs in ${secs}s)" >"$dir/result"
	else
		{ echo "FAILED (see $dir/run.log):"; tail -40 "$dir/run.log"; } >"$dir/result"
	fi
}

names=""
for src in "$here"/fuzz_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	# FUZZ_ONLY="fuzz_a fuzz_b": run only those
	if [ -n "${FUZZ_ONLY:-}" ] && ! echo " $FUZZ_ONLY " | grep -q " $name "; then
		continue
	fi
	names="$names $name"
done
jobs=${FUZZ_JOBS:-2} running=0 pids=""
for name in $names; do
	rm -f "$out/$name/result"
	one_target "$name" &
	pids="$pids $!"
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		# wait for the oldest: a simple queue, enough for seconds-long runs
		set -- $pids
		wait "$1"
		shift
		pids="$*"
		running=$((running - 1))
	fi
done
wait
for name in $names; do
	r=$out/$name/result
	if [ ! -s "$r" ]; then
		echo "$name: FAILED (no report)"; failed=$((failed + 1)); continue
	fi
	echo "$name: $(cat "$r")"
	case $(head -c 7 "$r") in
	passed*) passed=$((passed + 1)) ;;
	skipped) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
