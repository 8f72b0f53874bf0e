"""The libraries layer: copies, versions, winners, and every cause id it reports.

Each cause id has a test that produces it and the healthy test that shows it
absent.  Fixtures: fixtures_libs.py on top of fixtures.healthy_root().
"""
import os
import shutil
import subprocess
import unittest

import gdtest
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env, finding, layer
import fixtures
import fixtures_libs as fl

MY_CAUSES = ("cuda-runtime-missing", "cuda-runtime-too-new-for-driver", "cudnn-missing",
             "cudnn-version-mismatch", "cudnn-incomplete", "lib-unreadable", "lib-corrupt",
             "lib-shadowed", "lib-dependency-missing", "cuda-symlink-broken", "nccl-missing")


class Healthy(GDTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, "usr/local/cuda-13.0/lib64")
        fl.register_dir(r, "usr/local/cuda-13.0/lib64")
        fl.add_cudnn_header(r, "9.19.0")
        cls.root = r
        cls.doc = check(r)
        cls.noload = check(r, "--no-load")

    def test_no_library_cause(self):
        for doc in (self.doc, self.noload):
            for c in MY_CAUSES:
                assert_no_cause(self, doc, c)
            self.assertEqual(layer(doc, "libraries")["status"], "ok")

    def test_inventory_names_winner_and_version(self):
        c = fl.lib_entry(self.noload, "lib64/libcudart.so.13")
        self.assertIsNotNone(c, self.noload["inventory"]["libraries"])
        self.assertTrue(c["winner"])
        self.assertEqual(c["soname"], "libcudart.so.13")
        self.assertEqual(c["version"], "13.0.96")
        self.assertEqual(c["version_source"], "file-name")
        self.assertEqual(c["reachable_as"], "cache")
        self.assertTrue(c["owner"].startswith("toolkit /usr/local/cuda-13.0"))
        self.assertGreater(c["size_bytes"], 0)
        self.assertIsNone(c["problem"])
        self.assertEqual(c["missing_deps"], [])

    def test_cudnn_subs_from_shim_dir(self):
        subs = self.noload["inventory"]["libraries_loader"]["cudnn_subs"]
        self.assertEqual(len(subs), 7)
        for s in subs:
            self.assertRegex(s["path"], r"^/usr/local/cuda(-13.0)?/lib64/libcudnn_", s)
            self.assertEqual(s["version"], "9.19.0")

    def test_live_confirms_versions(self):
        live = {l["kind"]: l for l in self.doc["inventory"]["libraries_loader"]["live"]}
        if not live:
            self.skipTest("live probe blocked by a lower layer")
        self.assertEqual(live["cudart"]["version"], "13.0")
        self.assertEqual(live["cublas"]["version"], "13.1.0")
        self.assertEqual(live["cudnn"]["version"], "9.19.0")
        self.assertEqual(live["cudnn"]["cudart_version"], "13.0")
        for l in live.values():
            self.assertTrue(l["ok"], l)

    def test_verbose_shows_bytes_read(self):
        rc, out, err = gdtest.run(["-v", "--no-load", "check"], root=self.root.path,
                                  env=clean_env())
        self.assertIn("bytes", out)
        self.assertRegex(out, r"read \d+ of \d+ bytes")


class NoToolkit(GDTestCase):
    def test_no_toolkit_no_framework_is_not_failure(self):
        doc = check(fixtures.healthy_root(), "--no-load")
        for c in MY_CAUSES:
            assert_no_cause(self, doc, c)
        self.assertIn(layer(doc, "libraries")["status"], ("ok", "skipped"))
        self.assertIsNotNone(finding(doc, fid="libraries.none"))


class Corrupt(GDTestCase):
    def test_truncated_runtime(self):
        r = fl.healthy_libs_root()
        p = r.p("usr/local/cuda-13.0/lib64/libcudart.so.13.0.96")
        with open(p, "rb") as f:
            head = f.read(200)
        with open(p, "wb") as f:
            f.write(head)
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "lib-corrupt")
        self.assertIn("libcudart", f["title"])
        self.assertIn("truncated", " ".join(f["evidence"]) + f["title"])

    def test_not_elf(self):
        r = fl.healthy_libs_root()
        r.write(fl.inside(r, "usr/local/cuda-13.0/lib64/libcufft.so.12.0.0.61"),
                "this is not ELF\n" * 10)
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "lib-corrupt")
        self.assertIn("libcufft", f["title"])


