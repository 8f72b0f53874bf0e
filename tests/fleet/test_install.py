"""`make install`: the set of files (binary, a man page per command,
completions, Slurm wrapper, NHC check, systemd units and Prometheus rules
from dist/ by pattern) under DESTDIR, for PREFIX=/usr/local and /usr."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GD = os.path.join(REPO, "build", "gpudoctor")


class TestMakeInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GD):
            raise unittest.SkipTest("build/gpudoctor not built")
        cls.tmp = tempfile.mkdtemp(prefix="gd-install-")
        # A unit and a rules file as the watch daemon ships them, passed in
        # place of dist/'s own so the test does not depend on what is there.
        cls.unit = os.path.join(cls.tmp, "gpudoctor-test.service")
        with open(cls.unit, "w") as f:
            f.write("[Unit]\nDescription=test\n[Service]\nType=notify\n"
                    "ExecStart=/usr/bin/gpudoctor watch --state-dir /var/lib/gpudoctor\n"
                    "[Install]\nWantedBy=multi-user.target\n")
        cls.rules = os.path.join(cls.tmp, "gpudoctor-test-alerts.yml")
        with open(cls.rules, "w") as f:
            f.write("groups: []\n")

    def install(self, prefix):
        dest = tempfile.mkdtemp(prefix="gd-dest-", dir=self.tmp)
        p = subprocess.run(["make", "-C", REPO, "install", f"DESTDIR={dest}", f"PREFIX={prefix}",
                            f"DIST_UNITS={self.unit}", f"DIST_PROM={self.rules}"],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return dest + prefix

    def test_usr_local(self):
        d = self.install("/usr/local")
        self.assertTrue(os.access(os.path.join(d, "bin/gpudoctor"), os.X_OK))
        top = subprocess.run([GD, "--help"], capture_output=True, text=True).stdout
        cmds = re.findall(r"^  ([a-z][a-z0-9-]*)\s{2,}", top.split("commands:")[1].split("\n\n")[0], re.M)
        self.assertIn("health", cmds)
        pages = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "share/man/man1/*.1")))
        self.assertEqual(pages, sorted(["gpudoctor.1"] + [f"gpudoctor-{c}.1" for c in cmds]))
        for rel in ("share/bash-completion/completions/gpudoctor", "share/zsh/site-functions/_gpudoctor",
                    "share/fish/vendor_completions.d/gpudoctor.fish", "share/gpudoctor/nhc/gpudoctor.nhc",
                    "share/doc/gpudoctor/examples/prometheus/gpudoctor-test-alerts.yml"):
            self.assertTrue(os.path.isfile(os.path.join(d, rel)), rel)
        with open(os.path.join(d, "lib/systemd/system/gpudoctor-test.service")) as f:
            self.assertIn("ExecStart=/usr/local/bin/gpudoctor watch", f.read())
        with open(os.path.join(d, "libexec/gpudoctor/slurm-health-check")) as f:
            self.assertIn("exec /usr/local/bin/gpudoctor health --slurm", f.read())
        self.assertTrue(os.access(os.path.join(d, "libexec/gpudoctor/slurm-health-check"), os.X_OK))
        # The completions name every command; the man pages every option of health.
        with open(os.path.join(d, "share/bash-completion/completions/gpudoctor")) as f:
            bash = f.read()
        for c in cmds:
            self.assertIn(c, bash)
        health_help = subprocess.run([GD, "health", "--help"], capture_output=True, text=True).stdout
        with open(os.path.join(d, "share/man/man1/gpudoctor-health.1")) as f:
            page = f.read()
        for opt in re.findall(r"^  (--[a-z-]+)", health_help, re.M):
            self.assertIn(opt.replace("-", "\\-"), page)
            self.assertIn(opt, bash)
        # gpudoctor(1)'s own sections, the cause catalogue as a page of
        # section 7, docs and JSON Schemas beside the examples.
        with open(os.path.join(d, "share/man/man1/gpudoctor.1")) as f:
            top_page = f.read()
        for section in ("EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"):
            self.assertIn(f".SH {section}", top_page)
        ids = [x.split()[0] for x in subprocess.run([GD, "explain", "--list-causes"], capture_output=True,
                                                    text=True).stdout.splitlines() if x.strip()]
        self.assertGreater(len(ids), 50)
        with open(os.path.join(d, "share/man/man7/gpudoctor-causes.7")) as f:
            causes = f.read()
        for cid in ids:
            self.assertIn(f"\\fB{cid.replace('-', chr(92) + '-')}\\fR", causes)
        for rel in ("share/doc/gpudoctor/fleet.md", "share/doc/gpudoctor/runbook.md",
                    "share/doc/gpudoctor/schema/check.schema.json"):
            self.assertTrue(os.path.isfile(os.path.join(d, rel)), rel)
        # Closed sets complete to their values in all three shells.
        for rel in ("share/bash-completion/completions/gpudoctor", "share/zsh/site-functions/_gpudoctor",
                    "share/fish/vendor_completions.d/gpudoctor.fish"):
            with open(os.path.join(d, rel)) as f:
                text = f.read()
            for values in ("hardware kernel containers devices driver cuda libraries frameworks",
                           "auto always never", "text json markdown"):
                self.assertIn(values, text, rel)
            self.assertIn("cudnn-missing", text, rel)

    def test_usr(self):
        d = self.install("/usr")
        with open(os.path.join(d, "lib/systemd/system/gpudoctor-test.service")) as f:
            self.assertIn("ExecStart=/usr/bin/gpudoctor watch", f.read())

    def test_slurm_wrapper_runs(self):
        d = self.install("/usr/local")
        wrapper = os.path.join(d, "libexec/gpudoctor/slurm-health-check")
        with open(wrapper) as f:
            text = f.read().replace("/usr/local/bin/gpudoctor", GD)
        with open(wrapper, "w") as f:
            f.write(text)
        p = subprocess.run(["sh", "-n", wrapper])
        self.assertEqual(p.returncode, 0)


    def test_gendocs_picks_up_a_new_command_and_refuses_unparsable_help(self):
        fake = os.path.join(self.tmp, "fakegd")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n"
                    "case \"$1\" in\n"
                    "--version) echo 'gpudoctor 9.9' ;;\n"
                    "--help) printf 'usage: gpudoctor <command>\\n\\ncommands:\\n"
                    "  newcmd   a command added today\\n  broken   help it cannot read\\n\\n"
                    "global options:\\n  --root DIR   inside DIR\\n' ;;\n"
                    "newcmd) printf 'usage: gpudoctor newcmd [--fast]\\n\\nDoes it.\\n\\n"
                    "  --fast       quickly\\n  --out FILE   write FILE\\n' ;;\n"
                    "broken) printf 'usage: gpudoctor broken\\n\\n  --ok   fine\\n  -- what\\n' ;;\n"
                    "esac\n")
        os.chmod(fake, 0o755)
        out = os.path.join(self.tmp, "docs")
        p = subprocess.run([sys.executable, os.path.join(REPO, "dist", "gendocs.py"), fake, out],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot parse this option block", p.stderr)
        with open(fake) as f:
            text = f.read().replace("  broken   help it cannot read\\n", "")
        with open(fake, "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, os.path.join(REPO, "dist", "gendocs.py"), fake, out],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "man", "gpudoctor-newcmd.1")) as f:
            page = f.read()
        self.assertIn("\\-\\-fast", page)
        with open(os.path.join(out, "completions", "gpudoctor.bash")) as f:
            bash = f.read()
        self.assertIn("--out) COMPREPLY=($(compgen -f", bash)
        self.assertIn("newcmd", bash)

    def test_shipped_scripts_pass_shellcheck(self):
        import shutil
        if not shutil.which("shellcheck"):
            self.skipTest("shellcheck not installed (apt-get install shellcheck)")
        for path, shell in (("dist/slurm/slurm-health-check.in", "sh"), ("dist/nhc/gpudoctor.nhc", "bash"),
                            ("tests/fleet/run.sh", "sh")):
            p = subprocess.run(["shellcheck", "-s", shell, os.path.join(REPO, path)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, path + "\n" + p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
