"""check --format markdown with hostile machine values (issue 18): pasted into
a GitHub issue, no value may become a live @mention, an issue or commit
reference, an autolink, an emoji, math, strike-through or HTML.

GitHub finds mentions, references and autolinks in the rendered text (after
markdown's backslash escapes are gone) and never inside a code span; so the
test removes the code spans as CommonMark parses them and asserts that what
is left holds none of those shapes, and that the hostile values are still
there, inside code spans.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
import fixtures_fw as fw  # noqa: E402
from gdtest import clean_env, run  # noqa: E402

HOSTILE = ["@alice", "#12", "GH-34", "owner/repo#56", "x@example.com", "https://evil.example/x",
           "www.evil.example", "<img", "src=x>", "&lt;b&gt;", "a5c3785ed8d6a358", ":smile:", "$x$",
           "~~gone~~", "[link](http://evil.example)", "**bold**", "\u202eevil", "zero\u200bwidth",
           "pipe|cell", "tick`s"]

LIVE = [
    (r"(?<![\w`])@[A-Za-z0-9]", "an @mention"),
    (r"(?<![&\w])#\d", "an issue reference"),
    (r"\bGH-\d", "a GH- reference"),
    (r"[\w.+-]@[\w-]+\.", "an e-mail autolink"),
    (r"https?:|www\.", "a URL autolink"),
    (r"<[A-Za-z/!?]", "HTML"),
    (r"&\w+;|&#", "an HTML entity"),
    (r"\b[0-9a-f]{7,40}\b", "a commit SHA"),
    (r":[a-z_]+:", "an emoji"),
    (r"\$[^$\s]", "math"),
    (r"~~", "strike-through"),
    (r"\]\(", "a link"),
    (r"[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]", "an invisible format character"),
]


def strip_code_spans(line):
    """The line without its code spans (CommonMark: a run of n backticks up to
    the next run of exactly n)."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            fence = line[i:j]
            m = re.compile(r"(?<!`)" + fence + r"(?!`)").search(line, j)
            if m:
                out.append(" ")
                i = m.end()
                continue
            out.append(fence)
            i = j
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def hostile_root(name):
    r = fixtures.healthy_root()
    env = "opt/conda/envs/" + name.replace("/", "_")
    r.mkdir("opt/conda/conda-meta")
    r.mkdir(env + "/conda-meta")
    site = fw.add_venv(r, prefix=env)
    fw.add_torch(r, site)
    return r


class MarkdownHostile(unittest.TestCase):
    def render(self, name):
        r = hostile_root(name)
        rc, out, err = run(["check", "--no-load", "--format", "markdown"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1, err)
        return out

    def assert_inert(self, out):
        for n, line in enumerate(out.splitlines(), 1):
            if line.startswith("<details>") or line.startswith("</details>"):
                continue
            text = strip_code_spans(line)
            for pat, what in LIVE:
                m = re.search(pat, text)
                self.assertIsNone(m, f"line {n}: {what} outside a code span: {m and m.group(0)!r}\n{line}")

    def test_hostile_values_are_inert_and_still_shown(self):
        out = self.render(" ".join(HOSTILE) + " bad\x1b[31m")
        self.assert_inert(out)
        for value in HOSTILE:
            shown = (value.replace("/", "_").replace("|", "\\|").replace("\u202e", "\\u202e")
                     .replace("\u200b", "\\u200b"))
            self.assertIn(shown, out, value)
        # control bytes are visible, never raw
        self.assertNotIn("\x1b", out)
        self.assertIn("\\x1b", out)

    def test_near_miss_plain_words_stay_text(self):
        # our own sentence is not fenced word by word when nothing in it is live
        out = self.render("plainenv")
        line = [line for line in out.splitlines() if "will fail to import" in line][0]
        self.assertIn("PyTorch 2.5.1+cu124 in /opt/conda/envs/plainenv/lib/python3.11/site-packages will fail",
                      line)

    def test_checker_sees_live_markup(self):
        # the checker itself must fail on what GitHub would render live
        for live in ("see @alice", "fixes #12", "GH-3", "mail x@example.com", "www.x.org", "<b>x</b>",
                     "a5c3785ed8d6a358", ":smile:", "$x$", "~~x~~", "[a](b)"):
            with self.assertRaises(AssertionError, msg=live):
                self.assert_inert(live)
        self.assert_inert("`@alice` `` #12 `` ok")


if __name__ == "__main__":
    unittest.main()
