"""bench's cuDNN and NCCL children, and check --deep.

No GPU here.  For bench: the fake libcuda.so.1 and libcublas.so.13 of
test_bench.py plus a fake libcudnn.so.9 and libnccl.so.2 (tests/fakelib/
fake_cudnn.c, fake_nccl.c), found through LD_LIBRARY_PATH; the fake cuDNN
computes the convolutions for real and advances the fake libcuda's virtual
clock, so figures are exact.  For check --deep: the healthy fixture root of
fixtures.py (whose fake libcuda also binds what the bench children need)
and the same fake cuDNN and NCCL.  The real cuDNN and NCCL of
/usr/local/cuda are loaded in the children up to their first call that
needs a GPU, and must fail there cleanly.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, REPO, CC, assert_cause, check, clean_env, finding, run
import fixtures
import test_bench

FAKELIB = os.path.join(REPO, "tests", "fakelib")
CUDA_LIB = "/usr/local/cuda/lib64"
SMALL = "2,8,6,6,4"
_dnn_dir = None


def dnn_libdir():
    """fake libcudnn.so.9 and libnccl.so.2, built once, beside copies of the bench fakes."""
    global _dnn_dir
    if _dnn_dir:
        return _dnn_dir
    d = tempfile.mkdtemp(prefix="gd-dnnfake-")
    for name, soname in (("fake_cudnn.c", "libcudnn.so.9"), ("fake_nccl.c", "libnccl.so.2")):
        subprocess.run([CC, "-shared", "-fPIC", "-O1", "-o", os.path.join(d, soname),
                        os.path.join(FAKELIB, name), f"-Wl,-soname,{soname}", "-ldl"],
                       check=True, capture_output=True)
    import atexit
    atexit.register(shutil.rmtree, d, True)
    _dnn_dir = d
    return d


def bench(args=(), root=None, **env):
    """gpudoctor [--root R] --json bench --no-cpu --quick with every fake; returns (rc, doc)."""
    e = clean_env(LD_LIBRARY_PATH=dnn_libdir() + ":" + test_bench.fake_libdir(),
                  FAKE_CUDA_TOTAL_MIB="8", **env)
    rc, out, err = run(["--json", "bench", "--no-cpu", "--quick"] + list(args), env=e, timeout=120,
                       root=root.path if root else None)
    try:
        return rc, json.loads(out)
    except ValueError as ex:
        raise AssertionError(f"no JSON (rc={rc}): {ex}\n{out}\n{err}")


def conv_result(gpu, direction, precision):
    for r in gpu["conv"]["results"]:
        if (r["direction"], r["precision"]) == (direction, precision):
            return r
    raise KeyError((direction, precision))


def bench_causes(doc):
    out = set()
    for g in doc["gpus"]:
        out |= {f["cause"] for f in g["findings"]}
    if doc.get("nccl"):
        out |= {f["cause"] for f in doc["nccl"]["findings"]}
    return out


class TestBenchConv(GDTestCase):
    def test_nine_figures_exact_and_verified(self):
        # an H200's PCI id in sysfs: its datasheet row gives the ceilings
        rc, doc = bench(["--conv-shape", SMALL], root=test_bench.pcie_root(), FAKE_CUDNN_TFLOPS="400")
        self.assertEqual(rc, 0, json.dumps(doc, indent=1)[:3000])
        conv = doc["gpus"][0]["conv"]
        self.assertTrue(conv["cudnn"].endswith("libcudnn.so.9"), conv["cudnn"])
        self.assertEqual(conv["cudnn_version"], 91900)
        self.assertEqual(conv["flops_per_pass"], 2 * 2 * 4 * 6 * 6 * 8 * 9)
        self.assertEqual(len(conv["results"]), 9)
        for r in conv["results"]:
            self.assertAlmostEqual(r["tflops"], 400.0, delta=0.01, msg=r)
            self.assertIs(r["verified"], True, r)
            self.assertEqual(r["algo"], 1)
        # the ceilings are the datasheet's: TF32 for FP32 (TF32 math), FP16, BF16 (H200 row)
        fp16 = conv_result(doc["gpus"][0], "fwd", "fp16")
        self.assertAlmostEqual(fp16["percent"], round(100 * 400 / fp16["ceiling_tflops"], 1), delta=0.05)
        fp32 = conv_result(doc["gpus"][0], "bwd_filter", "fp32")
        self.assertAlmostEqual(fp32["ceiling_tflops"], doc["gpus"][0]["ceilings"]["tf32_tflops"], delta=0.01)
        self.assertEqual(doc["nccl"]["skipped"], "this machine has one GPU: collectives need two or more")

    def test_text_names_cudnn_and_layer(self):
        e = clean_env(LD_LIBRARY_PATH=dnn_libdir() + ":" + test_bench.fake_libdir(), FAKE_CUDA_TOTAL_MIB="8")
        rc, out, err = run(["bench", "--no-cpu", "--quick", "--conv-shape", SMALL], env=e, timeout=120)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("cuDNN 9.19.0 (" + dnn_libdir() + "/libcudnn.so.9)", out)
        self.assertIn("FP16                forward  500.0", out)
        self.assertIn("NCCL: skipped: this machine has one GPU", out)

    def test_not_initialized(self):
        rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDNN_CREATE_RC="1001")
        self.assertEqual(rc, 1)
        self.assertIn("cudnn-not-initialized", bench_causes(doc))
        self.assertEqual(doc["gpus"][0]["conv"]["refused"]["cause"], "cudnn-not-initialized")

    def test_no_kernel_for_arch_one_finding(self):
        rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDNN_CONV_RC="3007")
        self.assertEqual(rc, 1)
        fs = [f for f in doc["gpus"][0]["findings"] if f["cause"] == "cudnn-no-kernel-for-arch"]
        self.assertEqual(len(fs), 1, fs)       # nine failures alike are one finding
        self.assertIn("9 cuDNN convolutions failed", fs[0]["title"])

    def test_no_kernel_image_message(self):
        rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDNN_CONV_RC="5000",
                        FAKE_CUDNN_LAST_ERROR="cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device")
        self.assertIn("cudnn-no-kernel-for-arch", bench_causes(doc))

    def test_other_status_is_call_failed(self):
        rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDNN_CONV_RC="4000")
        self.assertEqual(rc, 1)
        self.assertIn("cudnn-call-failed", bench_causes(doc))

    def test_wrong_result(self):
        rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDNN_WRONG="1")
        self.assertEqual(rc, 1)
        self.assertIn("cudnn-wrong-result", bench_causes(doc))
        self.assertIs(conv_result(doc["gpus"][0], "fwd", "bf16")["verified"], False)

    def test_without_cudnn(self):
        # the cuDNN asked for is missing: a note (not everyone needs cuDNN), nothing measured
        rc, doc = bench(["--conv-shape", SMALL, "--cudnn", "/nonexistent/libcudnn.so.9"])
        self.assertEqual(rc, 0, json.dumps(doc["gpus"][0]["findings"], indent=1))
        conv = doc["gpus"][0]["conv"]
        self.assertEqual(conv["refused"]["cause"], "cudnn-missing")
        self.assertIn("/nonexistent/libcudnn.so.9", conv["refused"]["message"])
        self.assertEqual(conv["results"], [])
        f = [f for f in doc["gpus"][0]["findings"] if f["cause"] == "cudnn-missing"]
        self.assertEqual(f[0]["severity"], "info")

    def test_child_text_reaches_no_terminal_control(self):
        # the cuDNN path comes back in the child's refusal, a finding record
        # (report/finding_record.h) whose title is one line: its control bytes
        # cross as spaces, so neither the terminal nor JSON gets the ESC
        # (issue 22: before the records it was kept in JSON, escaped on the
        # terminal by core/termesc)
        evil = "/nonexistent/x\x1b]0;pwned\x07/libcudnn.so.9"
        rc, doc = bench(["--conv-shape", SMALL, "--cudnn", evil])
        self.assertIn("/nonexistent/x ]0;pwned /libcudnn.so.9", doc["gpus"][0]["conv"]["refused"]["message"])
        e = clean_env(LD_LIBRARY_PATH=dnn_libdir() + ":" + test_bench.fake_libdir(), FAKE_CUDA_TOTAL_MIB="8")
        rc, out, err = run(["bench", "--no-cpu", "--quick", "--conv-shape", SMALL, "--cudnn", evil],
                           env=e, timeout=120)
        self.assertIn("/nonexistent/x ]0;pwned /libcudnn.so.9", out)
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\x07", out)

    def test_no_conv_and_bad_shape(self):
        rc, doc = bench(["--no-conv"])
        self.assertIsNone(doc["gpus"][0]["conv"])
        rc, out, err = run(["bench", "--conv-shape", "1,2,3"], env=clean_env())
        self.assertEqual(rc, 2)
        self.assertIn("--conv-shape '1,2,3' is not", err)


class TestBenchNccl(GDTestCase):
    def test_two_gpus_sweep(self):
        rc, doc = bench(["--no-conv"], FAKE_CUDA_DEVICES="2")
        n = doc["nccl"]
        self.assertIsNone(n["refused"], json.dumps(n, indent=1)[:2000])
        self.assertEqual(n["gpus"], 2)
        self.assertIs(n["verified"], True)
        self.assertEqual(n["link"], "NVLink")
        self.assertIn("P2P/CUMEM/read", n["topology"])
        self.assertTrue(n["library"].endswith("libnccl.so.2"))
        for c in ("all_reduce", "all_gather", "reduce_scatter"):
            pts = n["collectives"][c]["points"]
            self.assertGreater(len(pts), 3, c)
            self.assertEqual(pts[0]["bytes"], 8)
            for p in pts:
                # nccl-tests' definitions, n = 2
                factor = 1.0 if c == "all_reduce" else 0.5
                self.assertAlmostEqual(p["busbw_gbs"], p["algbw_gbs"] * factor, delta=1e-5 * (1 + p["algbw_gbs"]))
                self.assertAlmostEqual(p["algbw_gbs"], p["bytes"] / p["us"] / 1e3, delta=1e-4 * (1 + p["algbw_gbs"]))

    def test_pcie_path_and_env(self):
        rc, doc = bench(["--no-conv"], FAKE_CUDA_DEVICES="2", FAKE_NCCL_PATH="SYS", FAKE_NCCL_VIA="SHM/direct/direct")
        self.assertEqual(doc["nccl"]["link"], "PCIe across CPU sockets")
        self.assertIn("SHM/direct/direct", doc["nccl"]["topology"])

    def test_init_failure(self):
        rc, doc = bench(["--no-conv"], FAKE_CUDA_DEVICES="2", FAKE_NCCL_INIT_RC="2",
                        FAKE_NCCL_WARN="Call to posix_fallocate failed : No space left on device")
        self.assertEqual(rc, 1)
        self.assertIn("nccl-call-failed", bench_causes(doc))
        self.assertIn("posix_fallocate", doc["nccl"]["findings"][0]["evidence"])

    def test_wrong_sums(self):
        rc, doc = bench(["--no-conv"], FAKE_CUDA_DEVICES="2", FAKE_NCCL_WRONG="1")
        self.assertIs(doc["nccl"]["verified"], False)
        self.assertIn("nccl-call-failed", bench_causes(doc))

    def test_without_nccl(self):
        rc, doc = bench(["--no-conv", "--nccl", "/nonexistent/libnccl.so.2"], FAKE_CUDA_DEVICES="2")
        self.assertEqual(rc, 0)
        self.assertEqual(doc["nccl"]["refused"]["cause"], "nccl-missing")
        self.assertEqual(doc["nccl"]["findings"][0]["severity"], "info")

    def test_skips(self):
        rc, doc = bench(["--no-conv", "--gpu", "0"], FAKE_CUDA_DEVICES="2")
        self.assertIn("--gpu picks one GPU", doc["nccl"]["skipped"])
        rc, doc = bench(["--no-conv", "--no-nccl"], FAKE_CUDA_DEVICES="2")
        self.assertIsNone(doc["nccl"])


class TestRealLibrariesWithoutGpu(GDTestCase):
    """The real cuDNN and NCCL in the isolated children, up to the first call that needs a GPU."""

    def setUp(self):
        for lib in ("libcudnn.so.9", "libnccl.so.2"):
            if not os.path.exists(os.path.join(CUDA_LIB, lib)):
                self.skipTest(f"{CUDA_LIB}/{lib} is not installed")

    def kv(self, args, **env):
        rc, out, err = run(["__probe", "bench"] + args, env=clean_env(**env), timeout=60)
        self.assertEqual(out.rstrip().splitlines()[-1], "end", out + err)
        return dict(l.split("=", 1) for l in out.splitlines() if "=" in l), err

    def refusal(self, kv, key):
        """A refusal record (report/finding_record.h): its cause id and its title."""
        m = re.fullmatch(r"cause=(\S+) status=(?:warn|fail) layer=\S+ title=(.*)", kv[key])
        self.assertIsNotNone(m, kv)
        return m.group(1), m.group(2)

    def test_cudnn_without_libcuda(self):
        kv, _ = self.kv(["conv", "0", "--cudnn", CUDA_LIB + "/libcudnn.so.9"])
        self.assertEqual(kv["conv.cudnn"], CUDA_LIB + "/libcudnn.so.9")
        self.assertGreaterEqual(int(kv["conv.cudnn_version"]), 90000)
        self.assertIn(self.refusal(kv, "conv.refuse")[0], ("libcuda-missing", "no-nvidia-gpu", "cuda-init-failed"))

    def test_cudnn_create_fails_cleanly(self):
        # a libcuda that initialises (the fake) but is no GPU: cudnnCreate is where it stops
        kv, _ = self.kv(["conv", "0", "--shape", SMALL, "--cudnn", CUDA_LIB + "/libcudnn.so.9"],
                        LD_LIBRARY_PATH=test_bench.fake_libdir(), FAKE_CUDA_TOTAL_MIB="64")
        cause, msg = self.refusal(kv, "conv.refuse")
        self.assertEqual(cause, "cudnn-not-initialized", kv)
        self.assertIn("cudnnCreate failed", msg)

    def test_nccl_fails_cleanly_with_its_log(self):
        kv, err = self.kv(["nccl", "--smoke", "--nccl", CUDA_LIB + "/libnccl.so.2"],
                          LD_LIBRARY_PATH=test_bench.fake_libdir(), FAKE_CUDA_DEVICES="2", FAKE_CUDA_TOTAL_MIB="64")
        self.assertGreaterEqual(int(kv["nccl.version_code"]), 21800)
        cause, msg = self.refusal(kv, "nccl.refuse")
        self.assertEqual(cause, "nccl-call-failed", kv)
        self.assertIn("ncclCommInitAll failed", msg)
        self.assertIn("NCCL WARN", err)        # its INFO/WARN log went to stderr, not into the protocol

    def test_bench_refuses_without_gpu(self):
        rc, out, err = run(["bench", "--no-cpu"], env=clean_env(), timeout=60)
        self.assertEqual(rc, 1)
        self.assertIn("nothing measured (", out)


def deep(gpus=1, args=(), **env):
    """gpudoctor --root HEALTHY --json check --deep with the fake cuDNN and NCCL."""
    e = clean_env(LD_LIBRARY_PATH=dnn_libdir(), FAKE_CUDA_DEVICES=str(gpus), **env)
    return check(fixtures.healthy_root(gpus=gpus), "--deep", *args, env=e)


class TestCheckDeep(GDTestCase):
    def test_ok_one_gpu(self):
        doc = deep()
        f = finding(doc, fid="libraries.cudnn-conv.gpu0")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1)[:3000])
        self.assertEqual(f["status"], "ok", f)
        self.assertIn("32768 outputs match", f["evidence"][0])
        self.assertIsNone(finding(doc, fid="libraries.nccl-allreduce"))

    def test_ok_two_gpus(self):
        doc = deep(gpus=2)
        self.assertEqual(finding(doc, fid="libraries.cudnn-conv.gpu1")["status"], "ok")
        f = finding(doc, fid="libraries.nccl-allreduce")
        self.assertEqual(f["status"], "ok", f)
        self.assertTrue(any("NVLink" in e for e in f["evidence"]), f)

    def test_without_deep_nothing_runs(self):
        doc = check(fixtures.healthy_root(), env=clean_env(LD_LIBRARY_PATH=dnn_libdir()))
        self.assertIsNone(finding(doc, fid="libraries.cudnn-conv.gpu0"))

    def test_not_initialized(self):
        assert_cause(self, deep(FAKE_CUDNN_CREATE_RC="1001"), "cudnn-not-initialized", "fail")

    def test_no_kernel_for_arch(self):
        f = assert_cause(self, deep(FAKE_CUDNN_CONV_RC="3007"), "cudnn-no-kernel-for-arch", "fail")
        self.assertIn("ARCH_MISMATCH", f["evidence"][0])

    def test_wrong_result(self):
        f = assert_cause(self, deep(FAKE_CUDNN_WRONG="1"), "cudnn-wrong-result", "fail")
        self.assertIn("worst relative error", f["evidence"][0])

    def test_hang(self):
        f = assert_cause(self, deep(args=("--timeout", "3"), FAKE_CUDNN_HANG="1"), "cudnn-hang", "fail")
        self.assertIn("did not finish within", f["evidence"][0])

    def test_call_failed(self):
        assert_cause(self, deep(FAKE_CUDNN_CONV_RC="2000"), "cudnn-call-failed", "fail")

    def test_nccl_failed(self):
        f = assert_cause(self, deep(gpus=2, FAKE_NCCL_INIT_RC="2", FAKE_NCCL_WARN="Call to posix_fallocate failed"),
                         "nccl-call-failed", "fail")
        self.assertTrue(any("posix_fallocate" in e for e in f["evidence"]), f)

    def test_nccl_hang(self):
        assert_cause(self, deep(gpus=2, args=("--timeout", "3"), FAKE_NCCL_HANG="1"), "nccl-hang", "fail")



class TestOneJudge(GDTestCase):
    """bench and check --deep judge a fault with the same code (issue 22): the
    same cause, and the same status (bench's "fail" is check's "fail")."""

    def test_same_cause_and_status(self):
        faults = [(1, dict(FAKE_CUDNN_CREATE_RC="1001"), "cudnn-not-initialized"),
                  (1, dict(FAKE_CUDNN_CONV_RC="3007"), "cudnn-no-kernel-for-arch"),
                  (1, dict(FAKE_CUDNN_WRONG="1"), "cudnn-wrong-result"),
                  (2, dict(FAKE_NCCL_INIT_RC="2"), "nccl-call-failed")]
        for gpus, env, cause in faults:
            with self.subTest(cause=cause):
                rc, doc = bench(["--conv-shape", SMALL], FAKE_CUDA_DEVICES=str(gpus), **env)
                b = {(f["cause"], f["severity"]) for g in doc["gpus"] for f in g["findings"]}
                b |= {(f["cause"], f["severity"]) for f in (doc.get("nccl") or {}).get("findings", [])}
                b = {x for x in b if x[0] != "pageable-copies-slow"}   # the fake's copies, not the fault
                d = deep(gpus=gpus, **env)
                c = {(f["cause"], f["status"]) for f in d["findings"]
                     if f["id"].startswith(("libraries.cudnn-conv", "libraries.nccl")) and f["cause"]}
                self.assertEqual(b, {(cause, "fail")}, json.dumps(doc["gpus"][0]["findings"], indent=1)[:2000])
                self.assertEqual(c, {(cause, "fail")})
                self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
