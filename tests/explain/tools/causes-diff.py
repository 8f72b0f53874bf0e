#!/usr/bin/env python3
"""causes-diff.py - the causes explain names, per input, from two binaries: a change to the
rule table (src/knowledge/data/explain.tsv) that should not change behaviour must print no
difference.  Inputs: every file of tests/explain/corpus/dev and every block of
tests/explain/fixtures/*.txt.

    python3 tests/explain/tools/causes-diff.py OLD-GPUDOCTOR NEW-GPUDOCTOR

Prints one line per input whose (rule, causes) list differs; exit 1 when any does."""
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def inputs():
    d = os.path.join(REPO, "tests/explain/corpus/dev")
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), "rb") as fh:
            yield "dev/" + f, fh.read()
    d = os.path.join(REPO, "tests/explain/fixtures")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".txt"):
            continue
        head, body, n = None, [], 0
        with open(os.path.join(d, f), "rb") as fh:
            lines = fh.read().split(b"\n") + [b"=== end"]
        for line in lines:
            if line.startswith(b"=== "):
                if head is not None:
                    n += 1
                    yield "%s#%d %s" % (f, n, head), b"\n".join(body) + b"\n"
                head, body = line[4:].decode("utf-8", "replace"), []
            elif head is not None and not line.startswith(b"source:"):
                body.append(line)


def causes(binary, text):
    with tempfile.NamedTemporaryFile(suffix=".log") as t:
        t.write(text)
        t.flush()
        p = subprocess.run([binary, "explain", "--no-live", "--json", t.name],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return "rc=%d (no JSON)" % p.returncode
    return "rc=%d %s" % (p.returncode, [(m.get("rule"), [c.get("cause") for c in m.get("causes", [])])
                                        for m in doc.get("matches", [])])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bad = total = 0
    for name, text in inputs():
        total += 1
        a, b = causes(sys.argv[1], text), causes(sys.argv[2], text)
        if a != b:
            bad += 1
            print("%s\n  old: %s\n  new: %s" % (name, a, b))
    print("%d inputs, %d differ" % (total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
