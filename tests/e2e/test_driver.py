"""The driver layer: libcuda/NVML resolution, versions, stubs, the NVML child
(healthy, failing, crashing, hanging, garbage), per-GPU state and the CUDA
environment variables.  The NVML and CUDA libraries are the fakes of
tests/fakelib, steered by FAKE_* variables (see fixtures_driver.py)."""
import os
import time
import json

from gdtest import (GDTestCase, check, clean_env, assert_cause, assert_no_cause, finding,
                    layer, run)
import fixtures
import fixtures_driver

LIBDIR = fixtures_driver.LIBDIR


def remove_lib(r, base, version=fixtures.DRIVER_VERSION):
    r.remove(f"{LIBDIR}/{base}.{version}")
    r.remove(f"{LIBDIR}/{base}.1")
    fixtures_driver.refresh_ldcache(r)


class TestDriverHealthy(GDTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.root = fixtures.healthy_root()
        cls.doc = check(cls.root)

    def test_no_driver_or_cuda_cause_on_healthy_root(self):
        for c in ("driver-library-mismatch", "libcuda-missing", "libcuda-stub-on-path",
                  "nvml-missing", "nvml-failed", "gpu-hidden-by-env", "cuda-debug-env-set",
                  "gpu-memory-held", "persistence-mode-off", "ecc-errors", "gpu-lost",
                  "cuda-init-failed", "fabric-manager-not-running",
                  "compat-lib-on-unsupported-gpu", "gpu-compute-failed"):
            assert_no_cause(self, self.doc, c)
        self.assertEqual(layer(self.doc, "driver")["status"], "ok")
        self.assertEqual(layer(self.doc, "cuda")["status"], "ok")

    def test_inventory(self):
        d = self.doc["inventory"]["driver"]
        self.assertEqual(d["libraries"]["cuda"]["version"], "580.95.05")
        self.assertEqual(d["libraries"]["nvml"]["realpath"],
                         f"/{LIBDIR}/libnvidia-ml.so.580.95.05")
        self.assertEqual(d["kernel_module_version"], "580.95.05")
        n = d["nvml"]
        self.assertTrue(n["ran"])
        self.assertEqual(n["driver_version"], "580.95.05")
        self.assertEqual(n["cuda_version"], "13.0")
        g = n["gpus"][0]
        self.assertEqual(g["name"], "NVIDIA H200")
        self.assertEqual(g["bus_id"], "00000000:18:00.0")
        self.assertEqual(g["memory_total_mib"], 143771)
        self.assertEqual(g["memory_used_mib"], 512)
        self.assertIs(g["persistence_mode"], True)
        self.assertEqual(g["processes"], [])
        # Not supported on Hopper: unknown, never false.
        self.assertIsNone(g["ecc"]["retired_pages_pending"])


class TestDriverLibraries(GDTestCase):
    def test_libcuda_missing(self):
        r = fixtures.healthy_root()
        remove_lib(r, "libcuda.so")
        doc = check(r, expect_rc=1)
        assert_cause(self, doc, "libcuda-missing", "fail")
        self.assertEqual(layer(doc, "cuda")["status"], "blocked")

    def test_nvml_missing(self):
        r = fixtures.healthy_root()
        remove_lib(r, "libnvidia-ml.so")
        doc = check(r)
        assert_cause(self, doc, "nvml-missing", "warn")
        assert_no_cause(self, doc, "libcuda-missing")

    def test_mismatch_by_file_version(self):
        r = fixtures.healthy_root()
        r.write("sys/module/nvidia/version", "575.57.08\n")
        doc = check(r, env=clean_env(), expect_rc=1)
        f = assert_cause(self, doc, "driver-library-mismatch", "fail")
        self.assertTrue(any("575.57.08" in e for e in f["evidence"]))
        self.assertTrue(any("580.95.05" in e and "differs" in e for e in f["evidence"]))

    def test_mismatch_from_proc_version_when_sysfs_missing(self):
        r = fixtures.healthy_root()
        r.remove("sys/module/nvidia/version")
        r.write("proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release "
                "Build  (dvs-builder@U22)  Wed Oct  1 00:00:00 UTC 2025\n")
        doc = check(r, env=clean_env(), expect_rc=None)
        self.assertEqual(doc["inventory"]["driver"]["kernel_module_version"], "570.124.06")
        assert_cause(self, doc, "driver-library-mismatch", "fail")

    def test_mismatch_from_nvml_init(self):
        r = fixtures.healthy_root()
        doc = check(r, env=clean_env(FAKE_NVML_MODE="init-error:18"), expect_rc=1)
        f = assert_cause(self, doc, "driver-library-mismatch", "fail")
        self.assertTrue(any("18" in e and "mismatch" in e for e in f["evidence"]), f)

    def test_stub_link_on_ld_library_path_fails(self):
        r = fixtures.healthy_root()
        stub = fixtures_driver.add_toolkit_stub(r)
        r.symlink("tmp/stubdir/libcuda.so.1", "/" + stub)
        doc = check(r, env=clean_env(LD_LIBRARY_PATH="/tmp/stubdir"), expect_rc=1)
        f = assert_cause(self, doc, "libcuda-stub-on-path", "fail")
        self.assertEqual(f["id"], "driver.libcuda")
        self.assertTrue(any("stubs" in e for e in f["evidence"]))
        self.assertTrue(doc["inventory"]["driver"]["libraries"]["cuda"]["stub"])

    def test_stubs_dir_on_ld_library_path_warns(self):
        r = fixtures.healthy_root()
        stub = fixtures_driver.add_toolkit_stub(r)
        d = "/" + os.path.dirname(stub)
        doc = check(r, env=clean_env(LD_LIBRARY_PATH=d))
        f = assert_cause(self, doc, "libcuda-stub-on-path", "warn")
        self.assertTrue(any(d in e for e in f["evidence"]), f)
        # The driver's own libcuda.so.1 still wins, so CUDA runs.
        self.assertEqual(layer(doc, "cuda")["status"], "ok")

    def test_old_nvml_api_without_v2_names(self):
        r = fixtures.Root()
        fixtures.healthy_root(root=r)
        fixtures_driver.add_lib(r, "libnvidia-ml.so", "libnvidia-ml.so.1", "nvml",
                                fixtures.DRIVER_VERSION, cflags=("-DFAKE_OLD_API",))
        doc = check(r)
        n = doc["inventory"]["driver"]["nvml"]
        self.assertEqual(n["outcome"], "ok")
        self.assertEqual(n["gpus"][0]["name"], "NVIDIA H200")
        # No nvmlDeviceGetMemoryInfo_v2: v1, whose used includes the reserve.
        g = n["gpus"][0]
        self.assertEqual(g["memory_query"], "nvmlDeviceGetMemoryInfo")
        self.assertEqual(g["memory_used_mib"], 512 + 615)
        self.assertIsNone(g["memory_reserved_mib"])


class TestMemory(GDTestCase):
    """Used memory as nvidia-smi shows it: nvmlDeviceGetMemoryInfo_v2 reports the
    driver's reserve apart (an idle H200: 0 MiB used, v1 said 615)."""

    def test_v2_used_and_reserved(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_MEM_USED_MIB="0"))
        g = doc["inventory"]["driver"]["nvml"]["gpus"][0]
        self.assertEqual(g["memory_query"], "nvmlDeviceGetMemoryInfo_v2")
        self.assertEqual(g["memory_used_mib"], 0)
        self.assertEqual(g["memory_reserved_mib"], 615)
        self.assertEqual(g["memory_total_mib"], 143771)
        f = finding(doc, fid="driver.gpu.0")
        self.assertIn("memory 0 / 143771 MiB used, 615 MiB reserved by the driver "
                      "(nvmlDeviceGetMemoryInfo_v2)", f["evidence"])

    def test_v2_error_falls_back_to_v1(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_MEM_V2="error:3"))
        g = doc["inventory"]["driver"]["nvml"]["gpus"][0]
        self.assertEqual(g["memory_query"], "nvmlDeviceGetMemoryInfo")
        self.assertEqual(g["memory_used_mib"], 512 + 615)
        self.assertIsNone(g["memory_reserved_mib"])
        # The refused v2 call is not an error of the GPU: v1 answered.
        self.assertFalse([e for e in g["errors"] if "Memory" in e], g["errors"])

    def test_reserve_is_not_memory_held(self):
        # A big reserve with nothing allocated must not look like a hidden process.
        doc = check(fixtures.healthy_root(),
                    env=clean_env(FAKE_NVML_MEM_USED_MIB="0", FAKE_NVML_MEM_RESERVED_MIB="20000"))
        assert_no_cause(self, doc, "gpu-memory-held")


