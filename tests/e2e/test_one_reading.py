"""One reading per machine fact: each is derived once, in the probe that owns
it, with a documented precedence and its source in the inventory.

  kernel.module_version   /sys/module/nvidia/version, else the version in
                          /proc/driver/nvidia/version (kernel.h)
  driver.version          libcuda.so.1's real file name, else the kernel
                          module's, else NVML's answer (driver.h)

The rules and `matrix --solve` read these; a test here changes one source at
a time and sees every consumer follow.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, GPUDOCTOR, check, clean_env, run
import fixtures
import fixtures_driver
import fixtures_libs as fl

LIBCUDA = f"{fixtures_driver.LIBDIR}/libcuda.so.1"


def unversioned_libcuda(r):
    """libcuda.so.1 as a plain file: no version in its real name."""
    real = os.path.realpath(r.p(LIBCUDA))
    os.unlink(r.p(LIBCUDA))
    shutil.copyfile(real, r.p(LIBCUDA))
    os.unlink(real)


class OneReading(GDTestCase):
    def test_sources_of_a_healthy_machine(self):
        doc = check(fixtures.healthy_root(), "--no-load", expect_rc=0)
        k, d = doc["inventory"]["kernel"], doc["inventory"]["driver"]
        self.assertEqual(k["module_version"], fixtures.DRIVER_VERSION)
        self.assertEqual(k["module_version_source"], "/sys/module/nvidia/version")
        self.assertEqual(d["kernel_module_version"], k["module_version"])
        self.assertEqual(d["version"], fixtures.DRIVER_VERSION)
        self.assertTrue(d["version_source"].endswith(f"libcuda.so.{fixtures.DRIVER_VERSION}"),
                        d["version_source"])

    def test_proc_version_when_sys_is_absent(self):
        r = fixtures.healthy_root()
        r.remove("sys/module/nvidia/version")
        doc = check(r, "--no-load", expect_rc=0)
        k, d = doc["inventory"]["kernel"], doc["inventory"]["driver"]
        self.assertEqual(k["module_version"], fixtures.DRIVER_VERSION)
        self.assertEqual(k["module_version_source"], "/proc/driver/nvidia/version")
        self.assertEqual(d["kernel_module_version"], fixtures.DRIVER_VERSION)

    def test_driver_version_from_the_module_without_a_versioned_libcuda(self):
        r = fixtures.healthy_root()
        unversioned_libcuda(r)
        doc = check(r, "--no-load")
        d = doc["inventory"]["driver"]
        self.assertIsNone(d["libraries"]["cuda"]["version"])
        self.assertEqual(d["version"], fixtures.DRIVER_VERSION)
        self.assertEqual(d["version_source"], "/sys/module/nvidia/version")

    def test_matrix_solve_reads_the_probes(self):
        r = fixtures.healthy_root()
        r.remove("sys/module/nvidia/version")
        rc, out, err = run(["--json", "matrix", "--solve"], env=clean_env(), root=r.path)
        self.assertIn(fixtures.DRIVER_VERSION, out, err)
        self.assertIn("/proc/driver/nvidia/version", out)

    def test_one_parser_of_proc_driver_nvidia_version(self):
        # The file is read and parsed in one place: the kernel probe.
        src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
        readers = []
        for dirpath, _, files in os.walk(src):
            for f in files:
                if not f.endswith(".c"):
                    continue
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                if re.search(r'fs_read\w*\([^;]*"/proc/driver/nvidia/version"', text):
                    readers.append(f)
        self.assertEqual(readers, ["kernel.c"])


class ReadOnce(GDTestCase):
    """The inputs every probe shares are read once per check (probe_in.h):
    the loader's files, the kernel's version files, the knowledge base."""

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed (tests/ci.sh installs it)")
    def test_plan_reads_os_release_once(self):
        # plan takes the distribution from the platform probe's fact
        # (inventory.platform) instead of reading os-release a second time.
        r = fl.healthy_libs_root()
        r.write("etc/os-release", 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n'
                'PRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "trace")
            p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log,
                                GPUDOCTOR, "--root", r.path, "plan", "--torch", "2.9", "--json"],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            trace = open(log).read()
        self.assertIn(p.returncode, (0, 1), p.stderr)
        n = len(re.findall(r'"%s/etc/os-release"' % re.escape(r.path), trace))
        self.assertEqual(n, 1, f"etc/os-release opened {n} times")
        # and the plan still knows the distribution
        self.assertIn("ubuntu", p.stdout)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed (tests/ci.sh installs it)")
    def test_each_shared_file_is_opened_once(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, "usr/local/cuda-13.0/lib64")
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "trace")
            p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log,
                                GPUDOCTOR, "--root", r.path, "check", "--no-load"],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            trace = open(log).read()
        opens = {f: len(re.findall(r'"%s/%s"' % (re.escape(r.path), re.escape(f)), trace))
                 for f in ("etc/ld.so.cache", "etc/ld.so.conf", "proc/cpuinfo",
                           "proc/driver/nvidia/version", "sys/module/nvidia/version")}
        # a comparison of nothing proves nothing: the trace must show the reads
        self.assertGreater(sum(opens.values()), 3, trace[-2000:])
        for f, n in opens.items():
            self.assertLessEqual(n, 1, f"{f} opened {n} times")
