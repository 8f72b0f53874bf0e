"""check applies the combination rules that matrix and plan apply (issue 9),
to the frameworks installed on fixture machines:
  - the PTX JIT rule: a build that reaches the GPU only through PTX needs a
    driver at least as new as the toolkit that wrote the PTX;
  - the first driver that knows the GPU (per PCI id, gpu_drivers.tsv) and
    the last driver branch of its architecture (archs.tsv);
  - known failures (failures.tsv): TensorFlow 2.16..2.21 on Blackwell.
Each has a near miss that must not trigger it."""
import json

import fixtures
import fixtures_fw as fw
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env, finding

B200_PCI_ID = 0x2901      # Blackwell, CC 10.0, first driver 570.86.15
GTX1080_PCI_ID = 0x1b80   # Pascal, CC 6.1, last branch R580


def env(**kw):
    e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv")
    e.update({k: str(v) for k, v in kw.items()})
    return e


def tf220_root(driver_version=fixtures.DRIVER_VERSION, device_id=fixtures.H200_PCI_ID):
    """TensorFlow 2.20 as its wheel is built: SASS sm_60..sm_89 and compute_90 PTX
    from CUDA 12.5.1 (build_info.py), with its [and-cuda] wheels."""
    r = fixtures.healthy_root(driver_version=driver_version, device_id=device_id)
    site = fw.add_venv(r)
    fw.add_tensorflow(r, site, version="2.20.0", build_info=fw.TF_BUILD_INFO_220)
    fw.add_cuda12_wheels(r, site, cudnn="9.3.0.75")
    return r


def torch_root(driver_version=fixtures.DRIVER_VERSION, device_id=fixtures.H200_PCI_ID):
    r = fixtures.healthy_root(driver_version=driver_version, device_id=device_id)
    site = fw.add_venv(r)
    fw.add_torch(r, site, archs=("sm_60", "sm_80", "sm_90"))
    fw.add_torch_cu12_wheels(r, site)
    return r


# the fake libcuda always says H200: with --no-load the GPU's identity comes from its
# PCI id and the knowledge base
NO_LOAD = "--no-load"


class PtxJit(GDTestCase):
    def test_ptx_from_a_newer_toolkit_than_the_driver(self):
        # H200 (sm_90): TF 2.20 has no sm_90 SASS, only compute_90 PTX from CUDA 12.5;
        # driver 550.54.15 (CUDA 12.4) runs its 12.x runtime (minor-version
        # compatibility) but cannot JIT 12.5's PTX (needs 555.42.02)
        doc = check(tf220_root(driver_version="550.54.15"), env=env())
        f = assert_cause(self, doc, "ptx-too-new-for-driver", "fail")
        self.assertEqual(f["layer"], "frameworks")
        self.assertEqual(f["id"], "frameworks.opt_venv.tensorflow.ptx0")
        self.assertIn("only through PTX from CUDA 12.5.1", f["title"])
        ev = "\n".join(f["evidence"])
        self.assertIn("built for: sm_60 sm_70 sm_80 sm_89 compute_90", ev)
        self.assertIn("its PTX compute_90 JIT-compiles", ev)
        self.assertIn("the PTX comes from CUDA 12.5.1", ev)
        self.assertIn("driver 550.54.15 (", ev)
        self.assertIn("driver 550.54.15 is older than 555.42.02", ev)
        self.assertIn("source: ptx-jit-rule https://docs.nvidia.com/", ev)
        self.assertIn("555.42.02", f["fix"])
        assert_no_cause(self, doc, "framework-driver-too-old")
        s = finding(doc, fid="frameworks.opt_venv.tensorflow")
        self.assertEqual(s["cause"], "ptx-too-new-for-driver", json.dumps(s, indent=1))
        self.assertIn("cannot JIT-compile its PTX", s["title"])
        self.assertEqual(s["fix"], f["fix"])

    def test_near_miss_driver_new_enough_for_the_ptx(self):
        doc = check(tf220_root(driver_version="555.42.02"), env=env())
        assert_no_cause(self, doc, "ptx-too-new-for-driver")
        s = finding(doc, fid="frameworks.opt_venv.tensorflow")
        self.assertNotIn("PTX", s["title"])

    def test_near_miss_sass_needs_no_jit(self):
        # torch with sm_90 SASS built with CUDA 12.4 on the same old driver: no JIT at all
        doc = check(torch_root(driver_version="550.54.15"), env=env())
        assert_no_cause(self, doc, "ptx-too-new-for-driver")


