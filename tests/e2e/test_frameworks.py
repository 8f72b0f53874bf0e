"""The frameworks layer on fixture machines: TensorFlow, PyTorch, JAX and CuPy
laid out as their wheels install them (tests/e2e/fixtures_fw.py), judged
without importing anything."""
import json
import os
import unittest

import fixtures
import fixtures_fw as fw
import fixtures_libs
from gdtest import GDTestCase, Root, assert_cause, assert_no_cause, check, clean_env, finding

SITE = "opt/venv/lib/python3.11/site-packages"


def env(**kw):
    e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv")
    e.update({k: str(v) for k, v in kw.items()})
    return e


def fws(doc, name=None):
    return [f for f in doc["inventory"]["frameworks"] if name is None or f["name"] == name]


def lib(entry, soname):
    for l in entry["libraries"]:
        if l["soname"] == soname:
            return l
    raise KeyError(f"{soname} not in {[l['soname'] for l in entry['libraries']]}")


def cupy14_root():
    """cupy-cuda13x 14.2 as on the H200: the CUDA runtime linked into runtime*.so, the other
    libraries left to cuda-pathfinder (a Requires-Dist)."""
    r = fixtures.healthy_root()
    site = fw.add_venv(r)
    fw.add_dist(r, site, "cupy-cuda13x", "14.2.0", requires=["cuda-pathfinder==1.*,>=1.3.4"])
    r.shared_lib(f"{site}/cupy_backends/cuda/api/runtime.cpython-311-x86_64-linux-gnu.so")
    return r, site


def fw_findings(doc):
    return [f for f in doc["findings"] if f["layer"] == "frameworks"]


class NoFrameworks(GDTestCase):
    def test_none_installed_is_skipped_not_failed(self):
        r = fixtures.healthy_root()
        fw.add_venv(r)
        doc = check(r, env=env())
        f = finding(doc, fid="frameworks.none")
        self.assertIsNotNone(f, json.dumps(fw_findings(doc), indent=1))
        self.assertEqual(f["status"], "skipped")
        self.assertTrue(any("/opt/venv" in e for e in f["evidence"]))
        self.assertEqual(fws(doc), [])


