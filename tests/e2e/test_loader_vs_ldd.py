"""The loader emulation against the real loader.

For every ELF shared library under /usr/local/cuda/lib64 and for fixture
libraries with RPATH / RUNPATH / LD_LIBRARY_PATH / $ORIGIN / glibc-hwcaps /
wrong-class / truncated variations, `gpudoctor which --from X --all --json`
must name the same file as `ldd X` for every dependency, with the same
environment.  Fixtures are built in a temporary directory and read with
root "/", because the real ldd cannot look inside a --root.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from gdtest import GDTestCase, Root, run, clean_env

CUDA_LIB = "/usr/local/cuda/lib64"
LDD_LINE = re.compile(r"^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$")


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def ldd(path, env):
    """{name: path or None} from ldd, and the (path, message) of a fatal load error."""
    p = subprocess.run(["ldd", path], capture_output=True, text=True, env=env, timeout=60)
    found = {}
    for line in p.stdout.splitlines():
        m = LDD_LINE.match(line)
        if m:
            found[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    fatal = None
    m = re.search(r"error while loading shared libraries: (.+?): (.+)$", p.stdout + p.stderr, re.M)
    if m:
        fatal = (m.group(1), m.group(2))
    return found, fatal


def which_all(path, env):
    rc, out, err = run(["--json", "which", "--from", path, "--all"], env=env)
    if rc not in (0, 1):
        raise AssertionError(f"which --all {path}: rc {rc}\n{err}")
    return json.loads(out)


def first_found(doc):
    """{name: node} for every dependency the way ldd lists it: first occurrence, loaded here."""
    out = {}
    for n in doc["libraries"][1:]:
        if n["source"] == "already-loaded":
            continue
        out.setdefault(n["name"], n)
    return out


def real_ld_platform():
    """dl_platform of this machine's ld.so (glibc >= 2.33 prints it), else AT_PLATFORM."""
    for ldso in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"):
        if os.path.exists(ldso):
            p = subprocess.run([ldso, "--list-diagnostics"], capture_output=True, text=True)
            for line in p.stdout.splitlines():
                if line.startswith("dl_platform="):
                    return line.split("=", 1)[1].strip('"')
    return os.uname().machine


