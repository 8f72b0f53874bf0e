"""The systemd unit's sandbox (issue 18): the directives taken from
node_exporter's unit are there, devices are limited to /dev/kmsg and the
NVIDIA groups, and `systemd-analyze security` keeps its exposure at 3.0 or
lower (it was 4.5 before the sandbox; 2.5 with it).  docs/fleet.md says
why it runs as root."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, REPO  # noqa: E402

UNIT = os.path.join(REPO, "dist", "systemd", "gpudoctor-watch.service")


def directives(text):
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line and not line.startswith("["):
            k, v = line.split("=", 1)
            out.setdefault(k, []).append(v)
    return out


class UnitSandbox(unittest.TestCase):
    def setUp(self):
        with open(UNIT, encoding="utf-8") as f:
            self.text = f.read()
        self.d = directives(self.text)

    def test_directives(self):
        for key, value in (("ProtectHostname", "yes"), ("RestrictSUIDSGID", "yes"), ("UMask", "0077"),
                           ("DevicePolicy", "closed"), ("NoNewPrivileges", "yes"),
                           ("SystemCallErrorNumber", "EPERM")):
            self.assertEqual(self.d.get(key), [value], key)
        self.assertIn("@system-service", self.d["SystemCallFilter"])
        self.assertEqual(sorted(self.d["DeviceAllow"]), ["/dev/kmsg r", "char-nvidia* rw"])
        # not ProtectKernelLogs: it would take /dev/kmsg from the XID reader
        self.assertNotIn("ProtectKernelLogs", self.d)

    def test_fleet_doc_says_why_root(self):
        with open(os.path.join(REPO, "docs", "fleet.md"), encoding="utf-8") as f:
            self.assertIn("Why watch runs as root", f.read())

    def test_security_score(self):
        sa = shutil.which("systemd-analyze")
        if not sa:
            self.skipTest("systemd-analyze is not installed (Debian: systemd)")
        d = tempfile.mkdtemp(prefix="gd-unit-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "gpudoctor-watch.service")
        with open(path, "w") as f:
            f.write(self.text.replace("/usr/bin/gpudoctor", GPUDOCTOR))
        p = subprocess.run([sa, "security", "--offline=true", path], capture_output=True, text=True)
        if p.returncode != 0 and "offline" in p.stderr:
            self.skipTest("systemd-analyze security --offline needs systemd >= 252: " + p.stderr[:200])
        m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", p.stdout)
        self.assertIsNotNone(m, p.stdout[-500:] + p.stderr)
        self.assertLessEqual(float(m.group(1)), 3.0, p.stdout)
        # the device ACL holds nothing but the kernel log and NVIDIA's groups
        acl = [line for line in p.stdout.splitlines() if "DeviceAllow=" in line]
        self.assertTrue(acl)
        self.assertNotIn("char-mem", acl[0])


if __name__ == "__main__":
    unittest.main()
