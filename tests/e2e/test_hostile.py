"""Hostile trees (tests/e2e/hostile.py): --root cannot be escaped.

A planted file outside the root carries a unique marker; trees point at it
with link chains of 39-42 links, absolute links, '..' past the root and
loops.  No byte of the marker may appear in any output of any command, and
nothing may hang or crash.  Where a path resolves or fails is checked
against the kernel's own answer inside a real chroot (os.chroot in a
child), the semantics `ldconfig -r` and `chroot` give.
"""
import json
import os
import unittest

from gdtest import GDTestCase, clean_env, check
import hostile

MARK = "GDCHROOTOK"


def chroot_read(root, path):
    """Read path inside root as a process chrooted there would: (text, errno)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.chroot(root)
            os.chdir("/")
            with open(path) as f:
                msg = "ok:" + f.read()
        except OSError as ex:
            msg = f"err:{ex.errno}"
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    out = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
    os.close(r)
    os.waitpid(pid, 0)
    s = out.decode()
    return (s[3:], 0) if s.startswith("ok:") else (None, int(s[4:]))


class HostileTrees(GDTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plant = hostile.Plant()

    def test_no_planted_byte_in_any_output(self):
        for name, build in hostile.CASES.items():
            root = build(self.plant)
            for args in hostile.COMMANDS:
                with self.subTest(case=name, args=args):
                    rc, out, err = hostile.run(hostile.GPUDOCTOR, root, args)
                    self.assertIn(rc, (0, 1), f"{name} {args}: rc={rc}\n{err}")
                    self.assertFalse(self.plant.leaked(out + err),
                                     f"{name} {args}: the planted host file leaked:\n{out}\n{err}")
                    if "--json" in args:
                        json.loads(out)
                    if args[:2] == ["which", "libc.so.6"]:
                        # the tree has no libc: the host's (or the plant's) is never the answer
                        self.assertIn("not found", out, f"{name}: {out}")

    def test_link_chains_resolve_as_in_a_chroot(self):
        if os.geteuid() != 0:
            self.skipTest("chroot(2) needs root: cannot compare with the kernel's answer")
        answers = {}
        for n in (1, 39, 40, 41, 42):
            root = hostile.fixtures.healthy_root()
            root.write("real-version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.77  "
                       f"{MARK}\n")
            root.remove("proc/driver/nvidia/version")
            hostile._chain(root, "proc/driver/nvidia/version", n, "/real-version")
            text, errno = chroot_read(root.path, "/proc/driver/nvidia/version")
            doc = check(root, "--no-load")
            got = doc["inventory"]["kernel"]["proc_version"]
            answers[n] = errno
            if errno == 0:
                self.assertIn(MARK, text)
                self.assertEqual(got, "580.95.77", f"{n} links: the kernel reads it in a chroot, gpudoctor did not")
            else:
                self.assertNotEqual(got, "580.95.77", f"{n} links: ELOOP in a chroot, gpudoctor read it")
        # the kernel's MAXSYMLINKS is 40: the 41st link of one lookup is ELOOP
        self.assertEqual(answers[40], 0)
        self.assertEqual(answers[41], 40)

    def test_dotdot_and_absolute_stay_inside(self):
        root = hostile.fixtures.healthy_root()
        root.write("etc/inside", f"{MARK}\n")
        root.remove("proc/driver/nvidia/version")
        root.write("tmp/v", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.77  " + MARK + "\n")
        # '..' past the root stops at the root, as in a chroot
        root.symlink("proc/driver/nvidia/version", hostile.UP + "tmp/v")
        doc = check(root, "--no-load")
        self.assertEqual(doc["inventory"]["kernel"]["proc_version"], "580.95.77")
        if os.geteuid() == 0:
            self.assertIn(MARK, chroot_read(root.path, "/proc/driver/nvidia/version")[0])


if __name__ == "__main__":
    unittest.main()
