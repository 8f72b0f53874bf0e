"""The cuda layer: cuInit and its CUresult causes, the PTX kernel check on
every device, and the isolated child crashing or hanging.  libcuda is the
fake of tests/fakelib/fake_cuda.c (FAKE_CUDA_MODE)."""
import json
import os
import time

from gdtest import (GDTestCase, GPUDOCTOR, check, clean_env, assert_cause, assert_no_cause,
                    finding, layer, run)
import fixtures
import fixtures_driver

import subprocess


def cuda_doc(tc, mode, rc=1, **env):
    return check(fixtures.healthy_root(), env=clean_env(FAKE_CUDA_MODE=mode, **env),
                 expect_rc=rc)


class TestCuda(GDTestCase):
    def test_healthy_kernel_and_timings(self):
        doc = check(fixtures.healthy_root(), expect_rc=0)
        c = doc["inventory"]["cuda"]
        self.assertEqual(c["init_result"], 0)
        self.assertEqual(c["init_result_name"], "CUDA_SUCCESS")
        self.assertEqual(c["driver_version"], "13.0")
        self.assertEqual(c["device_count"], 1)
        self.assertIs(c["kernel_ok"], True)
        d = c["devices"][0]
        self.assertEqual((d["name"], d["cc"], d["sm_count"]), ("NVIDIA H200", "9.0", 132))
        self.assertEqual(d["bus_id"], "00000000:18:00.0")
        for k in ("init", "context", "kernel"):
            self.assertIsNotNone(c["timings_ms"][k], k)
        for k in ("context", "module", "kernel"):
            self.assertIsNotNone(d["timings_ms"][k], k)
        # The release comes after the answer, and nobody waits for it.
        self.assertIsNone(d["timings_ms"]["release"])
        self.assertEqual(finding(doc, fid="cuda.device.0")["status"], "ok")

    def test_wrong_result_is_caught(self):
        doc = cuda_doc(self, "wrong-result")
        f = assert_cause(self, doc, "gpu-compute-failed", "fail")
        self.assertTrue(any("element 7" in e for e in f["evidence"]), f)

    def test_invalid_ptx(self):
        f = assert_cause(self, cuda_doc(self, "ptx-error:218"), "gpu-compute-failed", "fail")
        self.assertTrue(any("cuModuleLoadData returned 218 (CUDA_ERROR_INVALID_PTX)" in e
                            for e in f["evidence"]), f)

    def test_launch_failure(self):
        assert_cause(self, cuda_doc(self, "launch-error:719"), "gpu-compute-failed", "fail")

    def test_devices_unavailable_at_context(self):
        f = assert_cause(self, cuda_doc(self, "ctx-error:46"), "gpu-exclusive-busy", "fail")
        self.assertIn("COMPUTE", f["fix"])

    def test_init_unknown_error_points_at_uvm(self):
        f = assert_cause(self, cuda_doc(self, "init-error:999"), "cuda-init-failed", "fail")
        self.assertTrue(any("CUDA_ERROR_UNKNOWN" in e for e in f["evidence"]))
        self.assertIn("nvidia_uvm", f["fix"])

    def test_fabric_manager(self):
        f = assert_cause(self, cuda_doc(self, "init-error:802"), "fabric-manager-not-running",
                         "fail")
        self.assertTrue(any("CUDA_ERROR_SYSTEM_NOT_READY" in e for e in f["evidence"]))

    def test_system_driver_mismatch(self):
        assert_cause(self, cuda_doc(self, "init-error:803"), "driver-library-mismatch", "fail")

    def test_compat_on_unsupported_gpu(self):
        assert_cause(self, cuda_doc(self, "init-error:804"), "compat-lib-on-unsupported-gpu",
                     "fail")

    def test_stub_library_result(self):
        assert_cause(self, cuda_doc(self, "init-error:34"), "libcuda-stub-on-path", "fail")

    def test_no_device_with_visible_devices_set(self):
        # A value the static check cannot judge (index 0 exists), yet CUDA sees nothing.
        doc = cuda_doc(self, "init-error:100", CUDA_VISIBLE_DEVICES="0")
        f = assert_cause(self, doc, "gpu-hidden-by-env", "fail")
        self.assertEqual(f["layer"], "cuda")

    def test_no_device_without_env_is_init_failure(self):
        assert_cause(self, cuda_doc(self, "init-error:100"), "cuda-init-failed", "fail")

    def test_crash_in_cuinit(self):
        f = assert_cause(self, cuda_doc(self, "crash"), "cuda-init-failed", "fail")
        self.assertTrue(any("SIGSEGV" in e and "libcuda" in e for e in f["evidence"]), f)

    def test_crash_on_load(self):
        assert_cause(self, cuda_doc(self, "crash-on-load"), "cuda-init-failed", "fail")

    def test_hang_times_out(self):
        r = fixtures.healthy_root()
        t0 = time.monotonic()
        rc, out, err = run(["--timeout", "1", "--json", "check"], root=r.path,
                           env=clean_env(FAKE_CUDA_MODE="hang"))
        self.assertLess(time.monotonic() - t0, 3.5)
        doc = json.loads(out)
        f = assert_cause(self, doc, "cuda-init-failed", "fail")
        self.assertTrue(any("did not finish" in e for e in f["evidence"]), f)

    def test_blocked_when_driver_fails(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_MODE="init-error:18"),
                    expect_rc=1)
        self.assertEqual(layer(doc, "cuda")["status"], "blocked")
        f = finding(doc, fid="cuda.init")
        self.assertEqual(f["status"], "skipped")
        self.assertIn("blocked", f["title"])
        self.assertFalse(doc["inventory"]["cuda"]["ran"])