class TestSummary(GDTestCase):
    def test_healthy(self):
        doc = check(fixtures.healthy_root(), expect_rc=0)
        self.assertEqual(layer(doc, "driver")["summary"],
                         "580.95.05 (libcuda, NVML and the kernel module agree), CUDA 13.0, 1 GPU")
        self.assertEqual(layer(doc, "cuda")["summary"],
                         "CUDA 13.0, 1 device; the PTX kernel ran exactly on the device "
                         "(cuInit 0 ms)")

    def test_two_gpus(self):
        doc = check(fixtures.healthy_root(gpus=2),
                    env=clean_env(FAKE_NVML_GPUS="2", FAKE_CUDA_DEVICES="2"), expect_rc=0)
        self.assertTrue(layer(doc, "driver")["summary"].endswith("CUDA 13.0, 2 GPUs"))
        self.assertIn("2 devices; the PTX kernel ran exactly on every device",
                      layer(doc, "cuda")["summary"])

    def test_no_load(self):
        doc = check(fixtures.healthy_root(), "--no-load")
        self.assertEqual(layer(doc, "driver")["summary"],
                         "580.95.05 (libcuda, NVML and the kernel module agree); "
                         "NVML not queried (--no-load)")
        self.assertEqual(layer(doc, "cuda")["summary"],
                         "CUDA driver API not exercised (--no-load)")

    def test_mismatch_and_blocked(self):
        r = fixtures.healthy_root()
        r.write("sys/module/nvidia/version", "575.57.08\n")
        doc = check(r, env=clean_env(), expect_rc=1)
        self.assertEqual(layer(doc, "driver")["summary"],
                         "versions differ: libcuda 580.95.05, NVML 580.95.05, the kernel "
                         "module 575.57.08, CUDA 13.0, 1 GPU")
        self.assertEqual(layer(doc, "cuda")["summary"],
                         "CUDA driver API not exercised (a lower layer failed)")

    def test_kernel_failure_in_summary(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_CUDA_MODE="wrong-result"),
                    expect_rc=1)
        self.assertIn("the PTX kernel failed on 1 of 1 device", layer(doc, "cuda")["summary"])

    def test_init_failure_in_summary(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_CUDA_MODE="init-error:999"),
                    expect_rc=1)
        self.assertEqual(layer(doc, "cuda")["summary"], "cuInit failed: CUDA_ERROR_UNKNOWN (999)")

    def test_cuda_version_zero_is_unknown(self):
        # NVML answers 0 when the libcuda.so.1 it finds is not the driver's (the stub).
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_CUDA_VERSION="0"))
        self.assertIsNone(doc["inventory"]["driver"]["nvml"]["cuda_version"])
        f = finding(doc, fid="driver.nvml")
        self.assertEqual(f["title"], "NVML: driver 580.95.05, CUDA version unknown, 1 GPU")
        self.assertNotIn("0.0", f["title"])
        self.assertTrue(any("returned 0" in e for e in f["evidence"]), f)
        self.assertIn("CUDA version unknown", layer(doc, "driver")["summary"])


