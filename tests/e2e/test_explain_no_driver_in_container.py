"""A program that finds no driver: the container started without its GPUs is a candidate.

The same words come from a host without the driver and from a container that
was started without the NVIDIA runtime or --gpus (no libcuda.so.1 is injected).
Across the corpus' readable sets, torch's "Found no NVIDIA driver" was the
second cause by count (container-gpu-not-requested 3 of 10, after no-nvidia-gpu
4), so torch-no-driver, tf-no-cuda-drivers and dlopen-libcuda name it beside the
host's causes unless the log is from WSL.  The CUDA runtime's error 35
('driver version is insufficient') has the same origin when no libcuda loads
at all (https://github.com/NVIDIA/nvidia-docker/issues/24), but is far more
often a real old driver (1 of 22 in the corpus), so cuda-insufficient-driver
names the container only when the log shows one (@in-container).
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import explain_causes  # noqa: E402

TORCH = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
         "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")
DLOPEN = "./sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory\n"
RT35 = "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"


causes = explain_causes


class NoDriverInContainer(unittest.TestCase):
    def test_torch_no_driver_names_the_container_beside_the_host(self):
        got = causes(TORCH)
        self.assertIn("container-gpu-not-requested", got)
        self.assertIn("nvidia-module-not-loaded", got)

    def test_libcuda_missing_names_the_container(self):
        got = causes(DLOPEN)
        self.assertIn("container-gpu-not-requested", got)
        self.assertIn("libcuda-missing", got)

    def test_near_miss_wsl_is_not_a_container(self):
        for text in (TORCH, DLOPEN):
            got = causes("uname -r: 5.15.153.1-microsoft-standard-WSL2\n" + text)
            self.assertNotIn("container-gpu-not-requested", got)

    def test_runtime_error_35_in_a_container(self):
        for ctx in ("When trying to run it in a docker on my server:\n",
                    "$ docker run --rm -it myimage python run.py\n",
                    "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\n"):
            got = causes(ctx + RT35)
            self.assertIn("container-gpu-not-requested", got, ctx)
            self.assertIn("framework-driver-too-old", got, ctx)

    def test_near_miss_runtime_error_35_on_a_host(self):
        got = causes("$ python run.py\n" + RT35)
        self.assertNotIn("container-gpu-not-requested", got)
        self.assertIn("framework-driver-too-old", got)


if __name__ == "__main__":
    unittest.main()