class TestOverlap(GDTestCase):
    """The CUDA child starts beside the NVML child: its libcuda load and cuInit
    overlap NVML, while its contexts wait until NVML is done."""

    def test_children_overlap(self):
        doc = check(fixtures.healthy_root(), expect_rc=0,
                    env=clean_env(FAKE_NVML_INIT_MS="700", FAKE_CUDA_INIT_MS="700"))
        t = doc["timings_ms"]
        both = t["driver"] + t["cuda"]
        # One after the other they take at least 1400 ms; side by side about 700.
        self.assertGreaterEqual(both, 690, t)
        self.assertLess(both, 1200, t)
        self.assertIs(doc["inventory"]["cuda"]["kernel_ok"], True)

    def test_release_not_waited_for(self):
        # The contexts are released after the child has answered: a slow
        # release (72 ms on the H200, 1500 ms here) is not on the check's path.
        t0 = time.monotonic()
        doc = check(fixtures.healthy_root(), expect_rc=0,
                    env=clean_env(FAKE_CUDA_RELEASE_MS="1500"))
        self.assertLess(time.monotonic() - t0, 1.4)
        self.assertIs(doc["inventory"]["cuda"]["kernel_ok"], True)
        self.assertLess(doc["timings_ms"]["cuda"], 1000, doc["timings_ms"])

    def test_contexts_made_in_parallel(self):
        # Four devices whose contexts take 500 ms each: one after the other
        # 2000 ms, side by side about 500.
        doc = check(fixtures.healthy_root(), expect_rc=0,
                    env=clean_env(FAKE_CUDA_DEVICES="4", FAKE_CUDA_CTX_MS="500"))
        c = doc["inventory"]["cuda"]
        self.assertEqual(c["device_count"], 4)
        self.assertIs(c["kernel_ok"], True)
        self.assertEqual([d["kernel_ok"] for d in c["devices"]], [True] * 4)
        self.assertGreaterEqual(doc["timings_ms"]["cuda"], 490, doc["timings_ms"])
        self.assertLess(doc["timings_ms"]["cuda"], 1500, doc["timings_ms"])

    def test_context_waits_for_nvml(self):
        log = os.path.join(fixtures.Root().path, "events.log")
        doc = check(fixtures.healthy_root(), expect_rc=0,
                    env=clean_env(FAKE_NVML_INIT_MS="400", FAKE_NVML_LOG=log,
                                  FAKE_CUDA_CTX_LOG=log))
        with open(log) as f:
            events = f.read().split("\n")
        self.assertEqual(events[:2], ["nvml shutdown", "ctx 0"], events)
        self.assertGreater(doc["inventory"]["cuda"]["timings_ms"]["held"], 200)

    def test_blocked_child_makes_no_context(self):
        log = os.path.join(fixtures.Root().path, "events.log")
        doc = check(fixtures.healthy_root(), expect_rc=1,
                    env=clean_env(FAKE_NVML_MODE="init-error:18", FAKE_CUDA_CTX_LOG=log))
        self.assertEqual(layer(doc, "cuda")["status"], "blocked")
        self.assertFalse(doc["inventory"]["cuda"]["ran"])
        self.assertIsNone(doc["inventory"]["cuda"]["init_result"])
        time.sleep(0.2)
        self.assertFalse(os.path.exists(log), "the cancelled CUDA child made a context")

    def test_probe_without_hold_runs_through(self):
        # The child run by hand (no --hold) does not wait for anyone.
        r = fixtures.healthy_root()
        lib = r.p(f"{fixtures_driver.LIBDIR}/libcuda.so.1")
        t0 = time.monotonic()
        p = subprocess.run([GPUDOCTOR, "__probe", "cuda", lib], capture_output=True, text=True,
                           timeout=30, env=clean_env())
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn("dev.0.kernel_ok=1\n", p.stdout)
        self.assertNotIn("hold_ms", p.stdout)


class TestRealToolkitStub(GDTestCase):
    """The CUDA toolkit's own stub, when this machine has one: cuInit must say 34."""

    def test_real_stub_returns_stub_library(self):
        stub = "/usr/local/cuda/lib64/stubs/libcuda.so"
        if not os.path.exists(stub):
            self.skipTest(f"no CUDA toolkit stub at {stub}")
        p = subprocess.run([GPUDOCTOR, "__probe", "cuda", stub], capture_output=True,
                           text=True, timeout=30)
        self.assertIn("init.result=34\n", p.stdout)
        self.assertTrue(p.stdout.endswith("end\n"))
