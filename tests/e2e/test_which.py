"""gpudoctor which: options, text and JSON output, --root fixtures."""
import json
import os
import subprocess
import unittest

from gdtest import GDTestCase, Root, run, clean_env


class WhichCli(GDTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = cls.r = Root()
        r.mkdir("etc")
        r.mkdir("lib/x86_64-linux-gnu")
        subprocess.run(["cp", "-L", "/lib/x86_64-linux-gnu/libc.so.6", r.p("lib/x86_64-linux-gnu/")], check=True)
        r.shared_lib("opt/gd/libgdone.so.1", soname="libgdone.so.1")
        r.shared_lib("app/lib/libapp.so", soname="libapp.so", needed=["libgdone.so.1", "libgdmissing.so.3"],
                     runpath="$ORIGIN/../../opt/gd")
        r.write("etc/ld.so.conf", "/opt/gd\n")

    def test_help(self):
        rc, out, _ = run(["which", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn("usage: gpudoctor which SONAME", out)
        rc, _, err = run(["which"])
        self.assertEqual(rc, 2)
        rc, _, _ = run(["which", "--all", "libx.so"])
        self.assertEqual(rc, 2)

    def test_found_via_runpath_in_root(self):
        rc, out, _ = run(["--json", "which", "libgdone.so.1", "--from", "/app/lib/libapp.so"],
                         root=self.r.path, env=clean_env())
        self.assertEqual(rc, 0, out)
        d = json.loads(out)
        self.assertEqual(d["path"], "/app/lib/../../opt/gd/libgdone.so.1")
        self.assertEqual(d["realpath"], "/opt/gd/libgdone.so.1")
        self.assertEqual(d["source"], "runpath")
        self.assertEqual(d["from"], "/app/lib/libapp.so")
        self.assertEqual(d["loader"]["default_dirs"][0], "/lib/x86_64-linux-gnu")
        self.assertIsNone(d["loader"]["cache_format"])          # no cache in this root
        self.assertIsNotNone(d["loader"]["cache_error"])

    def test_not_found_says_why(self):
        rc, out, _ = run(["which", "libgdone.so.1"], root=self.r.path, env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("libgdone.so.1 => not found", out)
        self.assertIn("no ld.so.cache: run ldconfig", out)

    def test_ld_library_path_inside_root(self):
        rc, out, _ = run(["which", "-v", "libgdone.so.1"], root=self.r.path,
                         env=clean_env(LD_LIBRARY_PATH="/opt/gd"))
        self.assertEqual(rc, 0, out)
        self.assertIn("/opt/gd/libgdone.so.1  [LD_LIBRARY_PATH]", out)
        self.assertIn("read ", out)

    def test_etc_ld_so_preload_in_root(self):
        """/etc/ld.so.preload of the root (not of this machine): whitespace and ':' separate
        entries, '#' starts a comment, a missing entry is ignored with ld.so's message."""
        r = Root()
        r.mkdir("lib/x86_64-linux-gnu")
        r.shared_lib("opt/gd/libgdone.so.1", soname="libgdone.so.1")
        r.shared_lib("opt/shim/libshim.so", soname="libgdone.so.1")
        r.shared_lib("app/lib/libapp.so", soname="libapp.so", needed=["libgdone.so.1"],
                     runpath="/opt/gd")
        r.write("etc/ld.so.preload", "# a shim that intercepts libgdone\n"
                "/opt/gone/libgone.so:/opt/shim/libshim.so   # trailing comment\n")
        rc, out, _ = run(["--json", "which", "libgdone.so.1", "--from", "/app/lib/libapp.so"],
                         root=r.path, env=clean_env())
        self.assertEqual(rc, 0, out)
        d = json.loads(out)
        self.assertEqual((d["path"], d["source"], d["from"]),
                         ("/opt/shim/libshim.so", "preload", "/etc/ld.so.preload"))
        pl = d["loader"]["preloads"]
        self.assertEqual([p["name"] for p in pl], ["/opt/gone/libgone.so", "/opt/shim/libshim.so"])
        self.assertIsNone(pl[0]["path"])
        self.assertEqual(pl[1]["soname"], "libgdone.so.1")
        rc, out, _ = run(["which", "libgdone.so.1", "--from", "/app/lib/libapp.so"], root=r.path,
                         env=clean_env())
        self.assertIn("[preloaded by /etc/ld.so.preload]", out)
        self.assertIn("object '/opt/gone/libgone.so' from /etc/ld.so.preload cannot be preloaded", out)
        # the LD_PRELOAD of the environment comes first
        rc, out, _ = run(["--json", "which", "libgdone.so.1"], root=r.path,
                         env=clean_env(LD_PRELOAD="/opt/gd/libgdone.so.1"))
        d = json.loads(out)
        self.assertEqual((d["path"], d["from"]), ("/opt/gd/libgdone.so.1", "LD_PRELOAD"))

    def test_all_text_and_json(self):
        rc, out, _ = run(["which", "--from", "/app/lib/libapp.so", "--all"], root=self.r.path, env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("libgdmissing.so.3 => not found", out)
        self.assertIn("1 dependency not loadable", out)
        rc, out, _ = run(["--json", "which", "--from", "/app/lib/libapp.so", "--all"], root=self.r.path,
                         env=clean_env())
        d = json.loads(out)
        names = [n["name"] for n in d["libraries"]]
        self.assertEqual(names[:3], ["/app/lib/libapp.so", "libgdone.so.1", "libgdmissing.so.3"])
        self.assertEqual(d["missing"], 1)
        self.assertGreater(d["bytes_read"], 0)

    def test_corrupt_winner_is_a_load_error(self):
        self.r.write("bad/libgdbad.so.1", b"\x7fELF\x02\x01\x01" + b"\0" * 20)
        rc, out, _ = run(["--json", "which", "libgdbad.so.1"], root=self.r.path,
                         env=clean_env(LD_LIBRARY_PATH="/bad"))
        self.assertEqual(rc, 1)
        d = json.loads(out)
        self.assertEqual(d["path"], "/bad/libgdbad.so.1")
        self.assertIn("truncated", d["load_error"])


if __name__ == "__main__":
    unittest.main()


class PlatformFromCpu(GDTestCase):
    """$PLATFORM is what ld.so computes, not the kernel's AT_PLATFORM: on an Intel
    CPU with the Haswell feature set glibc says "haswell" (seen on the H200
    machine: Ubuntu 24.04, glibc 2.39, ld.so --list-diagnostics
    dl_platform="haswell")."""

    FLAGS = ("fpu sse2 cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 "
             "f16c fma abm movbe xsave")

    def root(self, vendor):
        r = Root()
        r.mkdir("etc")
        r.mkdir("lib/x86_64-linux-gnu")
        subprocess.run(["cp", "-L", "/lib/x86_64-linux-gnu/libc.so.6", r.p("lib/x86_64-linux-gnu/")], check=True)
        r.write("proc/cpuinfo", f"processor\t: 0\nvendor_id\t: {vendor}\nflags\t\t: {self.FLAGS}\n\n")
        r.shared_lib("dst/haswell/libgddep.so.1", soname="libgddep.so.1")
        r.shared_lib("dst/x86_64/libgddep.so.1", soname="libgddep.so.1")
        r.shared_lib("dst/top/libtop.so", soname="libtop.so", needed=["libgddep.so.1"],
                     rpath="$ORIGIN/../$PLATFORM")
        return r

    def which(self, r):
        rc, out, _ = run(["--json", "which", "libgddep.so.1", "--from", "/dst/top/libtop.so"],
                         root=r.path, env=clean_env())
        self.assertEqual(rc, 0, out)
        return json.loads(out)["path"]

    def test_intel_haswell(self):
        self.assertEqual(self.which(self.root("GenuineIntel")), "/dst/top/../haswell/libgddep.so.1")

    def test_amd_stays_x86_64(self):
        self.assertEqual(self.which(self.root("AuthenticAMD")), "/dst/top/../x86_64/libgddep.so.1")