class KnownFailure(GDTestCase):
    def test_tensorflow_on_blackwell(self):
        doc = check(tf220_root(device_id=B200_PCI_ID), NO_LOAD, env=env())
        f = assert_cause(self, doc, "gpu-arch-unsupported", "fail")
        self.assertEqual(f["id"], "frameworks.opt_venv.tensorflow.known-failure0")
        self.assertIn("TensorFlow 2.20.0 is known to fail on GPU 0", f["title"])
        self.assertIn("sm_100", f["title"])
        ev = "\n".join(f["evidence"])
        self.assertIn("known failure of TensorFlow 2.16..2.21 on compute capability 10.0..12.9", ev)
        self.assertIn("CUDA_ERROR_INVALID_PTX", ev)
        self.assertIn("built for: sm_60 sm_70 sm_80 sm_89 compute_90", ev)
        self.assertIn("source: tf-issue-90291 https://github.com/tensorflow/tensorflow/issues/90291", ev)
        self.assertIn("sm_100", f["fix"])
        s = finding(doc, fid="frameworks.opt_venv.tensorflow")
        self.assertEqual(s["cause"], "gpu-arch-unsupported", json.dumps(s, indent=1))
        self.assertIn("known to fail", s["title"])

    def test_near_miss_same_release_on_hopper(self):
        doc = check(tf220_root(), NO_LOAD, env=env())
        assert_no_cause(self, doc, "gpu-arch-unsupported")
        self.assertEqual(finding(doc, fid="frameworks.opt_venv.tensorflow")["status"], "ok")

    def test_near_miss_torch_on_blackwell(self):
        # the known failure is TensorFlow's: torch with compute PTX it can JIT is not judged by it
        r = fixtures.healthy_root(device_id=B200_PCI_ID)
        site = fw.add_venv(r)
        fw.add_torch(r, site, archs=("sm_80", "sm_90", "sm_100"))
        fw.add_torch_cu12_wheels(r, site)
        assert_no_cause(self, check(r, NO_LOAD, env=env()), "gpu-arch-unsupported")


class DriverKnowsGpu(GDTestCase):
    def test_driver_older_than_the_gpu(self):
        # a new chip's first cards: the B200 (10de:2901, GB100) is first listed by 570.86.15,
        # and no id of GB100 is listed before it (the first-release rule)
        doc = check(torch_root(driver_version="565.57.01", device_id=0x2901), NO_LOAD, env=env())
        f = assert_cause(self, doc, "driver-too-old-for-gpu", "fail")
        self.assertEqual(f["layer"], "driver")
        self.assertEqual(f["id"], "driver.knows-gpu.0000:18:00.0")
        self.assertEqual(f["title"], "driver 565.57.01 does not know GPU 0000:18:00.0 (NVIDIA B200, PCI id 10de:2901)")
        ev = "\n".join(f["evidence"])
        self.assertIn("/sys/bus/pci/devices/0000:18:00.0: 10de:2901", ev)
        self.assertIn("driver 565.57.01 (", ev)
        self.assertIn("first driver that lists it (PCI id 10de:2901) is 570.86.15", ev)
        self.assertIn("source: open-gpu-chips https://github.com/NVIDIA/open-gpu-kernel-modules", ev)
        self.assertIn("570.86.15", f["fix"])
        # the framework's verdict follows: it has no GPU to run on
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertEqual(s["cause"], "driver-too-old-for-gpu", json.dumps(s, indent=1))
        self.assertIn("570.86.15", s["fix"])

    def test_unlisted_id_of_a_supported_chip(self):
        # the H200 (10de:2335) is first listed by 550.40.65, but GH100 (the H100 PCIe,
        # 10de:2331) since 520.56.06: 545.29.06 binds it, without NVIDIA's support
        doc = check(torch_root(driver_version="545.29.06"), env=env())
        assert_no_cause(self, doc, "driver-too-old-for-gpu")
        f = assert_cause(self, doc, "gpu-not-officially-supported", "warn")
        self.assertEqual(f["id"], "driver.knows-gpu.0000:18:00.0")
        self.assertIn("not officially supported", f["title"])
        ev = "\n".join(f["evidence"])
        self.assertIn("first listed in 550.40.65", ev)
        self.assertIn("GH100", ev)
        self.assertIn("550.40.65", f["fix"])

    def test_near_miss_first_driver_that_lists_it(self):
        doc = check(torch_root(driver_version="550.40.65"), env=env())
        assert_no_cause(self, doc, "driver-too-old-for-gpu")
        assert_no_cause(self, doc, "gpu-not-officially-supported")
        assert_no_cause(self, doc, "driver-too-new-for-gpu")

    def test_driver_branch_after_the_architectures_last(self):
        # Pascal's last branch is R580
        doc = check(torch_root(driver_version="590.44.01", device_id=GTX1080_PCI_ID), NO_LOAD, env=env())
        f = assert_cause(self, doc, "driver-too-new-for-gpu", "fail")
        self.assertEqual(f["layer"], "driver")
        self.assertIn("no longer supports GPU 0000:18:00.0 (NVIDIA GeForce GTX 1080, Pascal)", f["title"])
        self.assertIn("R580", f["title"])
        self.assertIn("nvidia-driver-580", f["fix"])
        ev = "\n".join(f["evidence"])
        self.assertIn("newer than R580, the last driver branch for Pascal", ev)
        s = finding(doc, fid="frameworks.opt_venv.torch")
        self.assertEqual(s["cause"], "driver-too-new-for-gpu", json.dumps(s, indent=1))

    def test_near_miss_last_branch_itself(self):
        doc = check(torch_root(device_id=GTX1080_PCI_ID), NO_LOAD, env=env())
        assert_no_cause(self, doc, "driver-too-new-for-gpu")
        assert_no_cause(self, doc, "driver-too-old-for-gpu")


