#!/bin/sh
# run-fuzz.sh SECONDS - build every tests/fuzz/fuzz_*.c with clang's libFuzzer
# (+ASan +UBSan) and run each for SECONDS (default 60).  Prints one closing
# line "N passed, N failed, N skipped".
#
# FUZZ_ONLY="fuzz_x fuzz_y" runs only those targets.
# Every target links the project's library, build-fuzz/lib/libgd.a, built
# here once by the Makefile with clang and -fsanitize=fuzzer-no-link,address,
# undefined (no list of sources to keep in step by hand; a target says
# "fuzz-links: libgd.a" in its header).  Crash inputs are kept in
# build-fuzz/<target>/.  Without clang's libFuzzer every target is counted as
# skipped.
set -u
secs=${1:-60}
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

for src in "$here"/fuzz_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	# FUZZ_ONLY="fuzz_a fuzz_b": run only those
	if [ -n "${FUZZ_ONLY:-}" ] && ! echo " $FUZZ_ONLY " | grep -q " $name "; then
		continue
	fi
	if [ "$have_fuzzer" -eq 0 ]; then
		echo "$name: skipped (clang with -fsanitize=fuzzer is not available): fuzzing was skipped"
		skipped=$((skipped + 1))
		continue
	fi
	dir=$out/$name
	mkdir -p "$dir/corpus"
	# seed with the real data files when the target parses them
	case "$name" in
	fuzz_lognorm|fuzz_logmatch) for f in tests/explain/fixtures/*.txt; do
			[ -e "$f" ] && { [ -e "$dir/corpus/$(basename "$f")" ] || cp "$f" "$dir/corpus/"; }
		 done ;;
	fuzz_kb) for f in src/knowledge/data/*.tsv; do
			[ -e "$dir/corpus/$(basename "$f")" ] || cp "$f" "$dir/corpus/"
		 done ;;
	fuzz_kmsg) cp tests/e2e/data/kmsg-xids.txt "$dir/corpus/" ;;
	esac
	# shellcheck disable=SC2086
	if ! "$cc" -std=c11 -D_GNU_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o "$dir/$name" "$src" "$lib" -ldl -lm -pthread \
		>"$dir/build.log" 2>&1; then
		echo "$name: FAILED to build:"; cat "$dir/build.log"
		failed=$((failed + 1))
		continue
	fi
	if (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 "./$name" -max_total_time="$secs" \
		-artifact_prefix="$dir/" corpus >"$dir/run.log" 2>&1); then
		echo "$name: passed ($(grep -aE '^#[0-9]+.*DONE' "$dir/run.log" | tail -1 | sed 's/ *cov.*//' || true) runs in ${secs}s)"
		passed=$((passed + 1))
	else
		echo "$name: FAILED (see $dir/run.log):"
		tail -40 "$dir/run.log"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
