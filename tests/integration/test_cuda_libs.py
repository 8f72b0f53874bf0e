"""The libraries layer against the real CUDA libraries of this machine.

Needs /usr/local/cuda with libcudart (skips otherwise).  Compares gpudoctor
with the real loader (a python child that dlopen()s each soname and reads its
/proc/self/maps), with `ldconfig -p`, with cudnn_version.h, and runs the
libversion child on the real libcudart / libcudnn / libnccl / libcublas.
"""
import glob
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GPUDOCTOR = os.environ.get("GPUDOCTOR", os.path.join(REPO, "build", "gpudoctor"))
CUDA_LIB = "/usr/local/cuda/lib64"
SONAMES = ("libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libcudnn.so.9",
           "libnccl.so.2", "libcusolver.so.12", "libcufft.so.12", "libnvJitLink.so.13")

MAPS_CHILD = r"""
import ctypes, os, sys, json
out = {}
for so in sys.argv[1:]:
    try:
        ctypes.CDLL(so, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError as e:
        out[so] = None
        continue
    base = so
    for line in open("/proc/self/maps"):
        parts = line.split()
        if len(parts) >= 6 and os.path.basename(parts[5]).startswith(base.split(".so")[0] + ".so"):
            p = os.path.realpath(parts[5])
            if os.path.basename(parts[5]) == so or os.path.basename(p).startswith(so):
                out[so] = p
    out.setdefault(so, "mapped-but-not-found")
print(json.dumps(out))
"""


def env_with(**kw):
    e = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    e.update(kw)
    return e


def gd_check(env):
    p = subprocess.run([GPUDOCTOR, "--json", "--no-load", "check"], capture_output=True,
                       text=True, env=env, timeout=120)
    return json.loads(p.stdout)


def real_loader(sonames, env):
    p = subprocess.run([sys.executable, "-c", MAPS_CHILD] + list(sonames), capture_output=True,
                       text=True, env=env, timeout=120)
    return json.loads(p.stdout)


def winners(doc):
    return {c["soname"]: c for c in doc["inventory"]["libraries"] if c["winner"]}


