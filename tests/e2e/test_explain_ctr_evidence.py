"""Where a log was taken and what the container asked for (issue 20, round 11, ctr).

A shell prompt inside a container ('root@<12 hex digits of the container id>:',
src/explain/ctrprompt.c) says the log ran in one even when nothing else does, so
an NVML mismatch there names the image's own driver files (image-ships-libcuda,
https://github.com/E4S-Project/e4s/issues/172's shape) and a program that finds
no driver names the container started without its GPU.  The other direction:
a container that asked for its GPUs (--gpus, the nvidia runtime, a Kubernetes
nvidia.com/gpu limit: @gpu-requested) and still finds no driver names the
runtime (container-runtime-missing), beside the request.  Near misses: a host's
prompt, and the same messages without any container.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import explain_causes  # noqa: E402

MISMATCH = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 610.43\n"
TORCH = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
         "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")
JAX = "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU.\n"


causes = explain_causes


class ContainerEvidence(unittest.TestCase):
    def test_container_prompt_names_the_image(self):
        got = causes("root@5561000296a4:~/chai-cuda# nvidia-smi\n" + MISMATCH)
        self.assertIn("image-ships-libcuda", got)
        self.assertIn("driver-library-mismatch", got)

    def test_host_prompt_is_not_a_container(self):
        got = causes("root@gpu-node-01:~# nvidia-smi\n" + MISMATCH)
        self.assertNotIn("image-ships-libcuda", got)
        self.assertIn("driver-library-mismatch", got)

    def test_container_prompt_names_the_request(self):
        got = causes("(base) root@a2d7b9b1e3ab:/app# python -c 'import jax; jax.devices()'\n" + JAX)
        self.assertEqual(got, ["container-gpu-not-requested"])

    def test_app_fallback_alone_names_nothing(self):
        self.assertEqual(causes(JAX), [])

    def test_gpus_requested_names_the_runtime(self):
        for ctx in ("$ docker run --rm --gpus all myimage python app.py\n",
                    "    resources:\n      limits:\n        nvidia.com/gpu: 1\n"):
            got = causes(ctx + TORCH)
            self.assertIn("container-runtime-missing", got, ctx)
            self.assertIn("nvidia-module-not-loaded", got, ctx)

    def test_not_requested_does_not_name_the_runtime(self):
        got = causes("$ docker run --rm myimage python app.py\n" + TORCH)
        self.assertIn("container-gpu-not-requested", got)
        self.assertNotIn("container-runtime-missing", got)


if __name__ == "__main__":
    unittest.main()
