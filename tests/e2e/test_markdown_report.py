"""check --format markdown carries what bug-report templates ask for (issue
23): the OS and distribution (os-release of the inspected tree), its glibc
(read from the tree's libc.so.6: the libc-2.31.so link name up to glibc
2.33, the banner string "release version 2.36." from 2.34 on), each Python
environment's version, and the cuDNN each framework loads.  All of the
inspected tree (--root), never of the machine the test runs on.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
import fixtures_fw as fw  # noqa: E402
from gdtest import clean_env, run  # noqa: E402

OS_RELEASE = ('PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nNAME="Debian GNU/Linux"\n'
              'VERSION_ID="11"\nVERSION="11 (bullseye)"\nID=debian\n')
# glibc >= 2.34: libc.so.6 is the library itself; csu/version.c's banner is
# inside it among binary bytes
BANNER = (b"\x7fELF\x02\x01\x01" + b"\0" * 200 + b"GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.8) stable "
          b"release version 2.35.\nCopyright (C) 2022 Free Software Foundation, Inc.\n\0" + b"\0" * 64)


def env():
    return clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv")


def report(r):
    rc, out, err = run(["check", "--no-load", "--format", "markdown"], root=r.path, env=env())
    assert rc in (0, 1), err
    return out


def row(out, component):
    rows = [line for line in out.splitlines() if line.startswith("| " + component + " |")]
    return rows[0] if rows else None


def torch_root():
    r = fixtures.healthy_root()
    site = fw.add_venv(r, py="3.11")
    fw.add_torch(r, site)
    fw.add_torch_cu12_wheels(r, site, cudnn="9.1.0.70")
    return r


class MarkdownReport(unittest.TestCase):
    def test_os_glibc_python_cudnn(self):
        r = torch_root()
        r.write("etc/os-release", OS_RELEASE)
        # glibc <= 2.33: the soname link names the version
        r.write("lib/x86_64-linux-gnu/libc-2.31.so", "\x7fELF not read\n")
        r.symlink("lib/x86_64-linux-gnu/libc.so.6", "libc-2.31.so")
        out = report(r)
        self.assertEqual(row(out, "OS"), "| OS | ` Debian GNU/Linux 11 (bullseye) ` | ` /etc/os-release ` |")
        self.assertEqual(row(out, "Distribution"),
                         "| Distribution | ` debian 11 ` | os-release ID and ` VERSION_ID ` |")
        self.assertEqual(row(out, "glibc"),
                         "| glibc | ` 2.31 ` | file name of ` /lib/x86_64-linux-gnu/libc.so.6 ` |")
        self.assertEqual(row(out, "Python (venv, active)"),
                         "| Python (venv, active) | ` 3.11 ` | ` /opt/venv ` |")
        cudnn = row(out, "cuDNN loaded by torch")
        self.assertIsNotNone(cudnn, out)
        self.assertIn("` 9.1.0.70 `", cudnn)
        self.assertIn("/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", cudnn)

    def test_glibc_234_banner_and_usr_lib_os_release(self):
        r = torch_root()
        # no /etc/os-release: os-release(5) falls back to /usr/lib/os-release
        r.write("usr/lib/os-release", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nID=ubuntu\nVERSION_ID="22.04"\n')
        full = os.path.join(r.path, "usr/lib64/libc.so.6")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(BANNER)
        out = report(r)
        self.assertIn("` Ubuntu 22.04.5 LTS ` | ` /usr/lib/os-release ` |", row(out, "OS"))
        self.assertIn("` ubuntu 22.04 `", row(out, "Distribution"))
        self.assertEqual(row(out, "glibc"),
                         "| glibc | ` 2.35 ` | version string of /usr/lib64/libc.so.6 |")

    def test_near_miss_unknown_and_not_this_machine(self):
        # a tree without os-release or libc.so.6 says unknown: never this
        # machine's values (the test host has both)
        r = torch_root()
        out = report(r)
        self.assertIn("| OS | ` unknown ` | no os-release found |", out)
        self.assertIn("| glibc | ` unknown ` |", out)
        self.assertNotIn("Distribution", out)
        # a banner without a version, and a libc-.so name without one, are not versions
        r.write("lib64/libc.so.6", "GNU C Library stable release version x.y.\n")
        r.write("usr/lib/libc-garbage.so", "")
        r.symlink("usr/lib/libc.so.6", "libc-garbage.so")
        self.assertIn("| glibc | ` unknown ` |", report(r))

    def test_hostile_os_release_stays_inert(self):
        r = torch_root()
        r.write("etc/os-release", 'PRETTY_NAME="@alice #12 <img src=x> | pipe"\nID="x`y"\n')
        out = report(r)
        line = row(out, "OS")
        self.assertIn("\\|", line)                 # the cell is not split
        self.assertEqual(len(re.findall(r"(?<!\\)\|", line)), 4, line)   # three cells
        self.assertTrue(line.startswith("| OS | ` @alice"), line)

    def test_hostile_files_never_hang(self):
        # a FIFO as os-release and as libc.so.6 (no writer: reads see EOF at
        # once, O_NONBLOCK), a libc.so.6 link that leaves the tree, and a
        # libc.so.6 of 17 MiB whose banner lies past the 16 MiB read: unknown,
        # in bounded time, never this machine's glibc
        import time
        r = torch_root()
        os.mkfifo(os.path.join(r.path, "etc/os-release"))
        os.makedirs(os.path.join(r.path, "lib64"), exist_ok=True)
        os.mkfifo(os.path.join(r.path, "lib64/libc.so.6"))
        r.symlink("lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6")
        big = os.path.join(r.path, "usr/lib64/libc.so.6")
        os.makedirs(os.path.dirname(big), exist_ok=True)
        with open(big, "wb") as f:
            f.truncate(17 << 20)
            f.seek(17 << 20)
            f.write(b"stable release version 2.99.\n")
        t = time.monotonic()
        out = report(r)
        self.assertLess(time.monotonic() - t, 60)
        self.assertIn("| OS | ` unknown ` |", out)
        self.assertIn("| glibc | ` unknown ` |", out)
        self.assertNotIn("2.99", out)

    def test_report_carries_the_tree_not_the_host(self):
        # near miss of the glibc line: the same tree with a libc-2.28.so link
        # says 2.28 (RHEL 8's), whatever glibc the test host runs
        r = torch_root()
        r.write("usr/lib64/libc-2.28.so", "")
        r.symlink("lib64/libc.so.6", "../usr/lib64/libc-2.28.so")
        self.assertIn("| glibc | ` 2.28 ` |", report(r))


if __name__ == "__main__":
    unittest.main()