class TestNvmlChild(GDTestCase):
    def nvml_failed(self, env, expect=None, args=()):
        r = fixtures.healthy_root()
        doc = check(r, *args, env=clean_env(**env), expect_rc=1)
        f = assert_cause(self, doc, "nvml-failed", "fail")
        if expect:
            self.assertTrue(any(expect in e for e in f["evidence"]),
                            json.dumps(f, indent=1))
        return doc, f

    def test_init_error(self):
        self.nvml_failed({"FAKE_NVML_MODE": "init-error:9"}, "Driver Not Loaded")

    def test_crash_on_load(self):
        _, f = self.nvml_failed({"FAKE_NVML_MODE": "crash-on-load"}, "SIGSEGV")
        self.assertTrue(any("while loading" in e and "libnvidia-ml" in e for e in f["evidence"]))

    def test_garbage(self):
        self.nvml_failed({"FAKE_NVML_MODE": "garbage"}, "before reporting")

    def test_exit_status(self):
        self.nvml_failed({"FAKE_NVML_MODE": "exit:3"}, "status 3")

    def test_missing_required_symbol(self):
        r = fixtures.healthy_root()
        fixtures_driver.add_lib(r, "libnvidia-ml.so", "libnvidia-ml.so.1", "nvml",
                                fixtures.DRIVER_VERSION, cflags=("-DFAKE_OMIT_COUNT",))
        doc = check(r, expect_rc=1)
        f = assert_cause(self, doc, "nvml-failed", "fail")
        self.assertTrue(any("nvmlDeviceGetCount_v2" in e for e in f["evidence"]), f)

    def test_hang_times_out(self):
        r = fixtures.healthy_root()
        t0 = time.monotonic()
        rc, out, err = run(["--timeout", "1", "--json", "check"], root=r.path,
                           env=clean_env(FAKE_NVML_MODE="hang"))
        elapsed = time.monotonic() - t0
        doc = json.loads(out)
        self.assertEqual(rc, 1, err)
        f = assert_cause(self, doc, "nvml-failed", "fail")
        self.assertTrue(any("did not finish" in e for e in f["evidence"]), f)
        self.assertLess(elapsed, 3.0)

    def test_no_load_skips_and_runs_nothing(self):
        r = fixtures.healthy_root()
        # A crashing NVML must not matter: nothing is loaded.
        doc = check(r, "--no-load", env=clean_env(FAKE_NVML_MODE="crash-on-load",
                                                  FAKE_CUDA_MODE="crash-on-load"))
        f = finding(doc, fid="driver.nvml")
        self.assertEqual(f["status"], "skipped")
        self.assertIn("--no-load", f["title"])
        self.assertFalse(doc["inventory"]["driver"]["nvml"]["ran"])
        c = finding(doc, fid="cuda.init")
        self.assertEqual(c["status"], "skipped")
        self.assertIn("--no-load", c["title"])
        self.assertFalse(doc["inventory"]["cuda"]["ran"])


