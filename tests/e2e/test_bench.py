"""gpudoctor bench: options, refusals, the child protocol and the JSON schema.

No GPU here: a fake libcuda.so.1 and libcublas.so.13 (tests/fakelib/
fake_bench_cuda.c, fake_cublas.c), compiled by this test and found through
LD_LIBRARY_PATH, stand in for the driver.  Their virtual clock makes every
figure exact, so the parent's percentages and findings are checked
precisely.  A fixture root supplies the PCIe link in sysfs.  The real-GPU
test runs only where a GPU is present, and skips with a reason elsewhere.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, REPO, CC, Root, clean_env, have_gpu, run

FAKELIB = os.path.join(REPO, "tests", "fakelib")
_libdir = None


def fake_libdir():
    """Build the fakes once per run; returns the directory holding them."""
    global _libdir
    if _libdir:
        return _libdir
    d = tempfile.mkdtemp(prefix="gd-benchfake-")
    subprocess.run([CC, "-shared", "-fPIC", "-O1", "-o", os.path.join(d, "libcuda.so.1"),
                    os.path.join(FAKELIB, "fake_bench_cuda.c"), "-Wl,-soname,libcuda.so.1"],
                   check=True, capture_output=True)
    subprocess.run([CC, "-shared", "-fPIC", "-O1", "-o", os.path.join(d, "libcublas.so.13"),
                    os.path.join(FAKELIB, "fake_cublas.c"), "-Wl,-soname,libcublas.so.13", "-ldl"],
                   check=True, capture_output=True)
    import atexit
    atexit.register(shutil.rmtree, d, True)
    _libdir = d
    return d


def pcie_root(cur="32.0 GT/s PCIe", width="16", maxs="32.0 GT/s PCIe", maxw="16"):
    """A root whose sysfs has GPU 0000:65:00.0 (an H200's PCI id) behind a Gen5 x16 port."""
    r = Root()
    dev = "sys/devices/pci0000:00/0000:00:01.0/0000:65:00.0"
    r.write(dev + "/current_link_speed", cur + "\n")
    r.write(dev + "/current_link_width", width + "\n")
    r.write(dev + "/max_link_speed", maxs + "\n")
    r.write(dev + "/max_link_width", maxw + "\n")
    r.write(dev + "/vendor", "0x10de\n")
    r.write(dev + "/device", "0x2335\n")
    r.write("sys/devices/pci0000:00/0000:00:01.0/max_link_speed", "32.0 GT/s PCIe\n")
    r.write("sys/devices/pci0000:00/0000:00:01.0/max_link_width", "16\n")
    r.symlink("sys/bus/pci/devices/0000:65:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:65:00.0")
    return r


def bench(args=(), root=None, **env):
    """gpudoctor [--root R] --json bench ARGS with the fakes; returns (rc, doc, stderr)."""
    e = clean_env(LD_LIBRARY_PATH=fake_libdir(), FAKE_CUDA_TOTAL_MIB="8", **env)
    rc, out, err = run(["--json", "bench", "--no-cpu", "--no-conv", "--no-nccl"] + list(args), env=e,
                       root=root.path if root else None)
    try:
        doc = json.loads(out)
    except ValueError as ex:
        raise AssertionError(f"no JSON (rc={rc}): {ex}\n{out}\n{err}")
    return rc, doc, err


def result(gpu, name):
    for r in gpu["results"]:
        if r["name"] == name:
            return r
    raise KeyError(name)


def causes(gpu):
    return {f["cause"] for f in gpu["findings"]}


class TestBenchOptions(GDTestCase):
    def test_help(self):
        rc, out, _ = run(["bench", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn("usage: gpudoctor bench", out)
        self.assertIn("--quick", out)

    def test_bad_options(self):
        for args in (["--gpu", "x"], ["--gpu", "-1"], ["--frobnicate"], ["extra"], ["--gpu"]):
            rc, _, err = run(["bench"] + args, env=clean_env())
            self.assertEqual(rc, 2, args)
            self.assertTrue(err.strip(), args)

    def test_no_load_refuses(self):
        rc, _, err = run(["--no-load", "bench"], env=clean_env())
        self.assertEqual(rc, 2)
        self.assertIn("--no-load", err)


class TestBenchRefusals(GDTestCase):
    def test_no_libcuda(self):
        empty = tempfile.mkdtemp(prefix="gd-nolib-")
        self.addCleanup(shutil.rmtree, empty, True)
        # Only meaningful where the real loader finds no libcuda.so.1 either.
        probe = subprocess.run(["sh", "-c", "ldconfig -p 2>/dev/null | grep -c 'libcuda.so.1 '"],
                               capture_output=True, text=True)
        if probe.stdout.strip() not in ("", "0"):
            self.skipTest("this machine has a libcuda.so.1 in the loader cache")
        rc, out, err = run(["bench"], env=clean_env(LD_LIBRARY_PATH=empty))
        self.assertEqual(rc, 1)
        self.assertIn("libcuda.so.1", out + err)
        self.assertIn("nothing measured", out)
        rc, out, err = run(["--json", "bench"], env=clean_env(LD_LIBRARY_PATH=empty))
        doc = json.loads(out)
        self.assertEqual(rc, 1)
        self.assertEqual(doc["status"], "refused")
        self.assertEqual(doc["refused"]["cause"], "libcuda-missing")

    def test_no_device(self):
        rc, doc, err = bench(FAKE_CUDA_INIT_RC="100")
        self.assertEqual(rc, 1)
        self.assertEqual(doc["refused"]["cause"], "no-nvidia-gpu")
        self.assertIn("no CUDA device", err)

    def test_stub_library(self):
        rc, doc, _ = bench(FAKE_CUDA_INIT_RC="34")
        self.assertEqual(rc, 1)
        self.assertEqual(doc["refused"]["cause"], "libcuda-stub-on-path")

    def test_gpu_index_out_of_range(self):
        rc, doc, _ = bench(["--gpu", "3"], FAKE_CUDA_DEVICES="2")
        self.assertEqual(rc, 1)
        self.assertIn("there is no GPU 3", doc["refused"]["message"])

    def test_memory_held_by_another_process(self):
        report = tempfile.mktemp(prefix="gd-fakerep-")
        rc, doc, _ = bench(FAKE_CUDA_FREE_MIB="2", FAKE_CUDA_REPORT=report)
        self.assertEqual(rc, 1)
        self.assertEqual(doc["status"], "refused")
        g = doc["gpus"][0]
        self.assertEqual(g["refused"]["cause"], "gpu-memory-held")
        self.assertIn("another process holds most", g["refused"]["message"])
        self.assertEqual(g["results"], [])
        self.assert_all_freed(report)

    def test_out_of_memory_mid_run(self):
        report = tempfile.mktemp(prefix="gd-fakerep-")
        # Allocation 1 and 2 are the copy buffers; the third (cuBLAS workspace) fails.
        rc, doc, _ = bench(FAKE_CUDA_OOM_AFTER="2", FAKE_CUDA_REPORT=report)
        self.assertEqual(rc, 1)
        g = doc["gpus"][0]
        self.assertEqual(g["refused"]["cause"], "gpu-out-of-memory")
        self.assertIn("CUDA_ERROR_OUT_OF_MEMORY", g["refused"]["message"])
        self.assertEqual(result(g, "d2d")["value"], 4000)    # what ran before is kept
        self.assert_all_freed(report)

    def test_out_of_memory_in_a_gemm(self):
        report = tempfile.mktemp(prefix="gd-fakerep-")
        rc, doc, _ = bench(FAKE_CUDA_OOM_AFTER="7", FAKE_CUDA_REPORT=report)
        self.assertEqual(rc, 1)
        self.assertEqual(doc["gpus"][0]["refused"]["cause"], "gpu-out-of-memory")
        self.assert_all_freed(report)

    def assert_all_freed(self, report):
        self.addCleanup(lambda: os.path.exists(report) and os.unlink(report))
        with open(report) as f:
            kv = dict(x.split("=") for x in f.read().split())
        for a, b in (("allocs", "frees"), ("host_allocs", "host_frees"), ("streams", "stream_frees"),
                     ("events", "event_frees"), ("ctx_retains", "ctx_releases")):
            self.assertEqual(kv[a], kv[b], f"{a} != {b}: {kv}")


class TestBenchFakeGpu(GDTestCase):
    def test_schema_and_percentages(self):
        report = tempfile.mktemp(prefix="gd-fakerep-")
        rc, doc, err = bench(root=pcie_root(), FAKE_CUDA_H2D_GBS="55", FAKE_CUDA_D2H_GBS="50",
                             FAKE_CUDA_PAGEABLE_GBS="40", FAKE_CUDA_REPORT=report)
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["schema"], "gpudoctor.bench/1")
        self.assertEqual(doc["status"], "ok")
        self.assertIsNone(doc["refused"])
        for key in ("gpus", "cpu", "seconds", "notes", "quick"):
            self.assertIn(key, doc)
        g = doc["gpus"][0]
        for key in ("index", "name", "pci", "ceilings", "results", "findings", "link"):
            self.assertIn(key, g)
        self.assertEqual(g["pci"], "0000:65:00.0")
        self.assertEqual(g["pci_id"], "10de:2335")
        self.assertEqual(g["ceilings"]["pcie_link"], "PCIe Gen5 x16")
        self.assertAlmostEqual(g["ceilings"]["pcie_gbs"], 63.0154, places=3)
        self.assertEqual(g["link"]["under_load_gts"], 32)
        names = [r["name"] for r in g["results"]]
        self.assertEqual(names, ["h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d",
                                 "gemm_fp32", "gemm_tf32", "gemm_fp16", "gemm_bf16"])
        h2d = result(g, "h2d_pinned")
        self.assertEqual(h2d["unit"], "GB/s")
        self.assertEqual(h2d["value"], 55)
        self.assertAlmostEqual(h2d["percent"], 87.3, places=1)
        self.assertIn("cuMemcpyHtoDAsync_v2", h2d["method"])
        self.assertIn("bytes read plus bytes written", result(g, "d2d")["method"])
        for n, v in (("gemm_fp32", 50), ("gemm_tf32", 400), ("gemm_fp16", 800), ("gemm_bf16", 800)):
            r = result(g, n)
            self.assertEqual(r["value"], v)
            self.assertEqual(r["unit"], "TFLOP/s")
            self.assertIs(r["verified"], True, r)
            self.assertGreater(r["n"], 0)
        # datasheet ceilings are whatever the knowledge base knows: a number or null
        for r in g["results"]:
            if r["ceiling"] is None:
                self.assertIsNone(r["percent"])
            else:
                self.assertAlmostEqual(r["percent"], 100 * r["value"] / r["ceiling"], places=0)
        self.assertNotIn("pageable-copies-slow", causes(g))    # 40 of 55: fine
        self.assertNotIn("pcie-link-degraded", causes(g))
        self.assert_freed(report)

    def assert_freed(self, report):
        with open(report) as f:
            kv = dict(x.split("=") for x in f.read().split())
        os.unlink(report)
        self.assertEqual(kv["allocs"], kv["frees"], kv)
        self.assertEqual(kv["host_allocs"], kv["host_frees"], kv)

    def test_degraded_link_finding(self):
        rc, doc, _ = bench(root=pcie_root(cur="16.0 GT/s PCIe"), FAKE_CUDA_H2D_GBS="26",
                           FAKE_CUDA_D2H_GBS="26", FAKE_CUDA_PAGEABLE_GBS="20")
        self.assertEqual(rc, 0)
        g = doc["gpus"][0]
        f = [f for f in g["findings"] if f["cause"] == "pcie-link-degraded"]
        self.assertEqual(len(f), 1, g["findings"])
        self.assertEqual(f[0]["severity"], "warn")
        self.assertIn("16.0 GT/s", f[0]["evidence"])
        self.assertIn("read while copying", f[0]["evidence"])
        self.assertTrue(f[0]["fix"])
        self.assertEqual(doc["status"], "warn")

    def test_pageable_finding(self):
        rc, doc, _ = bench(root=pcie_root(), FAKE_CUDA_PAGEABLE_GBS="5")
        g = doc["gpus"][0]
        self.assertIn("pageable-copies-slow", causes(g))

    def test_wrong_gemm_results_fail(self):
        rc, doc, _ = bench(root=pcie_root(), FAKE_CUBLAS_WRONG="1")
        self.assertEqual(rc, 1)
        g = doc["gpus"][0]
        self.assertIs(result(g, "gemm_bf16")["verified"], False)
        self.assertIn("gpu-compute-failed", causes(g))
        self.assertEqual(doc["status"], "fail")

    def test_slow_gemm_below_peak(self):
        rc, doc, _ = bench(root=pcie_root(), FAKE_CUBLAS_TFLOPS_BF16="100")
        g = doc["gpus"][0]
        if g["ceilings"]["bf16_tflops"] is None:
            self.skipTest("the knowledge base has no BF16 peak for 10de:2335 yet")
        self.assertIn("bench-below-peak", causes(g))

    def test_no_cublas(self):
        d = tempfile.mkdtemp(prefix="gd-nocublas-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copy(os.path.join(fake_libdir(), "libcuda.so.1"), d)
        e = clean_env(LD_LIBRARY_PATH=d, FAKE_CUDA_TOTAL_MIB="8")
        rc, out, err = run(["--json", "bench", "--no-cpu", "--no-conv", "--no-nccl", "--cublas", "/nonexistent/libcublas.so.13"], env=e)
        doc = json.loads(out)
        g = doc["gpus"][0]
        if any(r["name"] == "gemm_fp32" and r["value"] is not None for r in g["results"]):
            self.skipTest("a real cuBLAS is reachable here")
        self.assertEqual(rc, 0)
        self.assertIn("cuBLAS", result(g, "gemm_fp32")["error"])
        self.assertEqual(result(g, "d2d")["value"], 4000)

    def test_two_gpus_and_quick_text(self):
        e = clean_env(LD_LIBRARY_PATH=fake_libdir(), FAKE_CUDA_TOTAL_MIB="8", FAKE_CUDA_DEVICES="2")
        rc, out, err = run(["bench", "--quick", "--no-cpu", "--no-conv", "--no-nccl"], env=e)
        self.assertEqual(rc, 0, err)
        self.assertIn("GPU 0: NVIDIA H200", out)
        self.assertIn("GPU 1: NVIDIA H200", out)
        self.assertIn("GEMM BF16", out)
        self.assertIn("bytes read plus bytes written", out)
        self.assertNotIn("\033[K", err)     # no progress line when stderr is not a terminal
        rc, out, err = run(["--json", "bench", "--gpu", "1", "--no-cpu", "--no-conv"], env=e)
        doc = json.loads(out)
        self.assertEqual([g["index"] for g in doc["gpus"]], [1])
        self.assertEqual(doc["gpus"][0]["pci"], "0000:66:00.0")

    def test_cpu_baseline_own_kernel(self):
        e = clean_env(LD_LIBRARY_PATH=fake_libdir(), FAKE_CUDA_TOTAL_MIB="8", GPUDOCTOR_BENCH_NO_BLAS="1")
        rc, out, err = run(["--json", "bench", "--quick", "--no-conv", "--no-nccl"], env=e)
        self.assertEqual(rc, 0, err)
        cpu = json.loads(out)["cpu"]
        self.assertEqual(cpu["impl"], "gpudoctor-blocked")
        self.assertIs(cpu["verified"], True)
        self.assertGreater(cpu["sgemm_gflops"], 0)
        self.assertGreater(cpu["gpu_fp32_speedup"], 0)


class TestBenchRealGpu(GDTestCase):
    def test_real_gpu(self):
        if not have_gpu():
            self.skipTest("no GPU on this machine (bench/bench-on-gpu.sh runs it on one)")
        rc, out, err = run(["--json", "bench", "--quick"], env=clean_env(), timeout=120)
        doc = json.loads(out)
        self.assertEqual(rc, 0, err)
        for g in doc["gpus"]:
            for r in g["results"]:
                self.assertIsNotNone(r["value"], r)
                if "verified" in r:
                    self.assertIs(r["verified"], True, r)


if __name__ == "__main__":
    unittest.main()
