"""The smaller defects of issue 10, one test each, and --root's loading rule.

--root other than / implies --no-load: a tree's libraries run their
constructors when dlopen()ed, as the user running gpudoctor; only
--load-from-root loads them (gdtest.run passes it: the fixtures' libraries
are our own fakes).
"""
import json
import os
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, GPUDOCTOR, check, clean_env, run, finding
import fixtures
import fixtures_fw as fw
import fixtures_libs as fl


def raw(args, env=None, **kw):
    p = subprocess.run([GPUDOCTOR] + args, capture_output=True, text=True, env=env or clean_env(),
                       timeout=60, **kw)
    return p.returncode, p.stdout, p.stderr


class Cli(GDTestCase):
    def test_unknown_option_before_the_command(self):
        rc, out, err = raw(["--bogus", "check"])
        self.assertEqual(rc, 2)
        self.assertIn("unknown option '--bogus'", err)
        self.assertNotIn("unexpected argument", err)

    def test_help_to_a_full_device_fails(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        for args in (["--help"], ["check", "--help"], ["--version"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([GPUDOCTOR] + args, stdout=full, stderr=subprocess.PIPE, timeout=30)
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr!r}")

    def test_timeout_must_be_a_number_of_seconds(self):
        for v in ("nan", "NaN", "inf", "-1", "0", "", "1e9", "5x"):
            rc, out, err = raw(["--timeout", v, "matrix", "--kb-info"])
            self.assertEqual(rc, 2, f"--timeout {v!r} accepted")
        rc, out, err = raw(["--timeout", "2.5", "matrix", "--kb-info"])
        self.assertEqual(rc, 0, err)

    def test_root_must_be_a_directory(self):
        with tempfile.NamedTemporaryFile() as f:
            rc, out, err = raw(["--root", f.name, "check"])
        self.assertEqual(rc, 2)
        self.assertIn("not a directory", err)

    def test_relative_python_paths(self):
        # inside a tree a relative path means nothing: an error
        r = fixtures.healthy_root()
        for opt in ("--python", "--site-packages"):
            rc, out, err = run(["check", "--no-load", opt, "opt/venv"], root=r.path, env=clean_env())
            self.assertEqual(rc, 2, f"{opt}: {err}")
            self.assertIn("absolute path", err)
        # on this machine it is taken from the working directory, as a shell would
        with tempfile.TemporaryDirectory() as cwd:
            os.makedirs(os.path.join(cwd, "env/lib/python3.11/site-packages/torch-2.5.1.dist-info"))
            with open(os.path.join(cwd, "env/lib/python3.11/site-packages/torch-2.5.1.dist-info/METADATA"), "w") as f:
                f.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n")
            rc, out, err = raw(["--json", "check", "--no-load", "--site-packages",
                                "env/lib/python3.11/site-packages"], cwd=cwd)
            self.assertIn(rc, (0, 1), err)
            doc = json.loads(out)
            self.assertTrue(any(os.path.realpath(cwd) in (e.get("site_dir") or "") or cwd in (e.get("site_dir") or "")
                                for e in doc["inventory"]["frameworks"]),
                            json.dumps(doc["inventory"]["frameworks"], indent=1)[:2000])

    def test_twenty_digit_driver_version(self):
        for d in ("12345678901234567890", "99999999999999999999.1"):
            rc, out, err = raw(["matrix", "--driver", d, "--torch", "2.5"])
            self.assertNotIn("9223372036854775807", out + err)
        r = fixtures.healthy_root(driver_version="12345678901234567890.1")
        rc, out, err = run(["-v", "check", "--no-load"], root=r.path, env=clean_env())
        self.assertNotIn("9223372036854775807", out + err)
        rc, out, err = run(["matrix", "--solve"], root=r.path, env=clean_env())
        self.assertNotIn("9223372036854775807", out + err)

    def test_unjudged_tensorflow_is_not_cpu_only(self):
        r = fl.healthy_libs_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site, build_info=None)
        doc = check(r, "--no-load", env=clean_env(VIRTUAL_ENV="/opt/venv"))
        tf = [w for w in doc["inventory"]["frameworks"] if w["name"] == "tensorflow"]
        self.assertTrue(tf, doc["inventory"]["frameworks"])
        summary = [l for l in doc["layers"] if l["id"] == "frameworks"][0]["summary"]
        self.assertIsNone(tf[0]["prediction"])
        self.assertIn("0 CPU only", summary)
        self.assertIn("1 not judged", summary)

    def test_malformed_libtorch_cuda(self):
        # the fatbin reader's failed open: no leak (the ASan run of this test
        # fails on one), no crash, the framework still judged
        r = fl.healthy_libs_root()
        site = fw.add_venv(r)
        fw.add_torch(r, site, version="2.9.0+cu130", cuda="'13.0'")
        r.write(f"{site}/torch/lib/libtorch_cuda.so", b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"garbage")
        env = clean_env(VIRTUAL_ENV="/opt/venv")
        env["ASAN_OPTIONS"] = ":".join(x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=1") if x)
        rc, out, err = run(["--json", "check", "--no-load"], root=r.path, env=env)
        self.assertIn(rc, (0, 1), err)
        self.assertNotIn("LeakSanitizer", err)
        json.loads(out)


class RootDoesNotLoad(GDTestCase):
    def test_root_implies_no_load(self):
        r = fixtures.healthy_root()
        p = subprocess.run([GPUDOCTOR, "--root", r.path, "-v", "check"], capture_output=True,
                           text=True, env=clean_env(), timeout=60)
        self.assertIn("nothing from the tree was loaded or run", p.stdout)
        self.assertIn("NVML not queried", p.stdout)
        p = subprocess.run([GPUDOCTOR, "--root", r.path, "--json", "check"], capture_output=True,
                           text=True, env=clean_env(), timeout=60)
        doc = json.loads(p.stdout)
        nvml = finding(doc, fid="driver.nvml")
        self.assertEqual(nvml["status"], "skipped", nvml)
        self.assertNotEqual((finding(doc, fid="cuda.init") or {"status": "skipped"})["status"], "ok")

    def test_load_from_root_loads(self):
        r = fixtures.healthy_root()
        doc = check(r)      # gdtest passes --load-from-root
        nvml = finding(doc, fid="driver.nvml")
        self.assertEqual(nvml["status"], "ok", nvml)
        self.assertIn("NVML: driver 580.95.05", nvml["title"])
        self.assertEqual(finding(doc, fid="cuda.init")["status"], "ok")

    def test_live_under_root_asks_for_the_flag(self):
        r = fixtures.healthy_root()
        p = subprocess.run([GPUDOCTOR, "--root", r.path, "check", "--live"], capture_output=True,
                           text=True, env=clean_env(), timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--load-from-root", p.stderr)

    def test_help_says_so(self):
        rc, out, err = raw(["--help"])
        self.assertIn("--load-from-root", out)
        self.assertIn("implied by --root", out)


if __name__ == "__main__":
    unittest.main()
