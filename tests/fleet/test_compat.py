"""The released binary runs on glibc 2.28 (RHEL 8) and later.

`make compat` builds build-compat/gpudoctor with zig cc against glibc 2.28's
symbol versions (mk/compat.mk).  The tests read the binary's own version
needs (objdump -T, every GLIBC_x.y it references) and run it in a Debian 11
(bullseye, glibc 2.31) root made with debootstrap, cached as a tarball under
/var/cache/gpudoctor-test.  Without PyPI (ziglang), root, debootstrap or the
mirror the tests skip and say why.
"""
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from test_deb import CACHE, mirror, sh  # one mirror lookup, one runner

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(REPO, "build-compat", "gpudoctor")
SUITE = "bullseye"
TARBALL = os.path.join(CACHE, f"debootstrap-{SUITE}-minbase.tar")


def glibc_needs(path):
    """The GLIBC_x.y versions the ELF file's dynamic symbols ask for."""
    out = sh("objdump", "-T", path).stdout
    return sorted({tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)\b", out)})


def bullseye_tarball():
    """Makes the cached Debian 11 minbase tarball once; None, or why it cannot."""
    if os.geteuid() != 0:
        return "debootstrap and chroot need root"
    if not shutil.which("debootstrap"):
        return "debootstrap is not installed"
    os.makedirs(CACHE, exist_ok=True)
    if not os.path.exists(TARBALL):
        tmp = tempfile.mkdtemp(prefix="gd-dbs11-")
        p = sh("debootstrap", "--variant=minbase", f"--make-tarball={TARBALL}.tmp", SUITE, tmp,
               mirror(), check=False, timeout=1500)
        shutil.rmtree(tmp, ignore_errors=True)
        if p.returncode != 0:
            return f"debootstrap {SUITE} could not reach {mirror()}: " + (p.stdout + p.stderr)[-300:]
        os.replace(TARBALL + ".tmp", TARBALL)
    return None


@contextlib.contextmanager
def bullseye_root(prefix):
    """A fresh Debian 11 root unpacked from the cached tarball (SkipTest when
    it cannot be made), removed afterwards; yields (root, chroot program)."""
    why = bullseye_tarball()
    if why:
        raise unittest.SkipTest(why)
    root = tempfile.mkdtemp(prefix=prefix)
    try:
        sh("debootstrap", "--variant=minbase", f"--unpack-tarball={TARBALL}", SUITE, root, mirror(),
           timeout=1500)
        yield root, shutil.which("chroot") or "/usr/sbin/chroot"
    finally:
        shutil.rmtree(root, ignore_errors=True)


class TestCompat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("objdump"):
            raise unittest.SkipTest("objdump is not installed (binutils)")
        p = sh("make", "-C", REPO, "compat", check=False, timeout=1800)
        if p.returncode != 0:
            if "ziglang" in p.stdout + p.stderr and not os.path.exists(BIN):
                raise unittest.SkipTest("zig (PyPI's ziglang) could not be installed: " + p.stderr[-300:])
            raise AssertionError(f"make compat failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")

    def test_1_needs_nothing_newer_than_glibc_2_28(self):
        needs = glibc_needs(BIN)
        self.assertTrue(needs, "objdump found no GLIBC version at all")
        self.assertLessEqual(max(needs), (2, 28), f"needs GLIBC_{'.'.join(map(str, max(needs)))}")
        # The ordinary build on this machine needs a newer glibc: the check
        # above can fail, and the compat build is what lowers it.
        plain = os.path.join(REPO, "build", "gpudoctor")
        if os.path.exists(plain):
            self.assertGreater(max(glibc_needs(plain)), (2, 28))

    def test_2_runs_in_a_debian_11_root(self):
        with bullseye_root("gd-deb11-") as (root, chroot):
            libc = sh(chroot, root, "/usr/bin/ldd", "--version", check=False).stdout
            self.assertIn("2.31", libc.splitlines()[0] if libc else "", libc)
            shutil.copy(BIN, os.path.join(root, "usr", "local", "bin", "gpudoctor"))
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
            v = sh(chroot, root, "gpudoctor", "--version", env=env)
            self.assertRegex(v.stdout, r"^gpudoctor [0-9]")
            # A whole static check: no GPU in this root, so the hardware layer
            # fails (exit 1) with its cause, and nothing crashes.
            c = sh(chroot, root, "gpudoctor", "--no-load", "--json", "check", env=env, check=False)
            self.assertEqual(c.returncode, 1, c.stdout[-1000:] + c.stderr[-1000:])
            self.assertIn('"no-nvidia-gpu"', c.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