class Unreadable(GDTestCase):
    def _root(self):
        r = fl.healthy_libs_root()
        os.chmod(r.p("usr/local/cuda-13.0/lib64/libcublas.so.13.1.0.3"), 0o600)
        return r

    def test_root_only_warns_when_run_as_root(self):
        if os.geteuid() != 0:
            self.skipTest("needs to run as root")
        doc = check(self._root(), "--no-load")
        f = assert_cause(self, doc, "lib-root-only", status="warn")
        self.assertIn("only by root", f["title"])

    def test_unreadable_for_nobody(self):
        setpriv = shutil.which("setpriv")
        if os.geteuid() != 0 or not setpriv:
            self.skipTest("needs root and setpriv to run gpudoctor as nobody")
        r = self._root()
        fl.make_world_readable(r.path)
        os.chmod(r.p("usr/local/cuda-13.0/lib64/libcublas.so.13.1.0.3"), 0o600)
        exe = gdtest.GPUDOCTOR
        # nobody must be able to run the binary: copy it somewhere world-readable
        tmpexe = os.path.join(r.path, "gpudoctor-bin")
        shutil.copy(exe, tmpexe)
        os.chmod(tmpexe, 0o755)
        p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                            tmpexe, "--root", r.path, "--json", "--no-load", "check"],
                           capture_output=True, text=True, env=clean_env(), timeout=60)
        import json
        doc = json.loads(p.stdout)
        f = assert_cause(self, doc, "lib-unreadable")
        self.assertIn("libcublas", f["title"])
        self.assertEqual(f["status"], "fail")


class DependencyMissing(GDTestCase):
    def test_cusolver_needs_nvjitlink(self):
        def cusolver(r, lib):
            fl._lib(r, lib, "libcusolver.so", "libcusolver.so.12", "12.0.4.66",
                    needed=("libnvJitLink.so.13",), runpath="$ORIGIN")
        r = fixtures.healthy_root()
        fl.add_toolkit(r, extra=(cusolver,))
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "lib-dependency-missing", status="fail")
        self.assertIn("libnvJitLink.so.13", f["title"])

    def test_dep_in_same_dir_is_found(self):
        def both(r, lib):
            fl._lib(r, lib, "libnvJitLink.so", "libnvJitLink.so.13", "13.0.88")
            fl._lib(r, lib, "libcusolver.so", "libcusolver.so.12", "12.0.4.66",
                    needed=("libnvJitLink.so.13",), runpath="$ORIGIN")
        r = fixtures.healthy_root()
        fl.add_toolkit(r, extra=(both,))
        assert_no_cause(self, check(r, "--no-load"), "lib-dependency-missing")


