"""gpudoctor burn without a GPU: fake libcuda (tests/fakelib/fake_bench_cuda.c,
which runs burn's two kernels on the host with the same arithmetic as
src/burn/burn_kernels.cu), fake cuBLAS (fake_cublas.c) and fake NVML
(fake_nvml.c, read by watch's sampler child), built by this test.

Each failure the issue names is injected and must be named by its cause:
a GEMM that returns one wrong element (silent data corruption), a memory
word with a stuck bit, a clock held down by a thermal reason, a kernel that
never returns (a hang), another process on the GPU; the healthy run passes.
"""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

from gdtest import GPUDOCTOR, clean_env, run
from test_bench import CC, FAKELIB, fake_libdir

_nvml = None


def libdir():
    """The bench fakes plus a fake NVML in the same directory."""
    global _nvml
    d = fake_libdir()
    if not _nvml:
        subprocess.run([CC, "-shared", "-fPIC", "-O1", "-o", os.path.join(d, "libnvidia-ml.so.1"),
                        os.path.join(FAKELIB, "fake_nvml.c"), "-Wl,-soname,libnvidia-ml.so.1"],
                       check=True, capture_output=True)
        _nvml = True
    return d


def burn(*args, json_out=True, **env):
    d = libdir()
    # throughput is timed by CUDA events on the fake's virtual clock (each
    # product advances it by 2n^3 / FAKE_CUBLAS_TFLOPS_BF16): exact whatever
    # the machine's load
    # (host copies made instant, so that the products alone set the time)
    base = dict(LD_LIBRARY_PATH=d, FAKE_CUDA_TOTAL_MIB="600", FAKE_CUDA_PCI="0000:18:00.0",
                FAKE_CUBLAS_COMPUTE="1", FAKE_CUDA_H2D_GBS="1e9", FAKE_CUDA_D2H_GBS="1e9")
    base.update(env)
    e = clean_env(**base)
    own = ["--cublas", os.path.join(d, "libcublas.so.13")] if "--cublas" not in args else []
    argv = (["--json"] if json_out else []) + ["burn", "--minutes", "0.05", "--gemm-n", "32",
                                              "--mem-mib", "4", "--tick", "0.4", "--stall", "3"] + own + list(args)
    rc, out, err = run(argv, env=e, timeout=120)
    return rc, (json.loads(out) if json_out else out), err


def causes(doc):
    return {f["cause"] for f in doc["findings"] if f["cause"]}


