#!/usr/bin/env python3
"""Run every tests/e2e/test_*.py with unittest and print a totals line.

Skipped tests print their reason (a test that needs a GPU or the network
says so).  The last line is "e2e totals: passed P failed F skipped S".
"""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


def main():
    pattern = os.environ.get("E2E_PATTERN", "test_*.py")
    suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    for test, reason in result.skipped:
        print(f"SKIPPED {test.id()}: {reason}")
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - bad - skipped
    print(f"e2e totals: passed {passed} failed {bad} skipped {skipped}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
