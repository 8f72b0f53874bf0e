#!/usr/bin/env python3
"""Run tests/fleet/test_*.py (or the files named on the command line) and
print skips with their reasons and a closing "N passed, N failed, N skipped"."""
import os
import sys
import time
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


def main():
    loader = unittest.defaultTestLoader
    if len(sys.argv) > 1:
        suite = unittest.TestSuite(loader.loadTestsFromName(os.path.basename(a)[:-3] if a.endswith(".py") else a)
                                   for a in sys.argv[1:])
    else:
        suite = loader.discover(here, pattern="test_*.py", top_level_dir=here)
    t = time.time()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    for test, reason in result.skipped:
        print(f"SKIPPED {test.id()}: {reason}")
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    print(f"fleet tests took {time.time() - t:.0f} s")
    print(f"{result.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