class Shadowed(GDTestCase):
    """The H200 case: LD_LIBRARY_PATH puts the system cuDNN 9.14 before the wheel's 9.19."""

    def _root(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, fl.SYSLIB, version="9.14.0")
        site = fl.add_venv(r)
        fl.add_wheel_cudnn(r, site, version="9.19.0.56")
        return r

    def test_llp_shadows_wheel_subs(self):
        r = self._root()
        env = clean_env(LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu", VIRTUAL_ENV="/opt/venv")
        doc = check(r, "--no-load", env=env)
        f = assert_cause(self, doc, "lib-shadowed")
        text = " ".join(f["evidence"]) + f["fix"]
        self.assertIn("/usr/lib/x86_64-linux-gnu", text)
        self.assertIn("LD_LIBRARY_PATH", f["fix"])
        w = fl.lib_entry(doc, "usr/lib/x86_64-linux-gnu/libcudnn.so.9")
        self.assertTrue(w["winner"])
        self.assertEqual(w["reachable_as"], "ld-library-path")
        wh = fl.lib_entry(doc, "nvidia/cudnn/lib/libcudnn.so.9")
        self.assertEqual(wh["version"], "9.19.0.56")
        self.assertEqual(wh["version_source"], "dist-info")
        self.assertIn("nvidia-cudnn-cu13", wh["owner"])
        self.assertFalse(wh["winner"])

    def test_without_llp_no_shadowing(self):
        r = self._root()
        doc = check(r, "--no-load", env=clean_env(VIRTUAL_ENV="/opt/venv"))
        assert_no_cause(self, doc, "lib-shadowed")

    def test_cache_winner_older_than_wheel_is_a_note(self):
        """The H200 false alarm: ld.so.cache's libcudnn.so.9 is the system 9.14, the active
        venv has the wheel's 9.19, which only its framework loads (through RPATH)."""
        r = self._root()
        fl.register_dir(r, fl.SYSLIB)
        doc = check(r, "--no-load", env=clean_env(VIRTUAL_ENV="/opt/venv"))
        assert_no_cause(self, doc, "lib-shadowed")
        w = fl.lib_entry(doc, "usr/lib/x86_64-linux-gnu/libcudnn.so.9")
        self.assertTrue(w["winner"], w)
        inv = finding(doc, fid="libraries.inventory")
        notes = [e for e in inv["evidence"] if e.startswith("libcudnn.so.9: the machine-wide pick")]
        self.assertEqual(len(notes), 1, inv["evidence"])
        self.assertIn("9.19.0.56", notes[0])
        self.assertIn("loaded by its framework through RPATH", notes[0])
        self.assertEqual(inv["status"], "ok")
        self.assertEqual(layer(doc, "libraries")["status"], "ok")
        subs = [s for s in doc["inventory"]["libraries_loader"]["cudnn_subs"]
                if "nvidia/cudnn" in s["shim"]]
        self.assertEqual(len(subs), 7)
        for s in subs:
            self.assertIn("nvidia/cudnn/lib", s["path"])


class ToolkitShadowed(GDTestCase):
    """Real shadowing stays lib-shadowed: an older libcudart on LD_LIBRARY_PATH before
    the active toolkit's."""

    def test_older_runtime_on_llp(self):
        r = fl.healthy_libs_root()
        fl._lib(r, "opt/old/lib", "libcudart.so", "libcudart.so.13", "13.0.48",
                      source=fl.cudart_source("13.0.48"))
        doc = check(r, "--no-load", env=clean_env(LD_LIBRARY_PATH="/opt/old/lib"))
        f = finding(doc, fid="libraries.shadowed")
        self.assertIsNotNone(f, [x["id"] for x in doc["findings"]])
        self.assertEqual(f["cause"], "lib-shadowed")
        self.assertIn("13.0.96", f["title"])
        self.assertIn("/opt/old/lib/libcudart.so.13 (13.0.48", " ".join(f["evidence"]))
        self.assertIn("LD_LIBRARY_PATH", f["fix"])


class CudnnIncomplete(GDTestCase):
    def test_missing_sub_library(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, "usr/local/cuda-13.0/lib64",
                     subs=[s for s in fl.CUDNN9_SUBS if s != "ops"])
        fl.register_dir(r, "usr/local/cuda-13.0/lib64")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cudnn-incomplete", status="fail")
        self.assertIn("libcudnn_ops.so.9", " ".join(f["evidence"]))

    def test_mixed_releases_in_one_dir(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, fl.SYSLIB, version="9.19.0", sub_versions={"cnn": "9.14.0"})
        fl.register_dir(r, fl.SYSLIB)
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cudnn-incomplete")
        self.assertIn("mixes releases", f["title"])
        self.assertIn("9.14.0", " ".join(f["evidence"]))


class CudnnVersion(GDTestCase):
    def test_header_newer_than_library(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, fl.SYSLIB, version="9.14.0")
        fl.register_dir(r, fl.SYSLIB)
        fl.add_cudnn_header(r, "9.19.0")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cudnn-version-mismatch")
        self.assertIn("9.14.0", f["title"])

    def test_header_without_library(self):
        r = fl.healthy_libs_root()
        fl.add_cudnn_header(r, "9.19.0")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cudnn-missing", status="warn")
        self.assertIn("libcudnn.so.9", f["title"])


class Runtime(GDTestCase):
    def test_toolkit_without_cudart(self):
        r = fixtures.healthy_root()
        fl.add_toolkit(r, cudart_lib=False)
        doc = check(r, "--no-load")
        assert_cause(self, doc, "cuda-runtime-missing", status="fail")

    def test_toolkit_not_on_loader_path(self):
        r = fixtures.healthy_root()
        fl.add_toolkit(r, cache=False)
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cuda-runtime-missing", status="warn")
        self.assertIn("ldconfig", f["fix"])

    def test_runtime_too_new_for_driver(self):
        r = fixtures.healthy_root(driver_version="535.104.05")
        fl.add_toolkit(r)
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cuda-runtime-too-new-for-driver", status="fail")
        self.assertIn("535.104.05", f["title"])


class Symlink(GDTestCase):
    def test_dangling(self):
        r = fl.healthy_libs_root()
        r.symlink("usr/local/cuda", "/usr/local/cuda-12.4")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "cuda-symlink-broken")
        self.assertIn("points nowhere", f["title"])

    def test_other_version_than_nvcc(self):
        r = fl.healthy_libs_root()
        fl.add_toolkit(r, mm="12.4", full="12.4.1", cudart="12.4.127", cublas="12.4.5.8",
                       link=False)
        env = clean_env(PATH="/usr/local/cuda-12.4/bin:/usr/bin:/bin")
        doc = check(r, "--no-load", env=env)
        f = assert_cause(self, doc, "cuda-symlink-broken")
        self.assertIn("12.4.1", f["title"])
        self.assertIn("13.0.2", f["title"])

    # CI's machine: /usr/local/bin/nvcc is '#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"'
    # and comes first on PATH.  It is the same toolkit: no warning.
    def test_wrapper_script_to_the_same_toolkit(self):
        r = fl.healthy_libs_root()
        r.write("usr/local/bin/nvcc", '#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n',
                mode=0o755)
        env = clean_env(PATH="/usr/local/bin:/usr/bin:/bin")
        doc = check(r, "--no-load", env=env)
        assert_no_cause(self, doc, "cuda-symlink-broken")
        nvcc = doc["inventory"]["libraries_loader"]["nvcc"]
        self.assertEqual(nvcc["wrapper"], "/usr/local/bin/nvcc")
        self.assertEqual(nvcc["toolkit"], "/usr/local/cuda-13.0")
        self.assertEqual(nvcc["version"], "13.0.2")

    def test_wrapper_script_to_another_toolkit(self):
        r = fl.healthy_libs_root()
        fl.add_toolkit(r, mm="12.4", full="12.4.1", cudart="12.4.127", cublas="12.4.5.8",
                       link=False)
        r.write("usr/local/bin/nvcc", "#!/bin/bash\n# pinned\nexec '/usr/local/cuda-12.4/bin/nvcc' \"$@\"\n",
                mode=0o755)
        env = clean_env(PATH="/usr/local/bin:/usr/bin:/bin")
        doc = check(r, "--no-load", env=env)
        f = assert_cause(self, doc, "cuda-symlink-broken")
        self.assertIn("12.4.1", f["title"])
        self.assertTrue(any("script that runs the nvcc of /usr/local/cuda-12.4" in e
                            for e in f["evidence"]), f["evidence"])
        self.assertIn("ln -sfn /usr/local/cuda-12.4 /usr/local/cuda", f["fix"])

    # A script whose target needs the shell to expand it names no toolkit;
    # claiming a mismatch (and proposing 'ln -sfn /usr/local ...') would be wrong.
    def test_script_we_cannot_follow_is_not_a_mismatch(self):
        r = fl.healthy_libs_root()
        r.write("usr/local/bin/nvcc", '#!/bin/sh\nexec "$CUDA_HOME/bin/nvcc" "$@"\n', mode=0o755)
        env = clean_env(PATH="/usr/local/bin:/usr/bin:/bin")
        doc = check(r, "--no-load", env=env)
        assert_no_cause(self, doc, "cuda-symlink-broken")
        self.assertIsNone(doc["inventory"]["libraries_loader"]["nvcc"]["version"])


