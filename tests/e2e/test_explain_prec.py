"""explain's precision (issue 20, round 9, prec): a cause is named only on evidence the log
holds.  The evidence sets of src/knowledge/data/explain.tsv say what they prove: @wsl is WSL
named (not the letters 'wsl' inside 'awslabs'), @wsl2-named|@wsl1-kernel tells WSL 2 from
WSL 1, a container configured without the compute capability is a cause only beside a CUDA
failure (@no-cuda-symptom), a GPU revoked from a running container needs a container in the
log.  Each test has its near miss.  A job's size found elsewhere in the log counts in the
log's own order, newest first too.  And a log of one out-of-memory message repeated is read
in linear time: logjoin matched every such line three times (3.5 CPU s for 10 MB)."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, clean_env, explain_cpu  # noqa: E402

with open(GPUDOCTOR, "rb") as _f:
    SLOW = 10 if b"__asan_init" in _f.read() else 1

SMI_NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                 "Make sure that the latest NVIDIA driver is installed and running.\n")
DLOPEN_LIBCUDA = "Failed to dlopen libcuda.so.1\n"


def explain(text):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       capture_output=True, env=clean_env(), timeout=60)
    doc = json.loads(p.stdout)
    return {c["cause"] for m in doc["matches"] if m["class"] == "cause" for c in m["causes"]}


class WslEvidence(unittest.TestCase):
    def test_letters_wsl_inside_a_word_are_not_wsl(self):
        # https://github.com/awslabs/awsome-distributed-training: 'awslabs' holds 'wsl'
        causes = explain("$ git clone https://github.com/awslabs/awsome-distributed-training\n"
                         + SMI_NO_DRIVER)
        self.assertIn("nvidia-module-not-loaded", causes)
        self.assertNotIn("wsl-linux-driver-in-wsl", causes)
        self.assertNotIn("wsl1-no-gpu", causes)

    def test_near_miss_wsl_named_by_the_user(self):
        # https://github.com/microsoft/WSL/issues/3847: "Ubuntu app WSL:"
        causes = explain("#### Ubuntu app WSL:\n" + SMI_NO_DRIVER)
        self.assertIn("wsl1-no-gpu", causes)
        self.assertNotIn("nvidia-module-not-loaded", causes)

    def test_wsl1_kernel_is_not_native_linux(self):
        # the WSL 1 kernel string: no GPU there, so not "libcuda missing"
        causes = explain("Linux DESKTOP-1 4.4.0-19041-Microsoft #1237-Microsoft Sat Sep 11 14:32:00 PST 2021\n"
                         + DLOPEN_LIBCUDA)
        self.assertIn("wsl1-no-gpu", causes)
        self.assertNotIn("libcuda-missing", causes)

    def test_near_miss_native_linux_lacks_libcuda(self):
        causes = explain("Linux gpu01 6.8.0-45-generic #45-Ubuntu SMP x86_64 GNU/Linux\n" + DLOPEN_LIBCUDA)
        self.assertIn("libcuda-missing", causes)
        self.assertNotIn("wsl1-no-gpu", causes)


class TaintIsNotAFailure(unittest.TestCase):
    # the kernel prints it while it loads an unsigned module it does not refuse
    TAINT = "nvidia-uvm: module verification failed: signature and/or required key missing - tainting kernel\n"

    def test_unsigned_uvm_module_that_loaded(self):
        self.assertEqual(explain(self.TAINT), set())

    def test_near_miss_uvm_that_did_not_load(self):
        causes = explain(self.TAINT + "modprobe: ERROR: could not insert 'nvidia_uvm': Unknown symbol in module, "
                                      "or unknown parameter (see dmesg)\n")
        self.assertTrue(causes)

    def test_near_miss_enforced_signatures_refuse_it(self):
        causes = explain("Loading of module with unavailable key is rejected\n")
        self.assertIn("secure-boot-blocks-module", causes)


class CapabilitiesEvidence(unittest.TestCase):
    UTILITY = "$ docker run --rm --gpus all,capabilities=utility nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi -L\n"

    def test_utility_only_container_that_works_names_nothing(self):
        # a monitoring container asks for utility alone on purpose
        causes = explain(self.UTILITY + "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5e1c3a2b-0000-0000-0000-000000000000)\n")
        self.assertNotIn("container-caps-missing-compute", causes)

    def test_near_miss_utility_only_and_cuda_fails(self):
        # https://github.com/NVIDIA/nvidia-docker/issues/1128
        causes = explain(self.UTILITY.replace("nvidia-smi -L", "python3 -c 'import torch; torch.zeros(1).cuda()'")
                         + "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
                           "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")
        self.assertIn("container-caps-missing-compute", causes)


class RevokedEvidence(unittest.TestCase):
    def test_nvml_unknown_error_beside_a_gpu_the_driver_could_not_start(self):
        # on a host whose driver failed to initialise the GPU, not a revoked container
        causes = explain("$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n$ sudo dmesg | grep NVRM\n"
                         "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x24:0x65:1457)\n")
        self.assertNotIn("container-device-revoked", causes)
        self.assertIn("gpu-lost", causes)

    def test_nvml_unknown_error_under_wsl2(self):
        causes = explain("Linux 5.15.153.1-microsoft-standard-WSL2\nFailed to initialize NVML: Unknown Error\n")
        self.assertNotIn("container-device-revoked", causes)

    def test_near_miss_nvml_unknown_error_alone(self):
        # nvidia-container-toolkit#48: the message of a container whose devices were revoked
        self.assertIn("container-device-revoked", explain("Failed to initialize NVML: Unknown Error\n"))

    def test_visible_devices_none_hides_the_gpus(self):
        causes = explain("$ docker run --rm -e NVIDIA_VISIBLE_DEVICES=none nvidia/cuda:12.2.0-base-ubuntu22.04 "
                         "nvidia-smi\nNo devices were found\n")
        self.assertIn("gpu-hidden-by-env", causes)

    def test_no_devices_on_a_host_is_not_a_revoked_container(self):
        causes = explain("$ nvidia-smi\nNo devices were found\n")
        self.assertNotIn("container-device-revoked", causes)
        self.assertIn("no-nvidia-gpu", causes)

    def test_near_miss_no_devices_in_a_container(self):
        causes = explain("$ docker exec -it trainer nvidia-smi\nNo devices were found\n")
        self.assertIn("container-device-revoked", causes)


H200 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "explain", "h200")
XLA_SIZE = ("E1201 19:12:12.035524    2004 gpu_hlo_schedule.cc:1068] The byte size of input/output arguments "
            "(240000000004) exceeds the base limit (112583507968). This indicates an error in the calculation!\n")
STEP = "I1201 19:12:15.000000    2004 main.py:12] compiling step\n"
JAX_OOM = ("E1201 19:12:22.109113    2004 pjrt_stream_executor_client.cc:2985] Execution of replica 0 failed: "
           "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 240000000000 bytes.\n")


def matches(text):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       capture_output=True, env=clean_env(), timeout=60)
    return [(m["rule"], m["class"], [c["cause"] for c in m["causes"]]) for m in json.loads(p.stdout)["matches"]]


class NewestFirst(unittest.TestCase):
    """XLA sizes a job before it allocates: own_size_elsewhere() looks for the size above
    the report, or below it when the log's timestamps run backwards (journalctl -r)."""

    def test_size_before_the_report(self):
        self.assertIn(("jax-oom", "scope", []), matches(XLA_SIZE + STEP + JAX_OOM))

    def test_reversed_log_size_below_the_report(self):
        self.assertIn(("jax-oom", "scope", []), matches(JAX_OOM + STEP + XLA_SIZE))

    def test_near_miss_forward_log_size_after_the_report(self):
        # timestamps run forward: a size printed after the report belongs to a later job
        later = XLA_SIZE.replace("19:12:12", "19:12:32")
        self.assertIn(("jax-oom", "cause", ["gpu-out-of-memory"]), matches(STEP + JAX_OOM + later))

    def test_near_miss_reversed_two_jobs(self):
        # two jobs pasted newest first: the second job's size must not size the first's report
        with open(os.path.join(H200, "jax-oom-held.txt")) as f:
            held = f.read()
        with open(os.path.join(H200, "jax-oom-big-noprealloc.txt")) as f:
            big = f.read()
        rev = "".join(reversed((held + big).splitlines(True)))
        self.assertIn(("cuda-oom-generic", "cause", ["gpu-out-of-memory"]), matches(rev))