class TensorFlow(GDTestCase):
    def test_and_cuda_wheels_resolve_through_runpath(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site, and_cuda_pins=["nvidia-cudnn-cu12==8.9.4.25"])
        fw.add_cuda12_wheels(r, site)
        doc = check(r, env=env())
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(t["version"], "2.15.0")
        self.assertEqual(t["cuda_build"], "12.2")
        self.assertEqual(t["flavour"], "cuda")
        self.assertEqual(t["archs"], ["sm_50", "sm_60", "sm_70", "sm_75", "compute_80"])
        cudart = lib(t, "libcudart.so.12")
        self.assertEqual(cudart["path"], f"/{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12")
        self.assertEqual(cudart["source"], "runpath")
        self.assertEqual(cudart["wheel"], "nvidia-cuda-runtime-cu12 12.2.140")
        self.assertEqual(lib(t, "libcudnn.so.8")["version"], "8.9.4.25")
        self.assertEqual(t["prediction"], "gpu", json.dumps(t, indent=1))
        for c in ("framework-cuda-mismatch", "cuda-runtime-missing", "cudnn-missing", "framework-cpu-only"):
            assert_no_cause(self, doc, c)
        s = finding(doc, fid="frameworks.opt_venv.tensorflow")
        self.assertEqual(s["status"], "ok", json.dumps(s, indent=1))
        self.assertIn("will use GPU 0 (NVIDIA H200", s["title"])

    def test_215_without_its_cuda_wheels_runs_on_cpu(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        doc = check(r, env=env())
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(t["prediction"], "cpu")
        self.assertIsNone(lib(t, "libcudart.so.12")["path"])
        f = assert_cause(self, doc, "cuda-runtime-missing", "fail")
        self.assertIn("tensorflow[and-cuda]==2.15.0", f["fix"])
        assert_cause(self, doc, "cudnn-missing", "fail")
        s = assert_cause(self, doc, "framework-cuda-mismatch", "fail")
        self.assertIn("will run on the CPU only, because", s["title"])
        self.assertIn("libcudart.so.12", s["title"])

    def test_missing_transitive_dependency(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        fw.add_cuda12_wheels(r, site)
        r.remove(f"{site}/nvidia/nvjitlink")
        doc = check(r, env=env())
        f = finding(doc, fid=f"frameworks.opt_venv.tensorflow.libcusolver.so.11")
        self.assertIsNotNone(f, json.dumps(fw_findings(doc), indent=1))
        self.assertEqual((f["status"], f["cause"]), ("fail", "lib-dependency-missing"))
        self.assertIn("libnvJitLink.so.12", f["title"])
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(lib(t, "libcusolver.so.11")["missing_dependency"], "libnvJitLink.so.12")
        self.assertEqual(t["prediction"], "cpu")

    def test_installed_but_off_the_search_path(self):
        """TF 2.21's libtensorflow_framework.so.2 has no nvidia/cusolver/lib in its RUNPATH, so
        its DsoLoader cannot load libcusolver.so.11 from tensorflow[and-cuda] (shown with the real
        TF 2.21.0 in tests/integration/test_wheels.py).  Reinstalling is not the fix."""
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site, runpath_components=[c for c in fw.TF_COMPONENTS if c != "cusolver"])
        fw.add_cuda12_wheels(r, site)
        doc = check(r, env=env())
        f = finding(doc, fid="frameworks.opt_venv.tensorflow.libcusolver.so.11")
        self.assertEqual((f["status"], f["cause"]), ("fail", "lib-off-search-path"), json.dumps(f, indent=1))
        d = f"/{SITE}/nvidia/cusolver/lib"
        self.assertEqual(f["fix"], f"export LD_LIBRARY_PATH={d}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}")
        self.assertTrue(any(f"{d}/libcusolver.so.11 is in this environment" in e for e in f["evidence"]))
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(lib(t, "libcusolver.so.11")["unreached"], f"{d}/libcusolver.so.11")
        self.assertEqual(t["prediction"], "cpu")
        s = finding(doc, fid="frameworks.opt_venv.tensorflow")
        self.assertEqual(s["cause"], "lib-off-search-path")
        assert_no_cause(self, doc, "cuda-runtime-missing")
        # the fix, applied: the loader now finds it through LD_LIBRARY_PATH
        doc = check(r, env=env(LD_LIBRARY_PATH=d))
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(lib(t, "libcusolver.so.11")["source"], "ld-library-path")
        self.assertEqual(t["prediction"], "gpu", json.dumps(t, indent=1))
        assert_no_cause(self, doc, "lib-off-search-path")

    def test_cpu_package_on_a_gpu_machine(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site, dist="tensorflow-cpu", build_info=fw.TF_BUILD_INFO_CPU)
        doc = check(r, env=env())
        f = assert_cause(self, doc, "framework-cpu-only", "warn")
        self.assertIn("will run on the CPU only", f["title"])
        self.assertIn("tensorflow[and-cuda]", f["fix"])
        self.assertIn("uninstall -y tensorflow-cpu", f["fix"])
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(t["prediction"], "cpu")
        self.assertEqual(t["flavour"], "cpu")

    def test_gpu_stub(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_dist(r, site, "tensorflow-gpu", "2.12.0", summary="Removed: please install tensorflow instead")
        doc = check(r, env=env())
        (t,) = fws(doc, "tensorflow")
        self.assertEqual(t["flavour"], "stub")
        f = assert_cause(self, doc, "framework-cpu-only", "fail")
        self.assertIn("stub", f["title"])

    def test_python_outside_the_release_range(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r, py="3.12")
        fw.add_tensorflow(r, site, build_info=fw.TF_BUILD_INFO_CPU, dist="tensorflow-cpu")
        doc = check(r, env=env())
        f = assert_cause(self, doc, "framework-python-unsupported", "warn")
        self.assertIn("3.9-3.11", f["title"])
        r2 = fixtures.healthy_root()
        site2 = fw.add_venv(r2, py="3.11")
        fw.add_tensorflow(r2, site2, build_info=fw.TF_BUILD_INFO_CPU, dist="tensorflow-cpu")
        assert_no_cause(self, check(r2, env=env()), "framework-python-unsupported")

    def test_driver_too_old_for_cuda_12(self):
        # an A100 (10de:20b0): R470 knows it, as it does not know the H200
        r = fixtures.healthy_root(driver_version="470.256.02", device_id=0x20b0)
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        fw.add_cuda12_wheels(r, site)
        doc = check(r, env=env())
        f = assert_cause(self, doc, "framework-driver-too-old", "fail")
        self.assertIn("470.256.02", f["title"])
        assert_no_cause(self, check(fw_healthy_tf(), env=env()), "framework-driver-too-old")


def fw_healthy_tf():
    r = fixtures.healthy_root()
    site = fw.add_venv(r)
    fw.add_tensorflow(r, site)
    fw.add_cuda12_wheels(r, site)
    return r


class Torch(GDTestCase):
    def healthy(self, archs=("sm_80", "sm_90"), device_id=fixtures.H200_PCI_ID, fatbin_counts=None):
        r = fixtures.healthy_root(device_id=device_id)
        site = fw.add_venv(r)
        fw.add_torch(r, site, archs=archs, fatbin_counts=fatbin_counts)
        fw.add_torch_cu12_wheels(r, site)
        return r, site

    def test_rpath_outranks_ld_library_path(self):
        r, site = self.healthy()
        sysdir = fw.add_system_cudnn(r)
        r.shared_lib("opt/other/libcudart.so.12", soname="libcudart.so.12")
        doc = check(r, env=env(LD_LIBRARY_PATH=f"/opt/other:{sysdir}"))
        (t,) = fws(doc, "torch")
        self.assertEqual(t["cuda_build"], "12.4")
        self.assertEqual(t["local_tag"], "cu124")
        cudart = lib(t, "libcudart.so.12")
        self.assertEqual(cudart["source"], "rpath")
        self.assertEqual(cudart["path"], f"/{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12")
        self.assertEqual(lib(t, "libcudnn.so.9")["source"], "rpath")
        # ... but cuDNN's shim has RUNPATH $ORIGIN: LD_LIBRARY_PATH wins for its sub-libraries
        g = lib(t, "libcudnn_graph.so.9")
        self.assertEqual(g["source"], "ld-library-path")
        self.assertEqual(g["version"], "9.14.0")
        f = finding(doc, fid="frameworks.opt_venv.torch.cudnn")
        self.assertEqual(f["cause"], "cudnn-version-mismatch", json.dumps(f, indent=1))
        # fail, or warn when a lower layer (libraries, which sees the same LD_LIBRARY_PATH) failed first
        self.assertIn(f["status"], ("fail", "warn"))
        self.assertIn("LD_LIBRARY_PATH", f["fix"])

    def test_llp_cudnn_is_one_finding_per_framework(self):
        """The H200 run: 7 sub-libraries of the system cuDNN 9.14 before the wheel's shim
        made 7 findings and a summary repeating the reason 7 times, fixed by a reinstall."""
        r, site = self.healthy()
        sysdir = fw.add_system_cudnn(r)
        doc = check(r, env=env(LD_LIBRARY_PATH=sysdir))
        mine = [f for f in fw_findings(doc) if f["id"].startswith("frameworks.opt_venv.torch.")]
        self.assertEqual([f["id"] for f in mine], ["frameworks.opt_venv.torch.cudnn"],
                         json.dumps(mine, indent=1))
        (f,) = mine
        self.assertEqual(f["cause"], "cudnn-version-mismatch")
        self.assertEqual(f["title"], "PyTorch 2.5.1+cu124's cuDNN 9.1.0 shim would load sub-libraries "
                                     f"of cuDNN 9.14.0 from {sysdir} (LD_LIBRARY_PATH)")
        ev = "\n".join(f["evidence"])
        for s in fw.CUDNN9_SUBS:
            self.assertIn(f"{s}.so.9 -> {sysdir}/{s}.so.9.14.0", ev)
        self.assertIn("DT_RUNPATH '$ORIGIN' and no DT_RPATH", ev)
        self.assertEqual(f["fix"], "export LD_LIBRARY_PATH=$(printf %s \"$LD_LIBRARY_PATH\" | tr ':' '\\n'"
                                   f" | grep -vxF -e {sysdir} | paste -sd:)")
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertIn(s["status"], ("fail", "warn"))  # warn when the libraries layer failed first
        self.assertEqual(s["cause"], "cudnn-version-mismatch")
        self.assertEqual(s["title"].count("come from another release"), 1, s["title"])
        self.assertEqual(s["fix"], f["fix"])
        self.assertNotIn("reinstall", s["fix"])
        self.assertIn("0 can use the GPU, 0 CPU only, 1 broken",
                      [l for l in doc["layers"] if l["id"] == "frameworks"][0]["summary"])

    def test_healthy_has_no_mismatch(self):
        r, site = self.healthy()
        fw.add_system_cudnn(r)
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(lib(t, "libcudnn_graph.so.9")["source"], "runpath")
        self.assertEqual(lib(t, "libcudnn.so.9")["version"], "9.1.0.70")
        self.assertEqual(t["prediction"], "gpu")
        for c in ("cudnn-version-mismatch", "lib-shadowed", "gpu-arch-unsupported", "cuda-runtime-missing"):
            assert_no_cause(self, doc, c)
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertEqual(s["status"], "ok", json.dumps(s, indent=1))
        self.assertIn("sm_90", s["title"])
        self.assertIn("cuDNN 9.1.0.70", s["title"])

    def test_archs_from_fatbin(self):
        r, site = self.healthy(archs=("sm_75", "sm_90", "compute_90"))
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["archs"], ["sm_75", "sm_90", "compute_90"])
        self.assertEqual(t["archs_source"], "fatbin")

    def test_few_kernels_are_not_a_build(self):
        """torch 2.11.0+cu130 on the H200: the fatbin has sm_90a etc. for a few kernels
        (FlashAttention), get_arch_list() does not: only substantial archs are "built for"."""
        counts = {"sm_75": 12, "sm_80": 12, "sm_90": 12, "sm_90a": 1, "sm_100": 12, "sm_121a": 1}
        r, site = self.healthy(archs=tuple(counts), fatbin_counts=counts)
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["archs"], ["sm_75", "sm_80", "sm_90", "sm_100"])
        self.assertEqual(t["archs_partial"], ["sm_90a", "sm_121a"])
        self.assertEqual(t["arch_entries"], counts)
        assert_no_cause(self, doc, "gpu-arch-unsupported")
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertIn("GPU code: sm_75 sm_80 sm_90 sm_100 (fatbin)", s["evidence"])
        self.assertTrue(any(e.startswith("also has a few kernels for sm_90a (1), sm_121a (1)")
                            for e in s["evidence"]), s["evidence"])

    def test_few_kernels_do_not_make_a_gpu_supported(self):
        # the H200 (sm_90) with a build for sm_80 and a single sm_90a kernel
        counts = {"sm_80": 20, "sm_90a": 1}
        r, site = self.healthy(archs=tuple(counts), fatbin_counts=counts)
        doc = check(r, env=env())
        f = assert_cause(self, doc, "gpu-arch-unsupported")
        self.assertIn("built for: sm_80 (fatbin", " ".join(f["evidence"]))
        self.assertTrue(any("few kernels for sm_90a (1)" in e for e in f["evidence"]), f["evidence"])
        self.assertIn("1 broken", [l for l in doc["layers"] if l["id"] == "frameworks"][0]["summary"])

    def test_pascal_on_a_sm75_plus_build(self):
        # GTX 1080 (10de:1b80, CC 6.1) with a build for 7.5+
        r, site = self.healthy(archs=("sm_75", "sm_80", "sm_90"), device_id=0x1b80)
        # the fake libcuda always says H200: leave the GPU's identity to PCI id + knowledge base
        doc = check(r, env=env(FAKE_CUDA_DEVICES=0))
        f = assert_cause(self, doc, "gpu-arch-unsupported")
        self.assertIn("sm_61", f["title"])
        self.assertTrue(any("sm_75 sm_80 sm_90" in e for e in f["evidence"]), f["evidence"])

    def test_missing_needed_breaks_import(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_torch(r, site)
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["prediction"], "broken")
        f = assert_cause(self, doc, "cuda-runtime-missing", "fail")
        self.assertIn("torch==2.5.1+cu124", f["fix"])
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertIn("will fail to import", s["title"])

    def test_cpu_wheel(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_torch(r, site, version="2.5.1+cpu", cuda="None", cudnn_pin=None)
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["flavour"], "cpu")
        self.assertEqual(t["local_tag"], "cpu")
        f = assert_cause(self, doc, "framework-cpu-only", "warn")
        self.assertIn("PyTorch 2.5.1+cpu", f["title"])