class Preload(GDTestCase):
    def test_etc_ld_so_preload_entry_missing(self):
        r = fl.healthy_libs_root()
        r.write("etc/ld.so.preload", "/usr/lib/libgone.so\n")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "preload-broken")
        self.assertIn("/etc/ld.so.preload names /usr/lib/libgone.so", f["title"])
        self.assertIn("cannot be preloaded (cannot open shared object file): ignored.", f["evidence"][0])
        self.assertIn("/etc/ld.so.preload", f["fix"])

    def test_preloaded_cuda_runtime_wins_everywhere(self):
        r = fl.healthy_libs_root()
        fl._lib(r, "opt/pin", "libcudart.so", "libcudart.so.13", "13.0.48")
        r.write("etc/ld.so.preload", "# pinned runtime\n/opt/pin/libcudart.so.13\n")
        doc = check(r, "--no-load")
        assert_no_cause(self, doc, "preload-broken")
        loader = doc["inventory"]["libraries_loader"]
        self.assertEqual([(p["name"], p["soname"]) for p in loader["preloads"]],
                         [("/opt/pin/libcudart.so.13", "libcudart.so.13")])
        (res,) = [x for x in loader["resolved"] if x["soname"] == "libcudart.so.13"]
        self.assertEqual((res["path"], res["source"]), ("/opt/pin/libcudart.so.13", "preload"))


