"""Permission denied is never "missing".

A toolkit whose lib64 has mode 0700 (root's), and a venv whose
site-packages has mode 0700, inspected by a user who cannot list them
(gpudoctor runs as nobody through setpriv; root reads everything, so as
root the test skips).  The libraries layer says lib-unreadable with the
permission as the fix, never "has no libcudart, reinstall"; the frameworks
layer says the site directory cannot be read, never "no framework
installed".
"""
import json
import os
import shutil
import subprocess
import unittest

from gdtest import GDTestCase, GPUDOCTOR, clean_env, finding, causes
import fixtures_libs as fl
import fixtures_fw as fw


def as_nobody(args):
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        return None
    cmd = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", GPUDOCTOR] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                       env=clean_env(VIRTUAL_ENV="/opt/venv"))
    return p


def readable_path(path):
    """nobody must reach the tree: every directory above it searchable."""
    d = os.path.dirname(os.path.abspath(path))
    while d != "/":
        st = os.stat(d)
        if not st.st_mode & 0o001:
            return False
        d = os.path.dirname(d)
    return True


class Unreadable(GDTestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to run gpudoctor as another user (setpriv)")
        if not shutil.which("setpriv"):
            self.skipTest("setpriv (util-linux) is not installed")
        p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "true"],
                           capture_output=True)
        if p.returncode != 0:
            self.skipTest(f"setpriv cannot switch to nobody here: {p.stderr!r}")
        if not os.access(GPUDOCTOR, os.X_OK) or not readable_path(GPUDOCTOR):
            self.skipTest(f"nobody cannot run {GPUDOCTOR}")

    def test_toolkit_lib64_0700(self):
        r = fl.healthy_libs_root()
        os.chmod(r.p("usr/local/cuda-13.0/lib64"), 0o700)
        if not readable_path(r.p("x")):
            self.skipTest(f"nobody cannot reach {r.path}")
        p = as_nobody(["--root", r.path, "--json", "check"])
        doc = json.loads(p.stdout)
        f = finding(doc, fid="libraries.unreadable-dir")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertEqual(f["cause"], "lib-unreadable")
        self.assertRegex(f["title"], r"^/usr/local/cuda(-13\.0)?/lib64 cannot be listed")
        self.assertRegex(f["fix"], r"^sudo chmod a\+rx /usr/local/cuda(-13\.0)?/lib64 ")
        self.assertEqual(f["status"], "fail")
        self.assertNotIn("cuda-runtime-missing", causes(doc))
        self.assertFalse(any("has no libcudart" in x["title"] for x in doc["findings"]))
        ur = doc["inventory"]["libraries_loader"]["unreadable_dirs"]
        self.assertEqual(len(ur), 1, ur)
        self.assertTrue(ur[0]["active_toolkit"])

    def test_site_packages_0700(self):
        r = fl.healthy_libs_root()
        site = fw.add_venv(r)
        fw.add_torch(r, site, version="2.5.1+cpu", cuda="None")
        os.chmod(r.p(site), 0o700)
        if not readable_path(r.p("x")):
            self.skipTest(f"nobody cannot reach {r.path}")
        p = as_nobody(["--root", r.path, "--json", "check"])
        doc = json.loads(p.stdout)
        f = finding(doc, fid="frameworks.unreadable-site")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertEqual(f["cause"], "lib-unreadable")
        self.assertIn("chmod a+rx /" + site, f["fix"])
        summary = [l for l in doc["layers"] if l["id"] == "frameworks"][0]["summary"]
        self.assertNotIn("no framework installed", summary)
        self.assertIsNone(finding(doc, fid="frameworks.none"))
        self.assertEqual(doc["inventory"]["frameworks_unreadable"][0]["site_dir"], "/" + site)
        # the text report too
        p = as_nobody(["--root", r.path, "check"])
        self.assertNotIn("no framework installed", p.stdout)
        self.assertIn("cannot be listed by uid", p.stdout)


if __name__ == "__main__":
    unittest.main()