class JaxCupy(GDTestCase):
    def test_jax_plugin_preloads_wheels(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_dist(r, site, "jax", "0.7.2")
        fw.add_dist(r, site, "jaxlib", "0.7.2")
        fw.add_dist(r, site, "jax-cuda12-plugin", "0.7.2")
        fw.add_dist(r, site, "jax-cuda12-pjrt", "0.7.2")
        r.shared_lib(f"{site}/jax_plugins/xla_cuda12/xla_cuda_plugin.so", soname="xla_cuda_plugin.so")
        fw.add_torch_cu12_wheels(r, site, cudnn="9.8.0.87")
        doc = check(r, env=env())
        (j,) = fws(doc, "jax")
        self.assertEqual(lib(j, "libcudart.so.12")["source"], "preload")
        self.assertIsNone(lib(j, "libcufft.so.11")["path"])
        self.assertEqual(j["prediction"], "cpu")
        assert_cause(self, doc, "cuda-runtime-missing")

    def test_jaxlib_alone_is_cpu(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_dist(r, site, "jax", "0.7.2")
        fw.add_dist(r, site, "jaxlib", "0.7.2")
        doc = check(r, env=env())
        assert_cause(self, doc, "framework-cpu-only", "warn")

    def test_cupy_missing_runtime(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_dist(r, site, "cupy-cuda12x", "13.3.0")
        r.shared_lib(f"{site}/cupy_backends/cuda/api/runtime.cpython-311-x86_64-linux-gnu.so",
                     needed=("libcudart.so.12",))
        doc = check(r, env=env())
        (c,) = fws(doc, "cupy")
        self.assertEqual(c["cuda_build"], "12.x")
        self.assertEqual(c["prediction"], "broken")
        assert_cause(self, doc, "cuda-runtime-missing", "fail")


    def test_cupy14_static_runtime_and_pathfinder(self):
        """cupy-cuda13x 14.2 (H200): the runtime is static in runtime*.so, cuda-pathfinder
        loads libcublas.so.13 etc. from site-packages/nvidia/cu13/lib first."""
        r, site = cupy14_root()
        fw.add_nvidia_wheel(r, site, "nvidia-cublas", "13.1.0.3", "cu13",
                            ["libcublasLt.so.13", "libcublas.so.13"])
        doc = check(r, env=env())
        (c,) = fws(doc, "cupy")
        self.assertEqual(c["prediction"], "gpu", json.dumps(c, indent=1))
        cb = lib(c, "libcublas.so.13")
        self.assertEqual(cb["source"], "cuda-pathfinder")
        self.assertEqual(cb["path"], f"/{SITE}/nvidia/cu13/lib/libcublas.so.13")
        self.assertNotIn("libcudart.so.13", [l["soname"] for l in c["libraries"]])
        self.assertFalse([f for f in fw_findings(doc) if "libcudart" in f["id"] or f["status"] == "fail"])
        # a library pathfinder cannot find only breaks the part of CuPy that needs it
        f = finding(doc, fid="frameworks.opt_venv.cupy.libcusolver.so.12")
        self.assertEqual(f["status"], "warn", json.dumps(f, indent=1))

    def test_cupy14_pathfinder_search_order(self):
        """cuda-pathfinder 1.9.1: wheels, then $CONDA_PREFIX/{lib64,lib}, then the system
        loader, then $CUDA_PATH (over $CUDA_HOME) {lib64,lib}, as its search_steps.py says."""
        r, site = cupy14_root()
        # cublas: in the wheel and in conda -> the wheel
        fw.add_nvidia_wheel(r, site, "nvidia-cublas", "13.1.0.3", "cu13",
                            ["libcublasLt.so.13", "libcublas.so.13"])
        r.shared_lib("opt/conda/lib/libcublas.so.13", soname="libcublas.so.13")
        # cusolver: in conda and in the loader's cache -> conda
        r.shared_lib("opt/conda/lib/libcusolver.so.12", soname="libcusolver.so.12")
        r.shared_lib("usr/lib/x86_64-linux-gnu/libcusolver.so.12", soname="libcusolver.so.12")
        # cusparse: in the loader's default dirs and under CUDA_PATH -> the loader
        r.shared_lib("usr/lib/x86_64-linux-gnu/libcusparse.so.12", soname="libcusparse.so.12")
        r.shared_lib("opt/cuda-a/lib64/libcusparse.so.12", soname="libcusparse.so.12")
        # curand: only under CUDA_PATH (lib) and CUDA_HOME (lib64) -> CUDA_PATH
        r.shared_lib("opt/cuda-a/lib/libcurand.so.10", soname="libcurand.so.10")
        r.shared_lib("opt/cuda-b/lib64/libcurand.so.10", soname="libcurand.so.10")
        # nvrtc: only under CUDA_HOME, which CUDA_PATH hides -> not found
        r.shared_lib("opt/cuda-b/lib64/libnvrtc.so.13", soname="libnvrtc.so.13")
        fixtures_libs.register_dir(r, "usr/lib/x86_64-linux-gnu")
        doc = check(r, env=env(CONDA_PREFIX="/opt/conda", CUDA_PATH="/opt/cuda-a",
                               CUDA_HOME="/opt/cuda-b"))
        (c,) = fws(doc, "cupy")
        got = {l["soname"]: (l["path"], l["source"]) for l in c["libraries"]}
        self.assertEqual(got["libcublas.so.13"],
                         (f"/{SITE}/nvidia/cu13/lib/libcublas.so.13", "cuda-pathfinder"))
        self.assertEqual(got["libcusolver.so.12"],
                         ("/opt/conda/lib/libcusolver.so.12", "cuda-pathfinder:CONDA_PREFIX"))
        self.assertEqual(got["libcusparse.so.12"],
                         ("/usr/lib/x86_64-linux-gnu/libcusparse.so.12", "cache"))
        self.assertEqual(got["libcurand.so.10"],
                         ("/opt/cuda-a/lib/libcurand.so.10", "cuda-pathfinder:CUDA_PATH"))
        self.assertIsNone(got["libnvrtc.so.13"][0], json.dumps(c["libraries"], indent=1))
        # with CUDA_PATH unset, CUDA_HOME is used
        doc = check(r, env=env(CONDA_PREFIX="/opt/conda", CUDA_HOME="/opt/cuda-b"))
        (c,) = fws(doc, "cupy")
        got = {l["soname"]: (l["path"], l["source"]) for l in c["libraries"]}
        self.assertEqual(got["libnvrtc.so.13"],
                         ("/opt/cuda-b/lib64/libnvrtc.so.13", "cuda-pathfinder:CUDA_HOME"))


class Environments(GDTestCase):
    def test_every_environment_once(self):
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_torch(r, site, version="2.5.1+cpu", cuda="None", cudnn_pin=None)
        r.mkdir("usr/lib/python3/dist-packages")
        r.mkdir("usr/lib/python3.11")
        fw.add_tensorflow(r, "usr/lib/python3/dist-packages", dist="tensorflow-cpu",
                          build_info=fw.TF_BUILD_INFO_CPU)
        conda_site = "opt/conda/envs/tf/lib/python3.10/site-packages"
        r.mkdir("opt/conda/envs/tf/conda-meta")
        fw.add_torch(r, conda_site, version="2.5.1+cpu", cuda="None", cudnn_pin=None)
        doc = check(r, env=env())
        where = sorted((f["env"], f["name"], f["env_kind"]) for f in fws(doc))
        self.assertEqual(where, [("/opt/conda/envs/tf", "torch", "conda"),
                                 ("/opt/venv", "torch", "venv"),
                                 ("/usr", "tensorflow", "system")])

    def test_site_packages_option(self):
        r = fixtures.healthy_root()
        fw.add_torch(r, "srv/app/site", version="2.5.1+cpu", cuda="None", cudnn_pin=None)
        doc = check(r, "--site-packages", "/srv/app/site", env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["env_kind"], "given")


if __name__ == "__main__":
    unittest.main()


def fake_python(stdout, stderr=""):
    """An interpreter stand-in for --live: prints the key=value lines a framework script would."""
    return ("#!/bin/sh\ncat <<'GD_EOF'\n" + stdout + "end\nGD_EOF\n" +
            ("cat >&2 <<'GD_EOF'\n" + stderr + "GD_EOF\n" if stderr else ""))


class Live(GDTestCase):
    def root(self, stdout, stderr=""):
        r = fixtures.healthy_root()
        site = fw.add_venv(r, python_script=fake_python(stdout, stderr))
        fw.add_torch(r, site)
        fw.add_torch_cu12_wheels(r, site)
        return r

    def test_agreement_is_silent(self):
        r = self.root("import_ok=1\ncuda=12.4\ngpus=1\narchs=sm_80 sm_90\ndevice=NVIDIA H200\nmatmul_ok=1\ncudnn=90100\n")
        doc = check(r, "--live", env=env())
        (t,) = fws(doc, "torch")
        self.assertEqual(t["live"]["gpus"], 1, json.dumps(t["live"], indent=1))
        self.assertEqual(t["live"]["cudnn"], "90100")
        self.assertEqual(t["live"]["matmul_ok"], True)
        assert_no_cause(self, doc, "framework-live-disagrees")

    def test_disagreement_is_shown(self):
        r = self.root("import_ok=1\ncuda=12.4\ngpus=0\n",
                      "W0000 Could not load dynamic library 'libcudart.so.12'; dlerror: nope\n"
                      "I0000 successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero\n")
        doc = check(r, "--live", env=env())
        f = assert_cause(self, doc, "framework-live-disagrees", "warn")
        self.assertIn("sees no GPU", f["title"])
        (t,) = fws(doc, "torch")
        self.assertEqual(t["live"]["missing"], ["libcudart.so.12"])
        self.assertEqual(len(t["live"]["noise"]), 1)
        self.assertIn("harmless", t["live"]["noise"][0])

    def test_not_run_without_live(self):
        r = self.root("import_ok=1\ngpus=0\n")
        doc = check(r, env=env())
        (t,) = fws(doc, "torch")
        self.assertIsNone(t["live"])
