"""Terminal and JSON injection: names from the machine cannot forge report
lines, move the cursor, or break the JSON.

A venv whose directory name holds a newline followed by "[ ok ] ...", ESC
sequences, BEL, CR and bytes that are not UTF-8; a --kb table with the
same in its error.  The text report must show them escaped (\\n, \\x1b ...),
never raw; the JSON must parse with Python's json module from the raw bytes
(strict UTF-8) and say how many bytes it replaced.
"""
import json
import os
import shutil
import tempfile
import unittest

from gdtest import GDTestCase, REPO, clean_env, run
import fixtures_libs as fl
import fixtures_fw as fw
import subprocess

FORGED = "[ ok ] frameworks all good"
NAME = b"opt/v\n    " + FORGED.encode() + b"\x1b[2J\x07\rX\xff\xfe\xc3("


def run_bytes(args, root=None, env=None):
    cmd = [os.environ.get("GPUDOCTOR", os.path.join(REPO, "build", "gpudoctor"))]
    if root is not None:
        cmd += ["--root", root]
    p = subprocess.run(cmd + list(args), capture_output=True, env=env or clean_env(), timeout=60)
    return p.returncode, p.stdout, p.stderr


def hostile_venv_root():
    r = fl.healthy_libs_root()
    prefix = os.fsdecode(NAME)
    site = fw.add_venv(r, prefix=prefix)
    fw.add_torch(r, site, version="2.5.1+cpu", cuda="None")
    return r, "/" + prefix


class Injection(GDTestCase):
    def assert_clean_text(self, out, what):
        for bad in (b"\x1b", b"\x07", b"\r", b"\xff"):
            self.assertNotIn(bad, out, f"{what}: raw {bad!r} reached the terminal")
        for line in out.split(b"\n"):
            self.assertFalse(line.strip().startswith(FORGED.encode()),
                             f"{what}: a forged line: {line!r}")

    def test_text_report_escapes_names(self):
        r, venv = hostile_venv_root()
        rc, out, err = run_bytes(["-v", "check", "--no-load"], root=r.path,
                                 env=clean_env(VIRTUAL_ENV=venv))
        self.assertIn(b"\\n    [ ok ] frameworks all good\\x1b[2J\\x07\\rX\\xff\\xfe\\xc3(", out, out.decode("utf-8", "replace"))
        self.assert_clean_text(out + err, "check -v")

    def test_json_is_valid_utf8_and_counts_replacements(self):
        r, venv = hostile_venv_root()
        rc, out, err = run_bytes(["--json", "check", "--no-load"], root=r.path,
                                 env=clean_env(VIRTUAL_ENV=venv))
        text = out.decode("utf-8")          # strict: raises on invalid UTF-8
        doc = json.loads(text)
        self.assertGreaterEqual(doc.get("utf8_replaced", 0), 3, "the replaced bytes are not counted")
        prefixes = [e.get("env") or "" for e in doc["inventory"]["frameworks"]]
        self.assertTrue(any("\ufffd" in p and "\n    [ ok ]" in p for p in prefixes), prefixes)

    def test_which_escapes(self):
        rc, out, err = run_bytes(["which", "libnothing.so.1\n[ ok ] \x1b]0;pwn\x07"], root="/")
        self.assert_clean_text(out + err, "which")
        self.assertIn(b"\\n[ ok ] \\x1b]0;pwn\\x07", out)

    def test_kb_error_escapes(self):
        d = tempfile.mkdtemp(prefix="gd-kb-")
        try:
            src = os.path.join(REPO, "src", "knowledge", "data")
            for f in os.listdir(src):
                if f.endswith(".tsv"):
                    shutil.copy(os.path.join(src, f), d)
            # a row whose source id is terminal control codes
            with open(os.path.join(d, "archs.tsv"), "rb") as f:
                rows = [ln for ln in f.read().split(b"\n") if ln and not ln.startswith(b"#")]
            with open(os.path.join(d, "archs.tsv"), "ab") as f:
                f.write(b"\t".join(rows[-1].split(b"\t")[:-1] + [b"\x1b[31mred\x07\r"]) + b"\n")
            rc, out, err = run_bytes(["--kb", d, "matrix", "--kb-info"])
            self.assertEqual(rc, 2, (out, err))
            self.assert_clean_text(out + err, "--kb error")
            self.assertIn(b"\\x1b", err)
            rc, out, err = run_bytes(["--kb", d + "/\x1b[2J\n[ ok ] x", "matrix", "--kb-info"])
            self.assertEqual(rc, 2, (out, err))
            self.assert_clean_text(out + err, "--kb error")
        finally:
            shutil.rmtree(d, True)

    def test_error_messages_escape_arguments(self):
        rc, out, err = run_bytes(["--root", "/nonexistent\x1b[2J\n[ ok ] x", "check"])
        self.assertEqual(rc, 2)
        self.assert_clean_text(out + err, "--root error")


if __name__ == "__main__":
    unittest.main()
