"""ld.so.conf includes against the real ldconfig.

Hostile trees: a conf that includes itself, two and three that include
each other, /etc/ld.so.conf.d as a link to a directory whose name has
another length, a wildcard in a directory component, a relative include,
an include through '..' past the root.  The directories gpudoctor derives
(`which --json`, loader.conf_dirs) must be the ones `ldconfig -r ROOT -N -v`
lists, and the ones /sbin/ldconfig lists when run inside a real chroot of
the tree (it is a static binary), in well under a second.
"""
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from gdtest import GDTestCase, Root, run, clean_env

LDCONFIG = shutil.which("ldconfig") or "/sbin/ldconfig"


def ldconfig_dirs(out):
    """The '/dir: (from FILE:LINE)' lines of ldconfig -v, builtin ones left out."""
    dirs = []
    for line in out.splitlines():
        m = re.match(r"^(/[^\t]*): \(from (.*)\)$", line)
        if m and "<builtin>" not in m.group(2):
            dirs.append(m.group(1))
    return dirs


def case_trees():
    trees = {}

    def base(name):
        r = Root()
        for d in ("opt/a", "opt/b", "opt/c", "opt/d", "opt/e"):
            r.mkdir(d)
        trees[name] = r
        return r

    # glibc's ldconfig has no set of files read: it recurses until it runs
    # out of file descriptors, so only chains (one include each) finish there;
    # the branching ones are test_self_including_files_are_read_once
    r = base("self-include")
    r.write("etc/ld.so.conf", "include /etc/ld.so.conf\n/opt/a\n")
    r = base("two-files")
    r.write("etc/ld.so.conf", "include /etc/b.conf\n/opt/a\n")
    r.write("etc/b.conf", "include /etc/ld.so.conf\n/opt/b\n")
    r = base("confd-link-longer")
    r.write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    r.write("etc/a-much-longer-directory-name.d/x.conf", "/opt/b\n")
    r.write("etc/a-much-longer-directory-name.d/y.conf", "/opt/c\n")
    r.symlink("etc/ld.so.conf.d", "/etc/a-much-longer-directory-name.d")
    r = base("confd-link-shorter")
    r.write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    r.write("etc/s/x.conf", "/opt/d\n")
    r.symlink("etc/ld.so.conf.d", "s")
    r = base("wildcard-dir")
    r.write("etc/ld.so.conf", "include /etc/conf*/*/lib.conf\n/opt/a\n")
    r.write("etc/conf1/x/lib.conf", "/opt/b\n")
    r.write("etc/conf2/y/lib.conf", "/opt/c\n")
    r.write("etc/conf2/.hidden/lib.conf", "/opt/e\n")
    r = base("relative-and-dotdot")
    r.write("etc/ld.so.conf", "include conf.d/*.conf\ninclude /../../../../etc/more/*.conf\n")
    r.write("etc/conf.d/x.conf", "/opt/b\n")
    r.write("etc/more/y.conf", "/opt/e\n")
    return trees


def gpudoctor_dirs(root):
    t0 = time.monotonic()
    rc, out, err = run(["--json", "which", "libnothing.so.1"], root=root.path, env=clean_env())
    took = time.monotonic() - t0
    return json.loads(out)["loader"]["conf_dirs"], took


class LdConf(GDTestCase):
    def test_against_ldconfig_r(self):
        compared = 0
        for name, r in case_trees().items():
            if name == "relative-and-dotdot":
                continue        # ldconfig -r refuses relative includes ("need absolute file name")
            with self.subTest(case=name):
                p = subprocess.run([LDCONFIG, "-r", r.path, "-N", "-v", "-X"], capture_output=True,
                                   text=True, timeout=60)
                want = ldconfig_dirs(p.stdout)
                got, took = gpudoctor_dirs(r)
                self.assertTrue(want, f"{name}: ldconfig listed nothing:\n{p.stdout}\n{p.stderr}")
                self.assertEqual(sorted(set(got)), sorted(set(want)), name)
                self.assertEqual(len(got), len(set(got)), f"{name}: a directory twice: {got}")
                self.assertLess(took, 2.0, f"{name}: took {took:.1f} s")
                compared += 1
        self.assertGreaterEqual(compared, 5)

    def test_against_ldconfig_in_a_chroot(self):
        if os.geteuid() != 0:
            self.skipTest("chroot(2) needs root")
        p = subprocess.run(["ldd", LDCONFIG], capture_output=True, text=True)
        if "=>" in p.stdout:
            self.skipTest(f"{LDCONFIG} is not static: it cannot run inside a bare tree")
        compared = 0
        for name, r in case_trees().items():
            with self.subTest(case=name):
                os.makedirs(r.p("sbin"), exist_ok=True)
                shutil.copy(LDCONFIG, r.p("sbin/ldconfig"))
                p = subprocess.run(["chroot", r.path, "/sbin/ldconfig", "-N", "-v", "-X"],
                                   capture_output=True, text=True, timeout=60)
                want = ldconfig_dirs(p.stdout)
                got, took = gpudoctor_dirs(r)
                self.assertTrue(want, f"{name}: ldconfig listed nothing:\n{p.stdout}\n{p.stderr}")
                self.assertEqual(sorted(set(got)), sorted(set(want)), name)
                compared += 1
        self.assertEqual(compared, len(case_trees()))

    def test_self_including_files_are_read_once(self):
        r = Root()
        r.mkdir("opt/a")
        # ten files that each include all ten, twice: exponential without a read set
        for i in range(10):
            r.write(f"etc/c{i}.conf", "include /etc/c*.conf\ninclude /etc/c*.conf\n" + f"/opt/d{i}\n")
            r.mkdir(f"opt/d{i}")
        r.write("etc/ld.so.conf", "include /etc/c*.conf\n/opt/a\n")
        got, took = gpudoctor_dirs(r)
        self.assertLess(took, 1.0)
        self.assertEqual(sorted(got), sorted(["/opt/a"] + [f"/opt/d{i}" for i in range(10)]))


if __name__ == "__main__":
    unittest.main()
