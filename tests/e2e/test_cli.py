"""The command line itself: help, version, usage errors, exit statuses."""
import os
import json
import unittest

from gdtest import GDTestCase, run, Root, clean_env


class TestCli(GDTestCase):
    def test_version(self):
        rc, out, _ = run(["--version"])
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^gpudoctor \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown), knowledge as of \d{4}-\d\d-\d\d\)\n$")
        import subprocess
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
        if head:
            self.assertIn(head, out)

    def test_help_on_every_command(self):
        rc, out, _ = run(["--help"])
        self.assertEqual(rc, 0)
        cmds = [l.split()[0] for l in out.split("commands:")[1].split("global options")[0].strip().splitlines()]
        self.assertIn("check", cmds)
        for c in cmds:
            for flag in ("-h", "--help"):
                rc, out, err = run([c, flag])
                self.assertEqual(rc, 0, f"{c} {flag}: {err}")
                self.assertIn("usage", out.lower(), f"{c} {flag}")

    def test_unknown_command_is_usage_error(self):
        rc, _, err = run(["frobnicate"])
        self.assertEqual(rc, 2)
        self.assertIn("is not a gpudoctor command", err)

    def test_bad_root_is_usage_error(self):
        rc, _, err = run(["--root", "/nonexistent/dir", "check"])
        self.assertEqual(rc, 2)

    def test_global_options_after_command(self):
        r = Root()
        rc, out, _ = run(["check", "--json", "--no-load"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "gpudoctor.check/1")
        self.assertEqual([l["id"] for l in doc["layers"]],
                         ["hardware", "kernel", "containers", "devices", "driver", "cuda", "libraries", "frameworks"])

    def test_no_color_env(self):
        r = Root()
        rc, out, _ = run(["--color=auto", "check", "--no-load"], root=r.path, env=clean_env(NO_COLOR="1"))
        self.assertNotIn("\033[", out)
        rc, out, _ = run(["--color=always", "check", "--no-load"], root=r.path, env=clean_env())
        self.assertIn("\033[", out)


if __name__ == "__main__":
    unittest.main()
