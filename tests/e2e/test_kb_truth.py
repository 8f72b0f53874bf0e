"""Knowledge truth, round 3 (issue 21): each audit class has a test that
fails for the wrong fact, not only for the named instance.

- XID actions are NVIDIA's, read from the line where NVIDIA carries them in
  the message (154), and labelled gpudoctor's judgement where the catalogue
  gives none (162-172).
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import clean_env, run  # noqa: E402


def explain_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        rc, out, err = run(["explain", "--json", name], env=clean_env())
    finally:
        os.unlink(name)
    return json.loads(out)


def decoded(doc):
    out = []
    for m in doc["matches"]:
        out += [str(v) for v in (m.get("decoded") or {}).values() if v]
    return "\n".join(out)


class FourPartVersions(unittest.TestCase):
    """JAX 0.12.0.1 and 0.9.0.1 are on PyPI (https://pypi.org/pypi/jax/json,
    read 2026-12-01); a four-part release is a release."""

    def test_jax_four_part_releases(self):
        for v in ("0.12.0.1", "0.9.0.1"):
            rc, out, err = run(["matrix", "--jax", v], env=clean_env())
            self.assertNotIn("never released", err, v)
            self.assertIn('jax[cuda13]==%s' % v, out, v)

    def test_unreleased_four_part_refused(self):
        rc, out, err = run(["matrix", "--jax", "0.12.0.2"], env=clean_env())
        self.assertIn("never released", err)

    def test_release_list_in_order(self):
        # facts.tsv's list is in version order, four-part releases included
        import re
        from gdtest import REPO
        for line in open(os.path.join(REPO, "src/knowledge/data/facts.tsv"), encoding="utf-8"):
            if line.startswith("jax.releases\t"):
                vs = line.split("\t")[1].split()
        key = [tuple(int(x) for x in v.split(".")) for v in vs]
        self.assertEqual(key, sorted(key))
        self.assertIn("0.12.0.1", vs)
        self.assertTrue(all(re.fullmatch(r"[0-9]+(\.[0-9]+)+", v) for v in vs))


class XidActions(unittest.TestCase):
    def line(self, xid, msg):
        return "NVRM: Xid (PCI:0000:3b:00): %d, pid=1234, name=python3, %s\n" % (xid, msg)

    def test_154_action_from_the_message(self):
        # the catalogue's bucket for 154 is "XID_154": the action is in the line
        for code, words, action in ((2, "Node Reboot Required", "reboot"),
                                    (1, "GPU Reset Required", "reset-gpu"),
                                    (0, "None", "none"),
                                    (4, "Drain and Reset", "drain")):
            d = decoded(explain_text(self.line(
                154, "GPU recovery action changed from 0x3 (Drain P2P) to 0x%x (%s)" % (code, words))))
            self.assertIn("NVIDIA's action: %s (in the message: %s)" % (action, words), d)

    def test_154_without_an_action_keeps_the_catalogue(self):
        d = decoded(explain_text(self.line(154, "GPU recovery action changed")))
        self.assertIn("NVIDIA's action: drain", d)
        self.assertNotIn("in the message", d)

    def test_no_catalogue_action_is_gpudoctors_judgement(self):
        for xid in (162, 165, 167, 172):
            d = decoded(explain_text(self.line(xid, "something")))
            self.assertIn("gpudoctor's judgement", d, xid)
            self.assertNotIn("NVIDIA's action", d, xid)
        # a catalogued XID is NVIDIA's
        d = decoded(explain_text(self.line(79, "GPU has fallen off the bus.")))
        self.assertIn("NVIDIA's action: reboot", d)
        self.assertNotIn("judgement", d)

    def test_45_alone_restart_fabric_manager(self):
        d = decoded(explain_text(self.line(45, "Ch 00000008, errorString CTX SWITCH TIMEOUT")))
        self.assertIn("restart Fabric Manager", d)
        d = decoded(explain_text(self.line(48, "An uncorrectable double bit error")))
        self.assertNotIn("Fabric Manager", d)


if __name__ == "__main__":
    unittest.main()
