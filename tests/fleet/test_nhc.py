"""dist/nhc/gpudoctor.nhc in an NHC-like shell: NHC sources its check files
into bash and calls the check functions; a failing check calls
`die RC MESSAGE` and NHC marks the node offline with MESSAGE.  Here die and
log record their calls, and check_gpudoctor runs the real gpudoctor over
fixture roots (GPUDOCTOR names a wrapper that adds --root)."""
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import fixtures  # noqa: E402
import fixtures_lower as fl  # noqa: E402
from gdtest import GPUDOCTOR  # noqa: E402

HARNESS = r'''
DIED= LOGGED=
die() { DIED="$1|$2"; return "$1"; }
log() { LOGGED="$*"; }
. "$NHC_FILE"
check_gpudoctor "$@"
rc=$?
printf 'rc=%s\ndied=%s\nlogged=%s\n' "$rc" "$DIED" "$LOGGED"
'''


class TestNHC(unittest.TestCase):
    def nhc(self, root, *args):
        wrap = tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False)
        wrap.write(f"#!/bin/sh\nexec {GPUDOCTOR} --root {root.path} --no-load \"$@\"\n")
        wrap.close()
        os.chmod(wrap.name, 0o755)
        env = {"PATH": "/usr/bin:/bin", "GPUDOCTOR": wrap.name,
               "NHC_FILE": os.path.join(REPO, "dist", "nhc", "gpudoctor.nhc")}
        p = subprocess.run(["bash", "-c", HARNESS, "nhc"] + list(args), capture_output=True,
                           text=True, env=env, timeout=30)
        os.unlink(wrap.name)
        self.assertEqual(p.stderr, "")
        return dict(line.split("=", 1) for line in p.stdout.splitlines())

    def test_healthy_passes(self):
        out = self.nhc(fixtures.healthy_root())
        self.assertEqual(out, {"rc": "0", "died": "", "logged": ""})

    def test_unhealthy_dies_with_the_line(self):
        r = fixtures.healthy_root()
        fl.add_kernel(r, modules=("snd",))
        out = self.nhc(r)
        self.assertEqual(out["rc"], "1")
        self.assertTrue(out["died"].startswith("1|gpudoctor: nvidia-module-not-loaded - "), out)

    def test_arguments_reach_health(self):
        r = fixtures.healthy_root()
        fl.add_kernel(r, modules=("snd",))
        self.assertEqual(self.nhc(r, "--hardware")["rc"], "0")

    def test_unknown_is_logged_not_fatal(self):
        r = fixtures.healthy_root()
        out = self.nhc(r, "--deadline", "bogus")
        self.assertEqual(out["rc"], "0")
        self.assertEqual(out["died"], "")
        self.assertIn("gpudoctor health exited 2", out["logged"])

    def test_missing_binary_dies(self):
        env = {"PATH": "/usr/bin:/bin", "GPUDOCTOR": "/nonexistent/gpudoctor",
               "NHC_FILE": os.path.join(REPO, "dist", "nhc", "gpudoctor.nhc")}
        p = subprocess.run(["bash", "-c", HARNESS, "nhc"], capture_output=True, text=True, env=env)
        self.assertIn("died=1|check_gpudoctor:  gpudoctor is not installed", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
