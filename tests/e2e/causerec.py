"""The cause ids gpudoctor printed during the e2e run, for test_catalogue's
"triggered" contract (catalogue_triggered.py, run by run.py after the suite).

gdtest imports this module, which wraps subprocess.run: the captured output
of every command line that runs the gpudoctor under test (GPUDOCTOR, also
behind setpriv or unshare) is scanned for catalogue ids, and assert_cause
records the id it found in a document.  A run whose arguments name a cause
(`explain --cause ID`, `explain ID`) prints the catalogue entry, not a
finding, and is not counted; nor is `explain --list-causes`, the whole
catalogue.  Records go to E2E_CAUSES_DIR/<pid> as lines
"ID<TAB>test file"; without E2E_CAUSES_DIR nothing is recorded.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEF = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "knowledge", "causes.def")
_ids = None
_orig_run = subprocess.run


def catalogue_ids():
    global _ids
    if _ids is None:
        text = open(DEF, encoding="utf-8").read()
        _ids = set(re.findall(r'^CAUSE\(\w+, "([a-z0-9-]+)"', text, re.M))
    return _ids


def _caller():
    f = sys._getframe(1)
    while f:
        name = os.path.basename(f.f_code.co_filename)
        if name.startswith("test_"):
            return name
        f = f.f_back
    return "?"


def record(ids):
    d = os.environ.get("E2E_CAUSES_DIR")
    if not d or not ids:
        return
    with open(os.path.join(d, str(os.getpid())), "a", encoding="utf-8") as f:
        for i in sorted(ids):
            f.write(f"{i}\t{_caller()}\n")


WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def record_output(argv, *texts):
    """Record the catalogue ids found in texts, the output of argv."""
    known = catalogue_ids()
    args = [str(a) for a in argv]
    if "--cause" in args or "--list-causes" in args or any(a in known for a in args):
        return
    found = set()
    for t in texts:
        if isinstance(t, bytes):
            t = t.decode("utf-8", "replace")
        if t:
            found |= set(WORD.findall(t)) & known
    record(found)


def _runs_gpudoctor(args, binary):
    if isinstance(args, (str, bytes)) or not binary:
        return False
    return any(str(a) == binary or str(a).endswith("/gpudoctor") for a in args)


def install(binary):
    """Wrap subprocess.run so that gpudoctor's captured output is recorded."""
    if getattr(subprocess.run, "_gd_recording", False):
        return

    def run(*a, **kw):
        p = _orig_run(*a, **kw)
        args = a[0] if a else kw.get("args")
        if _runs_gpudoctor(args, binary):
            record_output(args, p.stdout, p.stderr)
        return p
    run._gd_recording = True
    subprocess.run = run
