#!/bin/sh
# run-tests.sh - run the unit-test binaries given as arguments, then the
# end-to-end suite, and print one closing line "N passed, N failed, N skipped".
# Called by `make check`, which sets GPUDOCTOR (the binary under test) and BUILD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0 skipped=0
log=$(mktemp)
for t in "$@"; do
	"$t" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$log" | tr -d ' ')
	s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
	f=$(grep -c '^not ok ' "$log" | tr -d ' ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$(basename "$t"): exited $rc"; fi
	if [ "$f" -ne 0 ]; then cat "$log"; fi
	p=$((p - s))
	grep '^ok .*# SKIP' "$log" | sed "s|^|unit $(basename "$t"): |"
	echo "unit $(basename "$t"): $p passed, $f failed, $s skipped"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
rm -f "$log"
if [ -z "${SKIP_E2E:-}" ]; then
	out=$(mktemp)
	python3 "$here/e2e/run.py" | tee "$out"
	line=$(grep '^e2e totals:' "$out" | tail -1)
	rm -f "$out"
	if [ -n "$line" ]; then
		set -- $line
		passed=$((passed + $4)); failed=$((failed + $6)); skipped=$((skipped + $8))
	else
		echo "e2e suite did not report its totals"; failed=$((failed + 1))
	fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
