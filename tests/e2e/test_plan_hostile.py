"""plan --format sh with long and hostile machine values (issue 18): no buffer
cuts a command (a verification line was cut at 799 bytes inside an open
quote, so the script did not parse), hostile directory names stay one word,
and every generated script passes sh -n and shellcheck.  Beyond parsing, the
test runs each script's verification lines under sh with a fake PATH and
checks that the hostile names arrived as single arguments and ran nothing.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures_libs import add_cudnn  # noqa: E402
from gdtest import GDTestCase  # noqa: E402
from test_plan import base, cmds, plan, steps  # noqa: E402

HOSTILE = ["a'b", 'q"x', "$(touch /tmp/gd-pwned)", "`id`", "semi;colon", "sp ace", "star*", "back\\slash",
           "dollar$HOME", "tab\there", "bang!", "hash#"]


def conda_root(dirs):
    r = base(0x2684, ["nvidia", "nvidia_uvm"], driver="580.95.05", os_version="24.04")
    r.mkdir("opt/conda/conda-meta")
    r.mkdir("opt/conda/lib/python3.11/site-packages")
    r.write("opt/conda/bin/python3", "", mode=0o755)
    for d in dirs:
        add_cudnn(r, d.lstrip("/"), version="9.1.0")
    return r


class PlanHostile(GDTestCase):
    def assert_script_ok(self, r, *args, extra_env=None):
        """The sh script parses (sh -n) and passes shellcheck; returns (rc, script)."""
        rc, script, err = plan(r, *args, fmt="sh", extra_env=extra_env)
        self.assertEqual(rc, 0, err)
        self.assertTrue(script.startswith("#!/bin/sh\n"), script[:80])
        d = tempfile.mkdtemp(prefix="gd-plan-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "install.sh")
        with open(path, "w") as f:
            f.write(script)
        p = subprocess.run(["sh", "-n", path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        if not shutil.which("shellcheck"):
            self.skipTest("shellcheck is not installed (Debian: apt-get install shellcheck)")
        p = subprocess.run(["shellcheck", "-s", "sh", path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        return rc, script

    def test_long_verification_line_is_whole(self):
        # four conda cuDNN dirs of 300 bytes: the interference step's verification is > 1200 bytes
        dirs = ["/opt/conda/envs/" + "/".join([("e%d" % i) * 100] * 2) + "/lib" for i in range(4)]
        r = conda_root(dirs)
        llp = {"LD_LIBRARY_PATH": ":".join(dirs)}
        rc, doc, err = plan(r, "--torch", "2.15", extra_env=llp)
        self.assertEqual(rc, 0, err)
        inter = steps(doc)["interference"]
        self.assertGreater(len(inter["verify"]), 1200)
        for d in dirs:
            self.assertIn(d, inter["verify"])
            self.assertIn(d, cmds(inter))
        rc, script = self.assert_script_ok(r, "--torch", "2.15", extra_env=llp)
        for d in dirs:
            self.assertGreaterEqual(script.count(d), 2, d)

    def test_hostile_directory_names_stay_one_word(self):
        dirs = ["/opt/conda-" + h.replace("/", "_") + "/lib" for h in HOSTILE]
        r = conda_root(dirs)
        llp = {"LD_LIBRARY_PATH": ":".join(dirs)}
        rc, doc, err = plan(r, "--torch", "2.15", extra_env=llp)
        self.assertEqual(rc, 0, err)
        inter = steps(doc)["interference"]
        rc, script = self.assert_script_ok(r, "--torch", "2.15", extra_env=llp)
        # every grep of the verification gets each directory as one argument
        words = shlex.split(inter["verify"].replace("|", " | ").replace("&&", " && "))
        for d in dirs:
            self.assertIn(d, words, d)

    def test_verification_runs_nothing_it_names(self):
        dirs = ["/opt/conda-" + h.replace("/", "_") + "/lib" for h in HOSTILE]
        r = conda_root(dirs)
        llp = {"LD_LIBRARY_PATH": ":".join(dirs)}
        rc, doc, err = plan(r, "--torch", "2.15", extra_env=llp)
        inter = steps(doc)["interference"]
        marker = "/tmp/gd-pwned"
        if os.path.exists(marker):
            os.unlink(marker)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["sh", "-c", inter["verify"]], cwd=d, capture_output=True, timeout=30,
                           env={"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ":".join(dirs), "HOME": d})
        self.assertFalse(os.path.exists(marker), "a directory name ran a command")

    def test_twenty_conda_dirs_are_all_cleared(self):
        # more than the plan's 16 slots: every one gets its command and its check
        dirs = ["/opt/conda-%d/lib" % i for i in range(20)]
        r = conda_root(dirs)
        llp = {"LD_LIBRARY_PATH": ":".join(dirs)}
        rc, doc, err = plan(r, "--torch", "2.15", extra_env=llp)
        self.assertEqual(rc, 0, err)
        inter = steps(doc)["interference"]
        for d in dirs:
            self.assertIn("grep -vxF %s " % d, cmds(inter))
            self.assertIn("grep -qxF %s" % d, inter["verify"])
        self.assert_script_ok(r, "--torch", "2.15", extra_env=llp)

    def test_long_python_path(self):
        # a --venv of 2000 bytes: the framework step's commands and verification carry it whole
        venv = "/opt/" + "v" * 2000 + " it's"
        r = base(0x2684, ["nvidia", "nvidia_uvm"], driver="580.95.05", os_version="24.04")
        rc, doc, err = plan(r, "--torch", "2.15", "--venv", venv)
        self.assertEqual(rc, 0, err)
        fw = steps(doc)["framework"]
        self.assertIn(shlex.quote(venv).replace("'\"'\"'", "'\\''")[:20], fw["verify"])
        self.assertIn("v" * 2000, fw["verify"])
        self.assertIn("v" * 2000, cmds(fw))
        self.assert_script_ok(r, "--torch", "2.15", "--venv", venv)


if __name__ == "__main__":
    unittest.main()
