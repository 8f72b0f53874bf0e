#!/usr/bin/env python3
"""Run every tests/e2e/test_*.py with unittest and print a totals line.

Skipped tests print their reason (a test that needs a GPU or the network
says so).  The last line is "e2e totals: passed P failed F skipped S".

E2E_WORKERS=N (default 1) splits the test files over N processes: the files
are sorted by size, largest first, and each goes to the worker with the least
bytes so far (a deterministic split: the same tree gives the same shards).
Each worker's output is printed whole, in worker order, after all are done,
then one combined totals line.  Every test builds its own fixture roots and
fake libraries under a fresh temporary directory and picks a free port, so
workers share nothing.  E2E_SHARD=i/N runs only worker i's files.

The cause ids gpudoctor prints are recorded (causerec.py) in E2E_CAUSES_DIR
(a fresh temporary directory unless set); after the suite, and after every
worker, catalogue_triggered.py checks that each catalogue id was printed by
some test.  Its tests count in the totals; on a partial run they skip.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
TOTALS = re.compile(r"^e2e totals: passed (\d+) failed (\d+) skipped (\d+)$", re.M)


def shards(pattern, n):
    """The test files of each of n workers (basenames)."""
    files = sorted(glob.glob(os.path.join(here, pattern)))
    files.sort(key=lambda f: (-os.path.getsize(f), os.path.basename(f)))
    load = [0] * n
    out = [[] for _ in range(n)]
    for f in files:
        i = min(range(n), key=lambda k: (load[k], k))
        load[i] += os.path.getsize(f)
        out[i].append(os.path.basename(f))
    return out


def run_files(names):
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite()
    for name in sorted(names):
        suite.addTests(loader.discover(here, pattern=name, top_level_dir=here))
    return report(suite)


def report(suite):
    """Run suite; returns (passed, failed, skipped)."""
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    for test, reason in result.skipped:
        print(f"SKIPPED {test.id()}: {reason}")
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    return result.testsRun - bad - skipped, bad, skipped


def run_workers(pattern, n):
    parts = shards(pattern, n)
    procs = []
    for i in range(n):
        log = tempfile.TemporaryFile(mode="w+")
        env = dict(os.environ, E2E_SHARD=f"{i}/{n}", E2E_WORKERS="1")
        procs.append((subprocess.Popen([sys.executable, os.path.abspath(__file__)], env=env,
                                       stdout=log, stderr=subprocess.STDOUT), log))
    p = f = s = 0
    for i, (proc, log) in enumerate(procs):
        rc = proc.wait()
        log.seek(0)
        text = log.read()
        log.close()
        print(f"== e2e worker {i + 1}/{n}: {' '.join(parts[i])}")
        sys.stdout.write(text)
        m = TOTALS.findall(text)
        if not m:
            print(f"e2e worker {i + 1} exited {rc} without its totals")
            f += 1
            continue
        p += int(m[-1][0])
        f += int(m[-1][1]) + (1 if rc and not int(m[-1][1]) else 0)
        s += int(m[-1][2])
    return p, f, s


def main():
    pattern = os.environ.get("E2E_PATTERN", "test_*.py")
    shard = os.environ.get("E2E_SHARD")
    if shard:
        i, n = (int(x) for x in shard.split("/"))
        p, f, s = run_files(shards(pattern, n)[i])
        print(f"e2e totals: passed {p} failed {f} skipped {s}")
        return 0 if f == 0 else 1
    own = not os.environ.get("E2E_CAUSES_DIR")
    if own:
        os.environ["E2E_CAUSES_DIR"] = tempfile.mkdtemp(prefix="gd-causes-")
    if pattern != "test_*.py":
        os.environ["E2E_PARTIAL"] = "1"
    try:
        workers = int(os.environ.get("E2E_WORKERS", "1") or 1)
        if workers > 1:
            p, f, s = run_workers(pattern, workers)
        else:
            p, f, s = run_files([os.path.basename(x) for x in glob.glob(os.path.join(here, pattern))])
        # the catalogue's "triggered" contract, over what the whole suite printed
        print("== after the suite: catalogue_triggered.py")
        p2, f2, s2 = report(unittest.defaultTestLoader.loadTestsFromName("catalogue_triggered"))
    finally:
        if own:
            shutil.rmtree(os.environ["E2E_CAUSES_DIR"], ignore_errors=True)
    p, f, s = p + p2, f + f2, s + s2
    print(f"e2e totals: passed {p} failed {f} skipped {s}")
    return 0 if f == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
