"""make kb-refresh's parsers and diffs on recorded responses (tests/kb-refresh/):
the pipeline itself needs the network and is not run here."""
import importlib.util
import io
import json
import os
import sys
import tempfile
import shutil
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import REPO  # noqa: E402

REC = os.path.join(REPO, "tests", "kb-refresh")
spec = importlib.util.spec_from_file_location("kb_refresh", os.path.join(REPO, "src/knowledge/data/kb-refresh.py"))
kbr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kbr)


def rec(name):
    return open(os.path.join(REC, name), encoding="utf-8").read()


class Parsers(unittest.TestCase):
    def test_versions_of_any_length_order(self):
        vs = ["0.12.0.1", "0.9.0", "0.12.0", "0.9.0.1", "0.10.2"]
        self.assertEqual(sorted(vs, key=kbr.vkey), ["0.9.0", "0.9.0.1", "0.10.2", "0.12.0", "0.12.0.1"])

    def test_pypi_jax(self):
        p = kbr.parse_pypi(rec("pypi-jax.json"))
        self.assertIn("0.12.0.1", p["releases"])
        self.assertIn("0.9.0.1", p["releases"])
        self.assertEqual(p["requires_python"], ">=3.12")
        # the checked-in list has them: nothing to add (the recording holds only a few
        # releases, so the others show as "-")
        self.assertEqual([l for l in kbr.diff_jax(p) if ": + " in l], [])

    def test_jax_release_missing_from_the_table_is_reported(self):
        p = kbr.parse_pypi(rec("pypi-jax.json"))
        old = kbr.read_fact
        try:
            kbr.read_fact = lambda key: "0.9.0 0.11.2 0.12.0"
            out = list(kbr.diff_jax(p))
        finally:
            kbr.read_fact = old
        self.assertTrue(any("+ 0.12.0.1" in l for l in out), out)
        self.assertTrue(any("+ 0.9.0.1" in l for l in out), out)

    def test_pypi_torch_python_from_wheels(self):
        p = kbr.parse_pypi(rec("pypi-torch.json"))
        self.assertEqual(p["releases"]["2.14.0"], ["3.10", "3.11", "3.12", "3.13", "3.14"])
        self.assertEqual(kbr.py_range(p["releases"]["2.15.0"]), "3.11-3.15")
        self.assertNotIn("3.15", p["releases"]["2.13.0"])
        # torch.tsv agrees with the wheels for the releases recorded
        self.assertEqual([l for l in kbr.diff_torch(p) if "python" in l], [])

    def test_torch_release_newer_than_the_table(self):
        # synthetic: a 2.99.0 release added to the recorded document
        d = json.loads(rec("pypi-torch.json"))
        d["releases"]["2.99.0"] = d["releases"]["2.15.0"]
        out = list(kbr.diff_torch(kbr.parse_pypi(json.dumps(d))))
        self.assertTrue(any("+ 2.99" in l and "newer than the table" in l for l in out), out)

    def test_pypi_tensorflow(self):
        p = kbr.parse_pypi(rec("pypi-tensorflow.json"))
        self.assertEqual(kbr.py_range(p["releases"]["2.21.0"]), "3.10-3.13")
        self.assertEqual(kbr.py_range(p["releases"]["2.19.0"]), "3.9-3.12")
        self.assertEqual(list(kbr.diff_tf(p)), [])

    def test_pypi_cupy(self):
        p = kbr.parse_pypi(rec("pypi-cupy-cuda12x.json"))
        self.assertIn("3.13", p["releases"]["13.4.0"])
        self.assertNotIn("3.13", p["releases"]["13.3.0"])
        self.assertEqual(list(kbr.diff_cupy(p)), [])
        p = kbr.parse_pypi(rec("pypi-cupy-cuda13x.json"))
        self.assertIn("13.6.0", p["releases"])
        self.assertEqual(list(kbr.diff_cupy(p)), [])

    def test_xid_catalogue(self):
        cat = kbr.parse_xid_catalog(rec("xid-catalog.html"))
        self.assertEqual(cat[154][2], "XID_154")
        self.assertEqual(cat[162][2], "-")        # no action in the catalogue
        self.assertEqual(cat[48][0], "ROBUST_CHANNEL_GPU_ECC_DBE")
        out = list(kbr.diff_xid(cat))
        self.assertEqual([l for l in out if "173" not in l], [], out)
        self.assertTrue(any("+ 173" in l for l in out), out)

    def test_cuda_release_notes(self):
        d = kbr.parse_cuda_drivers(rec("cuda-release-notes.html"))
        self.assertEqual(d[("13.0", "GA")], "580.65.06")
        self.assertEqual(d[("12.8", "GA")], "570.26")
        out = list(kbr.diff_cuda(d))
        self.assertEqual(out, ["cuda.tsv: + CUDA 14.0 GA, Linux driver >= 620.10.01 (cuda-rn)"])

    def test_offline_run_prints_a_reviewable_diff(self):
        buf = io.StringIO()
        lines = kbr.run(offline=REC, out=buf)
        text = buf.getvalue()
        self.assertIn("# kb-refresh: %d difference(s) to review" % len(lines), text)
        self.assertIn("CUDA 14.0", text)


if __name__ == "__main__":
    unittest.main()
