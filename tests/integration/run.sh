#!/bin/sh
# Integration tests: against the REAL libraries of this machine (/usr/local/cuda,
# pip wheels ...), not fixtures.  Runs every tests/integration/test_*.py with
# python3 unittest; a test that needs something absent skips with a reason.
#
#   GPUDOCTOR=build/gpudoctor tests/integration/run.sh [PATTERN]
#
# The last line is "N passed, N failed, N skipped"; exit status 1 when any failed.
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$(dirname "$here")")
: "${GPUDOCTOR:=$repo/build/gpudoctor}"
export GPUDOCTOR
exec python3 - "$here" "${1:-test_*.py}" <<'PY'
import sys
import unittest

here, pattern = sys.argv[1], sys.argv[2]
sys.path.insert(0, here)
sys.path.insert(0, here + "/../e2e")
suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
for test, reason in result.skipped:
    print(f"SKIPPED {test.id()}: {reason}")
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
skipped = len(result.skipped)
passed = result.testsRun - failed - skipped
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