class TestGpuState(GDTestCase):
    def test_gpu_lost(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_MODE="gpu-lost"),
                    expect_rc=1)
        f = assert_cause(self, doc, "gpu-lost", "fail")
        self.assertTrue(any(": 15 (GPU is lost)" in e for e in f["evidence"]), f)

    def test_ecc_volatile_uncorrectable(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_ECC_VOLATILE_UNC="2"),
                    expect_rc=1)
        f = assert_cause(self, doc, "ecc-errors", "fail")
        self.assertTrue(any("2" in e and "uncorrectable" in e for e in f["evidence"]))

    def test_ecc_remap_pending(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_REMAP_PENDING="1"),
                    expect_rc=1)
        assert_cause(self, doc, "ecc-errors", "fail")

    def test_ecc_aggregate_only_warns(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_ECC_AGGREGATE_UNC="5"))
        assert_cause(self, doc, "ecc-errors", "warn")

    def test_memory_held_names_pid(self):
        doc = check(fixtures.healthy_root(),
                    env=clean_env(FAKE_NVML_PROCS="4242:40960", FAKE_NVML_MEM_USED_MIB="41500"))
        f = assert_cause(self, doc, "gpu-memory-held", "warn")
        self.assertTrue(any("pid 4242" in e and "40960 MiB" in e for e in f["evidence"]), f)
        p = doc["inventory"]["driver"]["nvml"]["gpus"][0]["processes"]
        self.assertEqual(p[0]["pid"], 4242)
        self.assertEqual(p[0]["used_memory_mib"], 40960)

    def test_memory_held_by_invisible_process(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_MEM_USED_MIB="60000"))
        assert_cause(self, doc, "gpu-memory-held", "warn")

    def test_small_process_is_fine(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_PROCS="4242:1024"))
        assert_no_cause(self, doc, "gpu-memory-held")

    def test_persistence_off_on_headless_gpu(self):
        doc = check(fixtures.healthy_root(), env=clean_env(FAKE_NVML_PERSISTENCE="0"))
        assert_cause(self, doc, "persistence-mode-off", "warn")

    def test_two_gpus_each_checked(self):
        doc = check(fixtures.healthy_root(gpus=2),
                    env=clean_env(FAKE_NVML_GPUS="2", FAKE_CUDA_DEVICES="2",
                                  FAKE_NVML_ECC_VOLATILE_UNC="1"), expect_rc=1)
        ids = {f["id"] for f in doc["findings"]}
        for i in (0, 1):
            self.assertIn(f"driver.gpu.{i}", ids)
            self.assertIn(f"driver.gpu.{i}.ecc", ids)