class LoaderAgreesWithLdd(GDTestCase):
    def compare(self, path, env):
        want, fatal = ldd(path, env)
        doc = which_all(path, env)
        got = first_found(doc)
        if fatal:
            bad = [n for n in doc["libraries"] if n.get("load_error")]
            self.assertTrue(bad, f"{path}: ldd fails on {fatal} but gpudoctor loads everything")
            self.assertEqual(bad[0]["path"], fatal[0], f"{path}: the file ld.so fails on")
            return doc
        for name, p in want.items():
            self.assertIn(name, got, f"{path}: ldd lists {name} => {p}, gpudoctor does not")
            self.assertEqual(got[name]["path"], p,
                             f"{path}: {name}: ldd {p}, gpudoctor {got[name]['path']} "
                             f"via {got[name]['source']}")
        for name, n in got.items():
            if name.startswith("ld-linux"):
                continue
            self.assertIn(name, want, f"{path}: gpudoctor resolves {name} => {n['path']}, ldd does not list it")
        return doc

    @unittest.skipUnless(os.path.isdir(CUDA_LIB), "no /usr/local/cuda/lib64")
    def test_every_cuda_library(self):
        env = clean_env()
        seen, checked = set(), 0
        for p in sorted(glob.glob(os.path.join(CUDA_LIB, "*.so*"))):
            real = os.path.realpath(p)
            if real in seen or not os.path.isfile(p) or not is_elf(p):
                continue
            seen.add(real)
            with self.subTest(lib=p):
                self.compare(p, env)
            checked += 1
        self.assertGreater(checked, 5)
        print(f"\n# compared {checked} CUDA libraries with ldd")

    @unittest.skipUnless(os.path.isdir(CUDA_LIB), "no /usr/local/cuda/lib64")
    def test_cuda_with_ld_library_path(self):
        env = clean_env(LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu::/nonexistent;" + CUDA_LIB + "/")
        compared = 0
        for p in ("libcublas.so", "libcudnn.so.9", "libcusolver.so.12", "libnccl.so.2"):
            full = os.path.join(CUDA_LIB, p)
            if os.path.exists(full):
                with self.subTest(lib=full):
                    self.compare(full, env)
                compared += 1
        # A comparison of nothing proves nothing.
        if not compared:
            self.skipTest(f"none of the compared libraries is in {CUDA_LIB}")

    @unittest.skipUnless(os.path.isdir(CUDA_LIB), "no /usr/local/cuda/lib64")
    def test_speed_big_tree(self):
        timed = 0
        for name in ("libcudnn_engines_precompiled.so.9", "libcublasLt.so.13", "libcudnn.so.9"):
            p = os.path.join(CUDA_LIB, name)
            if not os.path.exists(p):
                continue
            timed += 1
            t0 = time.monotonic()
            doc = which_all(p, clean_env())
            wall = time.monotonic() - t0
            size = os.path.getsize(os.path.realpath(p))
            print(f"\n# {name}: {len(doc['libraries'])} objects, tree {doc['seconds'] * 1e3:.2f} ms, "
                  f"process {wall * 1e3:.1f} ms, {doc['bytes_read']} bytes read of a {size} byte library")
            # The bound is 10 ms; allow slack for this shared 2-core machine.
            self.assertLess(doc["seconds"], 0.05)
            self.assertLess(doc["libraries"][0]["bytes_read"], 1 << 20)
        if not timed:
            self.skipTest(f"none of the timed libraries is in {CUDA_LIB}")


class FixtureVariations(GDTestCase):
    """Libraries built here; gpudoctor (root "/") and ldd see the same files."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.r = Root()
        cls.d = cls.r.path

    def lib(self, rel, soname, **kw):
        return self.r.shared_lib(rel, soname=soname, **kw)

    def check_variant(self, top, env_extra=None, expect=None):
        env = clean_env(**(env_extra or {}))
        doc = LoaderAgreesWithLdd.compare(self, top, env)
        if expect:
            got = first_found(doc)
            for name, path in expect.items():
                self.assertEqual(got[name]["path"], path, json.dumps(got[name], indent=1))
        return doc

    compare = LoaderAgreesWithLdd.compare

    def test_rpath_beats_ld_library_path(self):
        a = self.lib("rp/a/libgddep.so.1", "libgddep.so.1")
        self.lib("rp/b/libgddep.so.1", "libgddep.so.1")
        top = self.lib("rp/top/libtop.so", "libtop.so", needed=["libgddep.so.1"], rpath=os.path.dirname(a))
        self.check_variant(top, {"LD_LIBRARY_PATH": self.r.p("rp/b")}, {"libgddep.so.1": a})

    def test_ld_library_path_beats_runpath(self):
        self.lib("rn/a/libgddep.so.1", "libgddep.so.1")
        b = self.lib("rn/b/libgddep.so.1", "libgddep.so.1")
        top = self.lib("rn/top/libtop.so", "libtop.so", needed=["libgddep.so.1"], runpath=self.r.p("rn/a"))
        self.check_variant(top, {"LD_LIBRARY_PATH": self.r.p("rn/b")}, {"libgddep.so.1": b})
        self.check_variant(top, None, {"libgddep.so.1": self.r.p("rn/a/libgddep.so.1")})

    def test_rpath_is_inherited_runpath_is_not(self):
        leaf = self.lib("inh/a/libgdleaf.so.1", "libgdleaf.so.1")
        self.lib("inh/a/libgdmid.so.1", "libgdmid.so.1", needed=["libgdleaf.so.1"])
        top = self.lib("inh/top/libtop.so", "libtop.so", needed=["libgdmid.so.1"], rpath=self.r.p("inh/a"))
        self.check_variant(top, None, {"libgdleaf.so.1": leaf})
        top2 = self.lib("inh/top2/libtop.so", "libtop.so", needed=["libgdmid.so.1"], runpath=self.r.p("inh/a"))
        doc = self.check_variant(top2)
        self.assertIsNone(first_found(doc)["libgdleaf.so.1"]["path"])

    def test_runpath_of_middle_disables_rpath_chain(self):
        self.lib("mid/a/libgdleaf.so.1", "libgdleaf.so.1")
        self.lib("mid/a/libgdmid.so.1", "libgdmid.so.1", needed=["libgdleaf.so.1"], runpath="/nonexistent")
        top = self.lib("mid/top/libtop.so", "libtop.so", needed=["libgdmid.so.1"], rpath=self.r.p("mid/a"))
        doc = self.check_variant(top)
        self.assertIsNone(first_found(doc)["libgdleaf.so.1"]["path"])

    def test_origin_through_symlinked_dir(self):
        dep = self.lib("org/real/deps/libgddep.so.1", "libgddep.so.1")
        self.lib("org/real/lib/libtop.so", "libtop.so", needed=["libgddep.so.1"], runpath="$ORIGIN/../deps")
        os.symlink(self.r.p("org/real/lib"), self.r.p("org/link"))
        # Loaded under org/link/, $ORIGIN is org/link (the directory it was loaded
        # under, not its realpath); the kernel then follows the link for "..".
        self.check_variant(self.r.p("org/link/libtop.so"), None,
                           {"libgddep.so.1": self.r.p("org/link/../deps/libgddep.so.1")})
        self.check_variant(self.r.p("org/real/lib/libtop.so"), None,
                           {"libgddep.so.1": self.r.p("org/real/lib/../deps/libgddep.so.1")})
        self.assertTrue(os.path.samefile(dep, self.r.p("org/link/../deps/libgddep.so.1")))

    def test_origin_braces_and_lib_platform(self):
        # $PLATFORM is ld.so's, not always AT_PLATFORM: "haswell" on Intel CPUs
        # with glibc 2.39 (the H200 machine), "x86_64" on this AMD one.
        platform = real_ld_platform()
        for d in {"x86_64", "haswell", platform}:
            self.lib(f"dst/{d}/libgddep.so.1", "libgddep.so.1")
        top = self.lib("dst/top/libtop.so", "libtop.so", needed=["libgddep.so.1"],
                       rpath="${ORIGIN}/../$PLATFORM")
        # ld.so does not normalise "..": the path is printed as built.
        self.check_variant(top, None, {"libgddep.so.1": self.r.p(f"dst/top/../{platform}/libgddep.so.1")})

    def test_glibc_hwcaps_subdir_first(self):
        self.lib("hw/a/libgddep.so.1", "libgddep.so.1")
        v2 = self.lib("hw/a/glibc-hwcaps/x86-64-v2/libgddep.so.1", "libgddep.so.1")
        top = self.lib("hw/top/libtop.so", "libtop.so", needed=["libgddep.so.1"], runpath=self.r.p("hw/a"))
        self.check_variant(top, None, {"libgddep.so.1": v2})

    def patched(self, src, dst, offset, value):
        shutil.copyfile(src, dst)
        with open(dst, "r+b") as f:
            f.seek(offset)
            f.write(bytes([value]))

    def test_wrong_class_and_machine_are_skipped(self):
        good = self.lib("wc/b/libgddep.so.1", "libgddep.so.1")
        os.makedirs(self.r.p("wc/a"), exist_ok=True)
        os.makedirs(self.r.p("wc/m"), exist_ok=True)
        self.patched(good, self.r.p("wc/a/libgddep.so.1"), 4, 1)      # ELFCLASS32
        self.patched(good, self.r.p("wc/m/libgddep.so.1"), 18, 183)   # EM_AARCH64
        top = self.lib("wc/top/libtop.so", "libtop.so", needed=["libgddep.so.1"],
                       rpath=":".join(self.r.p(x) for x in ("wc/a", "wc/m", "wc/b")))
        doc = self.check_variant(top, None, {"libgddep.so.1": good})
        rejected = [c for c in first_found(doc)["libgddep.so.1"]["candidates"] if c["rejected"]]
        self.assertEqual(len(rejected), 2, json.dumps(rejected, indent=1))

    def test_truncated_candidate_stops_the_search(self):
        good = self.lib("tr/b/libgddep.so.1", "libgddep.so.1")
        os.makedirs(self.r.p("tr/a"), exist_ok=True)
        with open(good, "rb") as f, open(self.r.p("tr/a/libgddep.so.1"), "wb") as o:
            o.write(f.read(40))
        top = self.lib("tr/top/libtop.so", "libtop.so", needed=["libgddep.so.1"],
                       rpath=self.r.p("tr/a") + ":" + self.r.p("tr/b"))
        self.check_variant(top)

    def test_ld_library_path_oddities(self):
        b = self.lib("llp/b/libgddep.so.1", "libgddep.so.1")
        top = self.lib("llp/top/libtop.so", "libtop.so", needed=["libgddep.so.1"])
        self.check_variant(top, {"LD_LIBRARY_PATH": "/nonexistent;" + self.r.p("llp/b") + "//:"},
                           {"libgddep.so.1": b})

    def test_nodeflib_requester(self):
        top = self.lib("ndf/top/libtop.so", "libtop.so", needed=["libz.so.1"],
                       cflags=["-Wl,-z,nodefaultlib"])
        doc = self.check_variant(top)
        self.assertIsNone(first_found(doc)["libz.so.1"]["path"])
        self.check_variant(top, {"LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu"})

    def test_ld_preload_answers_before_any_search(self):
        """An object in LD_PRELOAD is loaded first; a NEEDED name it answers to (its
        soname) is that object, though RUNPATH points elsewhere.  ldd lists a path
        preload as a bare path line and no "libgddep.so.1 =>" line at all."""
        self.lib("pl/a/libgddep.so.1", "libgddep.so.1")
        pre = self.lib("pl/pre/libgddep.so.1", "libgddep.so.1")
        self.lib("pl/b/libgdpre2.so.1", "libgdpre2.so.1")
        top = self.lib("pl/top/libtop.so", "libtop.so", needed=["libgddep.so.1", "libgdpre2.so.1"],
                       runpath=self.r.p("pl/a") + ":" + self.r.p("pl/b"))
        for preload in (pre, f"{pre} libgdpre2.so.1", f"libgdnowhere.so.3:{pre}"):
            with self.subTest(LD_PRELOAD=preload):
                env = clean_env(LD_PRELOAD=preload, LD_LIBRARY_PATH=self.r.p("pl/b"))
                p = subprocess.run(["ldd", top], capture_output=True, text=True, env=env, timeout=60)
                bare = [l.strip().split(" (0x")[0] for l in p.stdout.splitlines() if "=>" not in l]
                self.assertIn(pre, bare, p.stdout)
                self.assertNotIn("libgddep.so.1 =>", p.stdout)
                doc = which_all(top, env)
                got = first_found(doc)
                self.assertEqual((got["libgddep.so.1"]["path"], got["libgddep.so.1"]["source"]),
                                 (pre, "preload"))
                self.assertEqual(got["libgddep.so.1"]["from"], "LD_PRELOAD")
                want, _ = ldd(top, env)
                self.assertEqual(got["libgdpre2.so.1"]["path"], want["libgdpre2.so.1"])
                pl = doc["loader"]["preloads"]
                if "libgdnowhere" in preload:
                    self.assertEqual((pl[0]["name"], pl[0]["path"]), ("libgdnowhere.so.3", None))
                    self.assertIn("cannot be preloaded", p.stderr)
                    self.assertTrue(pl[0]["error"])

    def test_not_found_anywhere(self):
        top = self.lib("nf/top/libtop.so", "libtop.so", needed=["libgdnowhere.so.7"])
        doc = self.check_variant(top)
        self.assertIsNone(first_found(doc)["libgdnowhere.so.7"]["path"])
        rc, out, _ = run(["which", "--from", top, "--all"], env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("libgdnowhere.so.7 => not found", out)


if __name__ == "__main__":
    unittest.main()