@unittest.skipUnless(glob.glob(CUDA_LIB + "/libcudart.so.*"), "no /usr/local/cuda/lib64/libcudart")
@unittest.skipUnless(os.path.exists(GPUDOCTOR), "gpudoctor not built")
class RealCuda(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.env_llp = env_with(LD_LIBRARY_PATH=CUDA_LIB)
        cls.env_plain = env_with()
        cls.doc_llp = gd_check(cls.env_llp)
        cls.doc_plain = gd_check(cls.env_plain)

    def present(self):
        sos = [s for s in SONAMES if os.path.exists(os.path.join(CUDA_LIB, s))]
        # A comparison of nothing proves nothing.
        self.assertTrue(sos, f"none of {SONAMES} is in {CUDA_LIB}")
        return sos

    def test_winners_match_real_loader_with_llp(self):
        sos = self.present()
        real = real_loader(sos, self.env_llp)
        w = winners(self.doc_llp)
        for so in sos:
            with self.subTest(soname=so):
                self.assertIn(so, w, f"gpudoctor names no winner for {so}")
                self.assertEqual(os.path.realpath(w[so]["realpath"]), real[so])
                self.assertEqual(w[so]["reachable_as"], "ld-library-path")

    def test_winners_match_real_loader_without_llp(self):
        sos = self.present()
        real = real_loader(sos, self.env_plain)
        w = winners(self.doc_plain)
        for so in sos:
            with self.subTest(soname=so):
                if real.get(so) is None:
                    self.assertNotIn(so, w)
                    continue
                self.assertEqual(os.path.realpath(w[so]["realpath"]), real[so])

    def test_winners_match_ldconfig_cache(self):
        p = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True)
        if p.returncode != 0:
            self.skipTest("ldconfig -p failed")
        first = {}
        for line in p.stdout.splitlines()[1:]:
            m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
            if m and "x86-64" in m.group(2) and m.group(1) not in first:
                first[m.group(1)] = m.group(3)
        w = winners(self.doc_plain)
        compared = [so for so in self.present() if so in first]
        if not compared:
            self.skipTest(f"ld.so.cache lists none of the libraries in {CUDA_LIB}")
        for so in compared:
            if so in first:
                with self.subTest(soname=so):
                    self.assertEqual(os.path.realpath(w[so]["realpath"]),
                                     os.path.realpath(first[so]))
                    self.assertEqual(w[so]["reachable_as"], "cache")

    def test_cudnn_version_matches_header(self):
        hdr = "/usr/local/cuda/include/cudnn_version.h"
        if not os.path.exists(hdr):
            self.skipTest("no cudnn_version.h")
        text = open(hdr).read()
        ver = ".".join(re.search(rf"#define CUDNN_{k}\s+(\d+)", text).group(1)
                       for k in ("MAJOR", "MINOR", "PATCHLEVEL"))
        loader = self.doc_plain["inventory"]["libraries_loader"]
        self.assertEqual(loader["cudnn_header_version"], ver)
        c = [c for c in self.doc_plain["inventory"]["libraries"]
             if c["soname"] == "libcudnn.so.9" and c["realpath"].startswith("/usr/local/cuda")]
        self.assertTrue(c)
        self.assertTrue(c[0]["version"].startswith(ver), c[0])

    def _child(self, so, kind):
        p = subprocess.run([GPUDOCTOR, "__probe", "libversion", os.path.join(CUDA_LIB, so), kind],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        kv = dict(l.split("=", 1) for l in p.stdout.splitlines() if "=" in l)
        self.assertEqual(p.stdout.splitlines()[-1], "end")
        self.assertIn("version", kv, p.stdout)
        return kv

    def _static(self, so):
        for c in self.doc_plain["inventory"]["libraries"]:
            if c["soname"] == so and c["realpath"].startswith(os.path.realpath("/usr/local/cuda")):
                return c["version"]
        return None

    def test_libversion_cudart(self):
        kv = self._child("libcudart.so.13", "cudart")
        st = self._static("libcudart.so.13")
        self.assertEqual(kv["version"], ".".join(st.split(".")[:2]))
        self.assertEqual(int(kv["raw"]), int(st.split(".")[0]) * 1000 + int(st.split(".")[1]) * 10)

    def test_libversion_cudnn(self):
        if not os.path.exists(os.path.join(CUDA_LIB, "libcudnn.so.9")):
            self.skipTest("no libcudnn.so.9")
        kv = self._child("libcudnn.so.9", "cudnn")
        st = self._static("libcudnn.so.9")
        self.assertEqual(kv["version"], ".".join(st.split(".")[:3]))
        self.assertIn("cudart_version", kv)

    def test_libversion_nccl(self):
        if not os.path.exists(os.path.join(CUDA_LIB, "libnccl.so.2")):
            self.skipTest("no libnccl.so.2")
        kv = self._child("libnccl.so.2", "nccl")
        st = self._static("libnccl.so.2")
        self.assertEqual(kv["version"], ".".join(st.split(".")[:3]))

    def test_libversion_cublas(self):
        kv = self._child("libcublas.so.13", "cublas")
        st = self._static("libcublas.so.13")
        self.assertEqual(kv["version"], ".".join(st.split(".")[:3]))

    def test_nothing_read_whole(self):
        self.assertTrue(self.doc_plain["inventory"]["libraries"], "no library was found to judge")
        for c in self.doc_plain["inventory"]["libraries"]:
            with self.subTest(path=c["path"]):
                self.assertLess(c["bytes_read"], 64 * 1024)
                if c["size_bytes"] and c["size_bytes"] > 1 << 20:
                    self.assertLess(c["bytes_read"], c["size_bytes"] / 100)

    def test_no_library_problem_on_this_machine(self):
        bad = [f for f in self.doc_llp["findings"]
               if f["layer"] == "libraries" and f["status"] in ("fail", "warn")]
        self.assertEqual(bad, [], json.dumps(bad, indent=1))

    def test_static_probe_is_fast(self):
        secs = self.doc_plain["inventory"]["libraries_loader"]["seconds"]
        self.assertLess(secs, 0.1)


if __name__ == "__main__":
    unittest.main()