T4_PCI_ID = 0x1eb8        # Turing, CC 7.5


def tf220_cudnn_root(cudnn, device_id=GTX1080_PCI_ID):
    """TensorFlow 2.20 (SASS sm_60..sm_89, so it runs on Pascal itself) with the cuDNN wheel given."""
    r = fixtures.healthy_root(device_id=device_id)
    site = fw.add_venv(r)
    fw.add_tensorflow(r, site, version="2.20.0", build_info=fw.TF_BUILD_INFO_220)
    fw.add_cuda12_wheels(r, site, cudnn=cudnn)
    return r


def torch_cudnn_root(cudnn, device_id=GTX1080_PCI_ID):
    """torch 2.8.0+cu126 as its wheel is built (sm_50..sm_90) with the cuDNN wheel given."""
    r = fixtures.healthy_root(device_id=device_id)
    site = fw.add_venv(r)
    fw.add_torch(r, site, version="2.8.0+cu126", cuda="'12.6'",
                 archs=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"), cudnn_pin=None)
    fw.add_torch_cu12_wheels(r, site, cudnn=cudnn)
    return r


class CudnnCapabilityFloor(GDTestCase):
    """cuDNN 9.11 and later ship no code for compute capability < 7.5 (cudnn.tsv): the cuDNN a
    framework loads is judged against the GPU, as matrix and plan judge the cuDNN they pick."""

    def assert_pascal_finding(self, doc, fw_name, pretty):
        f = assert_cause(self, doc, "cudnn-no-kernel-for-arch", "fail")
        self.assertEqual(f["layer"], "frameworks")
        self.assertEqual(f["id"], f"frameworks.opt_venv.{fw_name}.cudnn-arch0")
        self.assertIn(f"{pretty} ", f["title"])
        self.assertIn("would load cuDNN 9.19.0.56, which has no code for GPU 0", f["title"])
        self.assertIn("GeForce GTX 1080", f["title"])
        self.assertIn("sm_61", f["title"])
        ev = "\n".join(f["evidence"])
        self.assertIn("libcudnn.so.9 -> /opt/venv/", ev)
        self.assertIn("nvidia/cudnn/lib/libcudnn.so.9", ev)
        self.assertIn("version 9.19.0.56", ev)
        self.assertIn("compute capability 6.1", ev)
        self.assertIn("its floor is 7.5", ev)
        self.assertIn("line 9.17 and later", ev)
        self.assertIn("source: cudnn-sm-9170 https://docs.nvidia.com/", ev)
        self.assertIn("-m pip install nvidia-cudnn-cu12==9.10.2.21", f["fix"])
        s = finding(doc, fid=f"frameworks.opt_venv.{fw_name}")
        self.assertEqual(s["cause"], "cudnn-no-kernel-for-arch", json.dumps(s, indent=1))
        self.assertEqual(s["status"], "fail")
        self.assertEqual(s["fix"], f["fix"])
        return f

    def test_tensorflow_cudnn_919_on_pascal(self):
        doc = check(tf220_cudnn_root("9.19.0.56"), NO_LOAD, env=env())
        self.assert_pascal_finding(doc, "tensorflow", "TensorFlow 2.20.0")
        assert_no_cause(self, doc, "gpu-arch-unsupported")

    def test_torch_cudnn_919_on_pascal(self):
        doc = check(torch_cudnn_root("9.19.0.56"), NO_LOAD, env=env())
        self.assert_pascal_finding(doc, "torch", "PyTorch 2.8.0+cu126")

    def test_near_miss_cudnn_9_10_2_on_pascal(self):
        for root in (tf220_cudnn_root("9.10.2.21"), torch_cudnn_root("9.10.2.21")):
            doc = check(root, NO_LOAD, env=env())
            assert_no_cause(self, doc, "cudnn-no-kernel-for-arch")

    def test_near_miss_cudnn_919_on_turing_and_hopper(self):
        for dev in (T4_PCI_ID, fixtures.H200_PCI_ID):
            for root in (tf220_cudnn_root("9.19.0.56", device_id=dev),
                         torch_cudnn_root("9.19.0.56", device_id=dev)):
                doc = check(root, NO_LOAD, env=env())
                assert_no_cause(self, doc, "cudnn-no-kernel-for-arch")
