"""aarch64 (Grace Hopper, Jetson), as far as an x86 machine can check it:
the cross build is clean under -Werror (gcc-aarch64-linux-gnu), the binary
runs under qemu-user, the man pages and completions generated through qemu
are byte for byte the native ones, and the wheel of the aarch64 binary gets
a manylinux aarch64 tag from auditwheel.  Skips without the cross toolchain
or qemu (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
qemu-user).  The plan for real aarch64 machines is in docs/fleet.md."""
import filecmp
import glob
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
B = "build-arm64"
QEMU = "qemu-aarch64 -L /usr/aarch64-linux-gnu"


class TestAarch64(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("aarch64-linux-gnu-gcc"):
            raise unittest.SkipTest("no aarch64 cross compiler (apt-get install gcc-aarch64-linux-gnu "
                                    "libc6-dev-arm64-cross)")
        p = subprocess.run(["make", "-C", REPO, "-j2", f"B={B}", "CC=aarch64-linux-gnu-gcc"],
                           capture_output=True, text=True, timeout=1200)
        if p.returncode != 0:
            raise AssertionError("cross build failed:\n" + (p.stdout + p.stderr)[-3000:])
        cls.bin = os.path.join(REPO, B, "gpudoctor")

    def test_elf_is_aarch64(self):
        with open(self.bin, "rb") as f:
            head = f.read(20)
        self.assertEqual(int.from_bytes(head[18:20], "little"), 183)	# EM_AARCH64

    def qemu(self):
        if not shutil.which("qemu-aarch64") or not os.path.exists("/usr/aarch64-linux-gnu/lib"):
            self.skipTest("qemu-user or the arm64 libc is missing (apt-get install qemu-user "
                          "libc6-dev-arm64-cross)")

    def test_runs_under_qemu(self):
        self.qemu()
        p = subprocess.run(QEMU.split() + [self.bin, "--version"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^gpudoctor [0-9.]+ \(commit ([0-9a-f]{7,40}|unknown)")

    def test_docs_through_qemu_equal_native(self):
        self.qemu()
        for args in ([f"B={B}", "CC=aarch64-linux-gnu-gcc", f"DOCS_EXEC={QEMU}"], []):
            p = subprocess.run(["make", "-C", REPO, "docs"] + args, capture_output=True, text=True,
                               timeout=600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        native = os.path.join(REPO, "build", "docs")
        for sub in ("man", "completions"):
            names = sorted(os.listdir(os.path.join(native, sub)))
            self.assertEqual(names, sorted(os.listdir(os.path.join(REPO, B, "docs", sub))))
            _, mismatch, errors = filecmp.cmpfiles(os.path.join(native, sub),
                                                   os.path.join(REPO, B, "docs", sub), names,
                                                   shallow=False)
            self.assertEqual((mismatch, errors), ([], []))

    def test_wheel_is_manylinux_aarch64(self):
        out = os.path.join(REPO, "build", "wheel-arm64")
        p = subprocess.run([sys.executable, os.path.join(REPO, "packaging", "python", "build_wheel.py"),
                            self.bin, out], capture_output=True, text=True, timeout=900)
        if p.returncode != 0 and "pip" in p.stderr:
            self.skipTest("cannot fetch build/auditwheel from PyPI")
        self.assertEqual(p.returncode, 0, (p.stdout + p.stderr)[-2000:])
        wheels = glob.glob(os.path.join(out, "gpudoctor-*-py3-none-manylinux_2_*_aarch64.whl"))
        self.assertEqual(len(wheels), 1, os.listdir(out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