class Nccl(GDTestCase):
    def test_headers_without_library(self):
        r = fl.healthy_libs_root()
        r.write(fl.inside(r, "usr/local/cuda-13.0/include/nccl.h"), "#define NCCL_MAJOR 2\n")
        doc = check(r, "--no-load")
        assert_cause(self, doc, "nccl-missing", status="warn")

    def test_library_present(self):
        r = fl.healthy_libs_root()
        r.write(fl.inside(r, "usr/local/cuda-13.0/include/nccl.h"), "#define NCCL_MAJOR 2\n")
        fl._lib(r, "usr/local/cuda-13.0/lib64", "libnccl.so", "libnccl.so.2", "2.28.9",
                source=fl.nccl_source("2.28.9"))
        fl.register_dir(r, "usr/local/cuda-13.0/lib64")
        doc = check(r, "--no-load")
        assert_no_cause(self, doc, "nccl-missing")


class Live(GDTestCase):
    def test_library_disagrees_with_its_files(self):
        r = fixtures.healthy_root()
        fl.add_toolkit(r, cudart_src="int cudaRuntimeGetVersion(int *v) { *v = 12040; return 0; }\n")
        doc = check(r)
        live = doc["inventory"]["libraries_loader"]["live"]
        if not live:
            self.skipTest("live probe blocked by a lower layer: "
                          + str([(l["id"], l["status"]) for l in doc["layers"]]))
        f = assert_cause(self, doc, "lib-version-conflict", status="warn")
        self.assertIn("12.4", f["title"])
        self.assertIn("13.0.96", f["title"])

    def test_library_agrees(self):
        r = fixtures.healthy_root()
        fl.add_toolkit(r, cudart_src="int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }\n")
        doc = check(r)
        live = [l for l in doc["inventory"]["libraries_loader"]["live"] if l["kind"] == "cudart"]
        if not live:
            self.skipTest("live probe blocked by a lower layer")
        self.assertTrue(live[0]["ok"], live)
        self.assertEqual(live[0]["version"], "13.0")
        c = fl.lib_entry(doc, "lib64/libcudart.so.13")
        self.assertEqual(c["live_version"], "13.0")
        assert_no_cause(self, doc, "lib-corrupt")

    def test_child_crash_is_a_finding(self):
        r = fixtures.healthy_root()
        fl.add_toolkit(r, cudart_src="int cudaRuntimeGetVersion(int *v) { volatile int *p = 0; "
                                        "(void)v; return *p; }\n")
        doc = check(r)
        if not doc["inventory"]["libraries_loader"]["live"]:
            self.skipTest("live probe blocked by a lower layer")
        f = assert_cause(self, doc, "lib-corrupt")
        ev = " ".join(f["evidence"])
        if "AddressSanitizer" in ev:
            # a sanitized gpudoctor child reports the SEGV itself and exits 1
            self.assertIn("SEGV", ev)
        else:
            self.assertEqual(f["status"], "fail")
            self.assertIn("SIGSEGV", ev)

    def test_child_on_fixture(self):
        r = gdtest.Root()
        p = r.shared_lib("libnccl.so.2", soname="libnccl.so.2",
                         source="int ncclGetVersion(int *v) { *v = 22809; return 0; }\n")
        rc, out, err = gdtest.run(["__probe", "libversion", p, "nccl"])
        self.assertEqual(rc, 0, err)
        self.assertIn("version=2.28.9", out)
        self.assertIn("raw=22809", out)
        self.assertTrue(out.rstrip().endswith("end"))


if __name__ == "__main__":
    unittest.main()
