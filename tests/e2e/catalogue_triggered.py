"""Every cause of the catalogue is triggered: some test's run of gpudoctor
printed it (the records of causerec.py), not merely mentioned it.

run.py runs this after the whole e2e suite (every worker) has finished, with
E2E_CAUSES_DIR holding the records; on a partial run (E2E_PATTERN) it skips.
A cause that check, explain, bench, health and watch can only produce on real
hardware or real libraries is triggered by tests/integration or the H200
scripts: those are listed in ELSEWHERE with the test that triggers them, and
each entry must still name a real test file that mentions the id.
"""
import glob
import os
import unittest

import causerec

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# id -> the test outside the e2e suite whose output carries it
ELSEWHERE = {
}


def recorded():
    d = os.environ.get("E2E_CAUSES_DIR")
    out = {}
    for f in glob.glob(os.path.join(d or "/nonexistent", "*")):
        for line in open(f, encoding="utf-8"):
            i, _, who = line.rstrip("\n").partition("\t")
            out.setdefault(i, set()).add(who)
    return out


class CatalogueTriggered(unittest.TestCase):
    def test_every_id_is_triggered_by_a_test(self):
        if not os.environ.get("E2E_CAUSES_DIR") or os.environ.get("E2E_PARTIAL"):
            self.skipTest("only after the whole e2e suite (run.py with the default pattern)")
        got = recorded()
        self.assertGreater(len(got), 20, "the suite recorded too few causes: is causerec installed?")
        missing = sorted(i for i in causerec.catalogue_ids() if i not in got and i not in ELSEWHERE)
        self.assertEqual(missing, [], "cause ids that no test's gpudoctor output carried")

    def test_elsewhere_names_real_tests(self):
        for i, path in ELSEWHERE.items():
            self.assertIn(i, causerec.catalogue_ids(), i)
            full = os.path.join(TOP, path)
            self.assertTrue(os.path.isfile(full), f"{i}: {path} is not a file")
            self.assertIn(i, open(full, encoding="utf-8").read(), f"{i}: {path} does not mention it")


if __name__ == "__main__":
    unittest.main()
