"""gpudoctor explain on two jobs' logs pasted one after the other.

src/explain/explain.c's own_size_elsewhere() lets figures elsewhere in a log
(XLA's "byte size of input/output arguments (N) exceeds the base limit (M)")
say that a bare out-of-memory report is the job's own size.  Such a line
belongs to the report printed after it: a second job's size must not make
the first job's report scope.  The logs are the H200 captures of
tests/explain/h200 (a JAX job on a GPU another process holds; a JAX job too
big for the GPU).
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR  # noqa: E402

H200 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "explain", "h200")


def read(name):
    with open(os.path.join(H200, name), "rb") as f:
        return f.read()


def explain(data):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return json.loads(p.stdout)


def classes(doc, rule):
    return [(m["class"], [c["cause"] for c in m.get("causes", [])]) for m in doc["matches"] if m["rule"] == rule]


class OomConcat(unittest.TestCase):
    def test_a_later_jobs_size_leaves_the_earlier_report_neutral(self):
        held, big = read("jax-oom-held.txt"), read("jax-oom-big-noprealloc.txt")
        doc = explain(held + big)
        # the first job's allocation failure keeps the neutral cause it has alone
        self.assertEqual(classes(explain(held), "cuda-oom-generic"), [("cause", ["gpu-out-of-memory"])])
        self.assertEqual(classes(doc, "cuda-oom-generic"), [("cause", ["gpu-out-of-memory"])])
        self.assertEqual(doc["result"]["most_specific_cause"], "gpu-out-of-memory")
        # near miss: the second job's own report is still its size (scope)
        self.assertTrue(classes(doc, "tf-bfc-ran-out"))
        self.assertIn(("scope", []), classes(doc, "tf-bfc-ran-out"))
        self.assertEqual(explain(big)["result"]["stack_matches"], 0)


if __name__ == "__main__":
    unittest.main()
