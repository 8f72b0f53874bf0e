"""Real output captured on the project's H200 (2026-12-02, session 8), read by explain.

tests/explain/h200/README lists each capture and how it was made.  These three
exercise rows added in round 10 on text the machine printed, not text recalled:
- torch-cvd-empty.txt: `export CUDA_VISIBLE_DEVICES=""`, then torch's "No CUDA
  GPUs are available" (fw-cvd-set-no-gpu names gpu-hidden-by-env);
- jax-cvd-minus1.txt: CUDA_VISIBLE_DEVICES=-1 and jaxlib's cuInit(0)
  CUDA_ERROR_NO_DEVICE;
- smi-fabric-na.txt: `nvidia-smi -q` Fabric State "N/A" on a GPU without
  NVSwitch, the near miss of hw-fabric-state-pending.
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, clean_env  # noqa: E402

H200 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "explain", "h200")


def explain(text):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       capture_output=True, env=clean_env(), timeout=60)
    return json.loads(p.stdout)


def capture(name):
    with open(os.path.join(H200, name), encoding="utf-8") as f:
        return f.read()


def rules(doc):
    return [m["rule"] for m in doc["matches"]]


def causes(doc):
    return {c["cause"] for m in doc["matches"] if m["class"] == "cause" for c in m["causes"]}


class H200Captures(unittest.TestCase):
    def test_torch_with_an_empty_visible_devices(self):
        doc = explain(capture("torch-cvd-empty.txt"))
        self.assertIn("fw-cvd-set-no-gpu", rules(doc))
        self.assertEqual(doc["result"]["most_specific_cause"], "gpu-hidden-by-env")

    def test_near_miss_the_same_error_without_the_setting(self):
        # the log does not show CUDA_VISIBLE_DEVICES: the row that reads the setting stays silent
        text = "".join(l for l in capture("torch-cvd-empty.txt").splitlines(True)
                       if "CUDA_VISIBLE_DEVICES" not in l)
        self.assertNotIn("fw-cvd-set-no-gpu", rules(explain(text)))

    def test_jax_with_visible_devices_minus_one(self):
        doc = explain(capture("jax-cvd-minus1.txt"))
        self.assertIn("gpu-hidden-by-env", causes(doc))
        self.assertEqual(doc["result"]["most_specific_cause"], "gpu-hidden-by-env")

    def test_fabric_state_na_is_no_finding(self):
        self.assertEqual(rules(explain(capture("smi-fabric-na.txt"))), [])

    def test_fabric_state_in_progress_is(self):
        # the same section as a fabric-managed GPU prints it before Fabric Manager ran
        text = capture("smi-fabric-na.txt").replace("State                                          : N/A",
                                                    "State                                          : In Progress")
        self.assertIn("fabric-manager-not-running", causes(explain(text)))


class SaysNothing(unittest.TestCase):
    """A row whose every cause needs evidence ("?+") and found none is a benign
    line (explain.c says_nothing()): configuration, not a failure."""

    def test_visible_devices_in_a_run_that_works(self):
        doc = explain("+ export CUDA_VISIBLE_DEVICES=0,1\nepoch 1 step 100 loss 0.231 on cuda:0\n")
        self.assertEqual([(m["rule"], m["class"]) for m in doc["matches"]], [("fw-cvd-set-no-gpu", "benign")])
        self.assertEqual(doc["result"]["stack_matches"], 0)
        self.assertEqual(doc["result"]["exit"], 3)

    def test_a_status_block_in_progress_outside_fabric(self):
        doc = explain("Migration job 42\n    State : In Progress\n    Done  : 40 %\n")
        self.assertEqual(doc["result"]["stack_matches"], 0)

    def test_near_miss_the_setting_with_its_symptom_still_names(self):
        doc = explain("+ export CUDA_VISIBLE_DEVICES=7\nRuntimeError: No CUDA GPUs are available\n")
        self.assertIn("gpu-hidden-by-env", causes(doc))


if __name__ == "__main__":
    unittest.main()