class RepeatedOom(unittest.TestCase):
    def run_file(self, data):
        rc, out, cpu = explain_cpu(data)
        return rc, json.loads(out), cpu

    def test_ten_megabytes_of_one_tf_oom_message(self):
        # TF 1.x's cuda_driver.cc line, each one "wrapped" into the next by logjoin's test
        line = ("2017-11-05 10:11:%02d.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:924] "
                "failed to allocate %d.%02dM (%d bytes) from device: CUDA_ERROR_OUT_OF_MEMORY\n")
        lines = "".join(line % (i % 60, i % 1000, i % 100, 1000000 + i * 7919) for i in range(5000)).encode()
        for data in (lines * (10 * (1 << 20) // len(lines) + 1),
                     b"".join(reversed((lines * (10 * (1 << 20) // len(lines) + 1)).splitlines(True)))):
            rc, doc, cpu = self.run_file(data)
            self.assertEqual(rc, 0)
            self.assertIn("tf-cuda-oom", [m["rule"] for m in doc["matches"]])
            # 3.5 CPU s before round 9, 0.9 s after, on the 2-core CI machine
            self.assertLessEqual(cpu, 2.0 * SLOW, "10 MB of TF OOM lines took %.2f CPU s" % cpu)


if __name__ == "__main__":
    unittest.main()
