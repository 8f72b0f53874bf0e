"""The cause catalogue as a contract, walked whole.

src/knowledge/causes.def is the single source of cause ids.  Every id in it
must be documented (title, why, fix), produced by at least one rule (its
CAUSE_ enum used in code of src/ outside the catalogue and outside lists
that only name causes, or named by a rule of explain,
src/knowledge/data/explain.tsv), and triggered by at least one test: some
test's run of gpudoctor printed it.  That last contract needs the whole
suite's output, so it lives in catalogue_triggered.py, which run.py runs
after every test file (a mention of the id in a test's source does not
count).  An id produced in src/ that the catalogue does not define cannot
compile, so that direction needs no test.
"""
import glob
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DEF = os.path.join(TOP, "src", "knowledge", "causes.def")

ROW = re.compile(r'^CAUSE\((\w+), "([a-z0-9-]+)", (LAYER_\w+), (SEV_\w+),\s*'
                 r'((?:"(?:[^"\\]|\\.)*"\s*,\s*){4}"(?:[^"\\]|\\.)*")\)', re.M | re.S)
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def catalogue():
    text = open(DEF, encoding="utf-8").read()
    rows = []
    for m in ROW.finditer(text):
        fields = STR.findall(m.group(5))
        rows.append({"name": m.group(1), "id": m.group(2), "layer": m.group(3),
                     "severity": m.group(4), "title": fields[0], "why": fields[1],
                     "verify": fields[2], "fix": fields[3], "sources": fields[4]})
    return rows, text.count("\nCAUSE(") + text.startswith("CAUSE(")


def read_tree(patterns):
    out = {}
    for pat in patterns:
        for p in glob.glob(os.path.join(TOP, pat), recursive=True):
            if os.path.isfile(p):
                out[p] = open(p, encoding="utf-8", errors="replace").read()
    return out


class Catalogue(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows, cls.count = catalogue()

    def test_every_row_parses(self):
        self.assertGreater(len(self.rows), 40)
        self.assertEqual(len(self.rows), self.count,
                         "a CAUSE() row of causes.def does not have the documented shape")

    def test_every_id_is_documented(self):
        for r in self.rows:
            for k in ("title", "why", "fix"):
                self.assertTrue(r[k].strip(), f"{r['id']}: empty {k}")
            self.assertEqual(r["name"], r["id"].upper().replace("-", "_"),
                             f"{r['id']}: enum name must be the id in capitals")

    def test_sources_are_public(self):
        """explain prints a cause's sources to users: each must be something a
        reader can look up (a document, a URL, an owner/repo#N issue), never
        the team's notes (facts.md, failures.md, shared/...) or a local path."""
        private = re.compile(r"\b(?:facts|failures|operations|style)\.md\b|\bshared/|/work/|/home/|"
                             r"\.gdtmp|\brows? \d+")
        bad = []
        for r in self.rows:
            self.assertTrue(r["sources"].strip(), f"{r['id']}: no sources")
            for part in r["sources"].split(";"):
                m = private.search(part)
                if m:
                    bad.append(f"{r['id']}: {part.strip()!r} ({m.group(0).strip()!r})")
        self.assertEqual(bad, [], "catalogue sources that are not public")

    def test_every_id_is_produced_by_a_rule(self):
        src = read_tree(["src/**/*.c", "src/**/*.h"])
        # comments name causes without producing them; confirm.c lists the
        # causes check can confirm, which produces none of them
        src = {p: re.sub(r"/\*.*?\*/|//[^\n]*", "", t, flags=re.S) for p, t in src.items()
               if not p.endswith(("causes.c", "explain/confirm.c"))}
        # explain's rules (data) produce the causes they name, too
        explain_tsv = os.path.join(TOP, "src", "knowledge", "data", "explain.tsv")
        by_explain = set()
        for line in open(explain_tsv, encoding="utf-8"):
            c = line.rstrip("\n").split("\t")
            if line.startswith("#@beside\t") and len(c) >= 3:
                # a sibling every row naming the cause names on its evidence (logrules.h)
                by_explain.update(x.split("?")[0] for x in c[2].split(";"))
            if len(c) == 11 and not line.startswith(("#", "id\t")) and c[7] != "-":
                # a cause may carry a condition on the log's evidence: "id?lit|lit"
                by_explain.update(x.split("?")[0] for x in c[7].split(";"))
        missing = [r["id"] for r in self.rows
                   if not any(re.search(r"\bCAUSE_%s\b" % r["name"], t) for t in src.values())
                   and r["id"] not in by_explain]
        self.assertEqual(missing, [], "cause ids that no code produces")

    def test_explain_confirms_every_cause_check_reports(self):
        """explain's list of causes check can confirm (src/explain/confirm.c)
        is the set of causes src/rules/ produces; --live's own cause is
        confirmed only by --live, which explain does not run."""
        # rules_cuda reports the causes of CUresult codes through curesult.c
        rules = read_tree(["src/rules/*.c", "src/**/curesult.c"])
        produced = set()
        for t in rules.values():
            produced |= set(re.findall(r"\bCAUSE_([A-Z0-9_]+)\b", t))
        produced -= {"NONE", "FRAMEWORK_LIVE_DISAGREES"}
        text = open(os.path.join(TOP, "src", "explain", "confirm.c"), encoding="utf-8").read()
        body = text[text.index("checkable[] = {"):]
        body = body[:body.index("};")]
        listed = set(re.findall(r"\bCAUSE_([A-Z0-9_]+)\b", body))
        self.assertEqual(sorted(produced - listed), [], "causes check reports that explain cannot confirm")
        self.assertEqual(sorted(listed - produced), [], "causes explain claims check reports")


if __name__ == "__main__":
    unittest.main()