class TestEnvironment(GDTestCase):
    def hidden(self, value, status="fail", **extra):
        doc = check(fixtures.healthy_root(),
                    env=clean_env(CUDA_VISIBLE_DEVICES=value, **extra))
        return doc, assert_cause(self, doc, "gpu-hidden-by-env", status)

    def test_minus_one(self):
        doc, f = self.hidden("-1")
        self.assertEqual(layer(doc, "cuda")["status"], "blocked")

    def test_empty(self):
        self.hidden("")

    def test_nonexistent_index(self):
        self.hidden("3")

    def test_unknown_uuid(self):
        self.hidden("GPU-deadbeef")

    def test_invalid_entry_truncates(self):
        self.hidden("0,7", status="warn")

    def test_valid_selection_is_ok(self):
        for v in ("0", "GPU-3f1a2b4c"):
            doc = check(fixtures.healthy_root(), env=clean_env(CUDA_VISIBLE_DEVICES=v))
            assert_no_cause(self, doc, "gpu-hidden-by-env")
            self.assertEqual(finding(doc, fid="driver.env-visible")["status"], "ok")

    def test_nvidia_visible_devices_void(self):
        doc = check(fixtures.healthy_root(), env=clean_env(NVIDIA_VISIBLE_DEVICES="void"))
        assert_cause(self, doc, "gpu-hidden-by-env", "warn")

    def test_debug_variables(self):
        doc = check(fixtures.healthy_root(),
                    env=clean_env(CUDA_LAUNCH_BLOCKING="1", CUDA_INJECTION64_PATH="/x/libtrace.so"))
        f = assert_cause(self, doc, "cuda-debug-env-set", "warn")
        self.assertIn("CUDA_LAUNCH_BLOCKING", f["fix"])
        self.assertIn("CUDA_INJECTION64_PATH", f["fix"])
        self.assertEqual(doc["inventory"]["driver"]["env"]["CUDA_LAUNCH_BLOCKING"], "1")

    def test_debug_variable_off_is_not_flagged(self):
        doc = check(fixtures.healthy_root(),
                    env=clean_env(CUDA_LAUNCH_BLOCKING="0", CUDA_MODULE_LOADING="EAGER"))
        assert_no_cause(self, doc, "cuda-debug-env-set")