def default_signals():
    """Default dispositions, as a shell gives a foreground job: a suite
    started in the background (nohup, "cmd &" in a script) inherits SIGINT
    ignored, which burn rightly keeps ignoring."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


class TestBurn(unittest.TestCase):
    def test_help_and_usage(self):
        rc, out, _ = run(["burn", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn("--minutes", out)
        rc, _, err = run(["burn", "--minutes", "-1"])
        self.assertEqual(rc, 2)
        self.assertIn("error:", err)
        rc, _, err = run(["--no-load", "burn"])
        self.assertEqual(rc, 2)

    def test_healthy_run_passes_with_the_nvml_series(self):
        rc, doc, err = burn()
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["schema"], "gpudoctor.burn/1")
        g = doc["gpus"][0]
        self.assertGreater(g["products"], 10)
        self.assertEqual(g["products_wrong"], 0)
        self.assertGreater(g["memtest_passes"], 0)
        self.assertEqual(g["memtest_bad_words"], 0)
        self.assertEqual(causes(doc), set())
        # NVML was sampled through watch's sampler and matched by PCI address
        self.assertTrue(any(t["sm_mhz"] == 1980 for t in g["series"]), g["series"])

    def test_one_wrong_element_is_silent_data_corruption(self):
        rc, doc, _ = burn(FAKE_CUBLAS_CORRUPT_AT="40")
        self.assertEqual(rc, 1)
        self.assertIn("gpu-silent-data-corruption", causes(doc))
        f = [f for f in doc["findings"] if f["cause"] == "gpu-silent-data-corruption"][0]
        self.assertEqual(f["status"], "fail")
        self.assertIn("product=40 row=3", " ".join(f["evidence"]))

    def test_stuck_memory_bit_is_named_with_its_address(self):
        rc, doc, _ = burn(FAKE_CUDA_MEM_STUCK="1000")
        self.assertEqual(rc, 1)
        f = [f for f in doc["findings"] if f["cause"] == "gpu-memory-test-failed"]
        self.assertTrue(f, doc["findings"])
        ev = " ".join(f[0]["evidence"])
        self.assertIn("first=0xfa0", ev)	# word 1000 = byte 0xfa0
        self.assertIn("bits=0x8", ev)

    def test_thermal_clock_drop_is_throttling(self):
        rc, doc, _ = burn(FAKE_NVML_CLOCK_REASONS="0x40", FAKE_NVML_SM_CLOCK="1100")
        self.assertEqual(rc, 0)	# a warning: the results were right
        self.assertIn("gpu-throttled", causes(doc))
        # a software power cap is how a GPU at full load runs: not judged
        rc, doc, _ = burn(FAKE_NVML_CLOCK_REASONS="0x4")
        self.assertNotIn("gpu-throttled", causes(doc))

    def test_hung_kernel_is_named_not_waited_for(self):
        t = time.time()
        rc, doc, _ = burn(FAKE_CUDA_HANG_LAUNCH="3")
        self.assertLess(time.time() - t, 30)
        self.assertEqual(rc, 1)
        self.assertIn("gpu-hang-under-load", causes(doc))

    def test_another_process_on_the_gpu(self):
        rc, doc, _ = burn(FAKE_NVML_PROCS="4242:2000,4343:900")	# the burn's own and another
        self.assertIn("gpu-contended-during-burn", causes(doc))
        rc, doc, _ = burn()
        self.assertNotIn("gpu-contended-during-burn", causes(doc))

    def test_throughput_that_falls_under_load(self):
        # every product 4x slower on the GPU's clock after 1.5 s
        rc, doc, _ = burn("--minutes", "0.08", FAKE_CUBLAS_SLOW="*:1.5:4")
        self.assertIn("gpu-throughput-degraded", causes(doc))
        self.assertEqual(rc, 0)	# a warning: the results were right
        rc, doc, _ = burn("--minutes", "0.08")
        self.assertNotIn("gpu-throughput-degraded", causes(doc))
        # the figure is the fake GPU's rate, 800 TFLOP/s by default
        self.assertAlmostEqual(doc["gpus"][0]["tflops_sustained"], 800, delta=1)

    def test_slowest_gpu_of_the_node(self):
        two = dict(FAKE_CUDA_DEVICES="2", FAKE_NVML_GPUS="2", FAKE_CUDA_PCI="")
        # GPU 1 half as fast on the GPU's clock
        rc, doc, _ = burn(FAKE_CUBLAS_SLOW="1:0:2", **two)
        self.assertEqual(len(doc["gpus"]), 2)
        slow = [f for f in doc["findings"] if f["cause"] == "gpu-slowest-in-node"]
        self.assertEqual(len(slow), 1, doc["findings"])
        self.assertIn("GPU 1", slow[0]["title"])
        rc, doc, _ = burn(**two)
        self.assertNotIn("gpu-slowest-in-node", causes(doc))

    def test_cublas_without_gemv_is_named(self):
        d = tempfile.mkdtemp(prefix="gd-nosgemv-")
        subprocess.run([CC, "-shared", "-fPIC", "-O1", "-DFAKE_NO_SGEMV", "-o", os.path.join(d, "libcublas.so.13"),
                        os.path.join(FAKELIB, "fake_cublas.c"), "-Wl,-soname,libcublas.so.13", "-ldl"],
                       check=True, capture_output=True)
        rc, doc, _ = burn("--cublas", os.path.join(d, "libcublas.so.13"))
        self.assertEqual(rc, 1)
        self.assertEqual(causes(doc), {"cublas-missing"})

    def test_failures_before_a_hang_are_kept(self):
        # a wrong product and a bad word, then a launch that never returns:
        # the hang is named and so are the faults found before it
        rc, doc, _ = burn("--minutes", "0.3", FAKE_CUBLAS_CORRUPT_AT="40", FAKE_CUDA_MEM_STUCK="100",
                          FAKE_CUDA_HANG_LAUNCH="6")
        self.assertEqual(rc, 1)
        self.assertLessEqual({"gpu-hang-under-load", "gpu-silent-data-corruption", "gpu-memory-test-failed"},
                             causes(doc))

    def test_gpu_count_is_cudas(self):
        # CUDA_VISIBLE_DEVICES narrows CUDA to one GPU of NVML's two: one child, no refusal
        rc, doc, _ = burn(FAKE_NVML_GPUS="2", FAKE_CUDA_DEVICES="1")
        self.assertEqual(rc, 0)
        self.assertEqual(len(doc["gpus"]), 1)

    def test_memory_held_refuses(self):
        rc, doc, _ = burn(FAKE_CUDA_FREE_MIB="100")
        self.assertEqual(rc, 1)
        self.assertEqual(causes(doc), {"gpu-memory-held"})

    def test_ctrl_c_prints_a_partial_verdict(self):
        d = libdir()
        e = clean_env(LD_LIBRARY_PATH=d, FAKE_CUDA_TOTAL_MIB="600", FAKE_CUDA_PCI="0000:18:00.0",
                      FAKE_CUBLAS_COMPUTE="1")
        # --tick 0.4137 marks this run's children (other tests burn at the same time)
        p = subprocess.Popen([GPUDOCTOR, "--json", "burn", "--minutes", "5", "--gemm-n", "32", "--mem-mib", "4",
                              "--tick", "0.4137", "--cublas", os.path.join(d, "libcublas.so.13")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                             preexec_fn=default_signals)
        time.sleep(3)
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
        doc = json.loads(out)
        self.assertTrue(doc["interrupted"])
        self.assertLess(doc["seconds_ran"], 20)
        self.assertGreater(doc["gpus"][0]["products"], 0)
        # no burn child is left running
        left = subprocess.run(["pgrep", "-f", "__probe burn .*--tick 0.414"], capture_output=True, text=True).stdout
        self.assertEqual(left.strip(), "")

    def test_text_report(self):
        rc, out, _ = burn(FAKE_CUBLAS_CORRUPT_AT="40", json_out=False)
        self.assertIn("gpu-silent-data-corruption", out)
        self.assertIn("products checked", out)


if __name__ == "__main__":
    unittest.main()
