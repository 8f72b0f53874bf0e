"""explain, issue 20 round 11 (fwlib): a CPU-only framework build is named from a build
line beside a GPU-unused symptom (or the symptom beside nvidia-smi's working driver), and
a prompt's call and the value it echoed on the next line are read as one statement
(logjoin's repl_value()).  Each test has a near miss that must stay quiet."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR  # noqa: E402


def explain(data):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    doc = json.loads(p.stdout)
    causes = sorted({c["cause"] for m in doc["matches"] if m["class"] == "cause" for c in m["causes"]})
    return [m["rule"] for m in doc["matches"]], causes


class PromptEcho(unittest.TestCase):
    # the REPL form of https://github.com/pytorch/pytorch/issues/102936 (torch==2.0.0+cpu on a GTX 1650)
    TORCH = b">>> import torch\n>>> torch.__version__\n'2.0.0+cpu'\n>>> torch.cuda.is_available()\nFalse\n"

    def test_call_and_echoed_value_are_one_statement(self):
        rules, causes = explain(self.TORCH)
        self.assertIn("sys-torch-cuda-false-container", rules)
        self.assertEqual(causes, ["framework-cpu-only"])

    def test_tensorflow_probes(self):
        # TensorFlow's own probes, as its install guide has users run them, on a CPU-only build
        rules, causes = explain(b">>> tf.config.list_physical_devices('GPU')\n[]\n"
                                b">>> tf.test.is_built_with_cuda()\nFalse\n")
        self.assertIn("fwlib-cpu-fallback-symptom", rules)
        self.assertEqual(causes, ["framework-cpu-only"])

    def test_near_miss_value_that_is_not_an_echo(self):
        # a value on a line of its own after a line that is no call, and a call answered True
        self.assertEqual(explain(b"torch.cuda.is_available is checked below\nFalse\n")[1], [])
        self.assertEqual(explain(b">>> torch.cuda.is_available()\nTrue\n")[1], [])

    def test_near_miss_cpu_build_without_a_symptom(self):
        # the build alone is an inventory: a CPU build on a machine meant for the CPU is no failure
        self.assertEqual(explain(b">>> torch.__version__\n'2.0.0+cpu'\n")[1], [])


class CpuBuildSymptom(unittest.TestCase):
    def test_symptom_beside_a_working_driver(self):
        # transformers' pipeline on the CPU while nvidia-smi's table shows the driver answering
        rules, causes = explain(b"| NVIDIA-SMI 535.98                 Driver Version: 535.98       CUDA Version: 12.2     |\n"
                                b"Device set to use cpu\n")
        self.assertIn("fwlib-cpu-fallback-symptom", rules)
        self.assertEqual(causes, ["framework-cpu-only"])
        # near miss: the same line with neither a CPU build nor a driver shown
        self.assertEqual(explain(b"Device set to use cpu\n")[1], [])


if __name__ == "__main__":
    unittest.main()
