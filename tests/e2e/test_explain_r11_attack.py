"""Round 11's attacker's findings on the rows, kept as tests.

- The vocabulary tier (term-*) read error words in lines that deny them:
  a healthy Fabric Manager, MIG, cgroup or P2P line named a cause
  (explain.c says_all_clear), and nvcc's routine 'architectures are
  deprecated' warning named gpu-arch-unsupported (term-arch no longer takes
  'deprecated').
- torch's 'Found no NVIDIA driver' after 'docker run --gpus all' named the
  container started without GPUs beside the runtime: the request is evidence
  against it (?!@gpu-requested).
Each has a near miss that still names its cause.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import explain_causes  # noqa: E402


causes = explain_causes


TORCH = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
         "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")


class AllClear(unittest.TestCase):
    def test_lines_that_deny_their_error_words_name_nothing(self):
        for line in ("Fabric Manager started. No errors found.",
                     "MIG mode is disabled; skipping MIG checks (no error)",
                     "cgroup v2 enabled, no warnings",
                     "P2P results: Verification passed, no incorrect values",
                     "nvcc warning : The 'compute_35', 'compute_37', 'sm_35', and 'sm_37' architectures "
                     "are deprecated, and may be removed in a future release",
                     "[TRT] [W] sm_86 kernels are deprecated"):
            self.assertEqual(causes(line + "\n"), [], line)

    def test_near_miss_the_same_links_failing_still_name_their_cause(self):
        for line, cause in (("Fabric Manager failed to start: error initializing NVSwitch",
                             "fabric-manager-not-running"),
                            ("P2P copies hang between GPU 0 and GPU 1", "pcie-acs-blocks-p2p"),
                            ("compute capability 3.5 is no longer supported by this build",
                             "gpu-arch-unsupported")):
            self.assertIn(cause, causes(line + "\n"), line)


class GpusRequested(unittest.TestCase):
    def test_a_request_is_evidence_against_the_missing_request(self):
        got = causes("$ docker run --rm --gpus all pytorch/pytorch python train.py\n" + TORCH)
        self.assertNotIn("container-gpu-not-requested", got)
        self.assertIn("container-runtime-missing", got)

    def test_near_miss_without_the_request(self):
        got = causes("$ docker run --rm pytorch/pytorch python train.py\n" + TORCH)
        self.assertIn("container-gpu-not-requested", got)


if __name__ == "__main__":
    unittest.main()
