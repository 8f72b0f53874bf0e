#!/usr/bin/env python3
"""Score `gpudoctor explain` on the held-out corpus.

Each file of dev/ and test/ starts with two header lines:
    # source: URL of the public thread the log was taken from
    # expect: cause-id[|cause-id...]   (any one of them is right) or "benign"
and the log text follows.  A failure is named right when one of the expected
ids is among the causes explain names (the causes of its stack matches); a
benign log is right when explain names no stack cause at all.

    score.py GPUDOCTOR [dev|test|all] [-v]
prints the score, the misses and the benign false alarms; tests/e2e/
test_explain_corpus.py asserts the thresholds.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(split):
    out = []
    for name in sorted(os.listdir(os.path.join(HERE, split))):
        path = os.path.join(HERE, split, name)
        with open(path, encoding="utf-8") as f:
            src = f.readline().split(": ", 1)[1].strip()
            exp = f.readline().split(": ", 1)[1].strip()
            text = f.read()
        out.append({"file": f"{split}/{name}", "source": src,
                    "expect": None if exp == "benign" else exp.split("|"), "text": text})
    return out


def named(gpudoctor, text):
    p = subprocess.run([gpudoctor, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    doc = json.loads(p.stdout)
    causes = []
    for m in doc["matches"]:
        if m["class"] == "cause":
            causes += [c["cause"] for c in m["causes"]]
    return causes, [m["rule"] for m in doc["matches"]]


def score(gpudoctor, splits):
    res = {"right": 0, "failures": 0, "benign": 0, "false_alarms": 0, "misses": [], "alarms": []}
    for split in splits:
        for c in load(split):
            causes, rules = named(gpudoctor, c["text"])
            if c["expect"] is None:
                res["benign"] += 1
                if causes:
                    res["false_alarms"] += 1
                    res["alarms"].append((c["file"], causes, rules))
                continue
            res["failures"] += 1
            if set(causes) & set(c["expect"]):
                res["right"] += 1
            else:
                res["misses"].append((c["file"], c["expect"], causes, rules))
    return res


def main():
    gd = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "test"
    splits = ["dev", "test"] if which == "all" else [which]
    r = score(gd, splits)
    print(f"{which}: {r['right']}/{r['failures']} failures named right "
          f"({100.0 * r['right'] / max(1, r['failures']):.1f} %), "
          f"{r['false_alarms']}/{r['benign']} benign logs with a stack cause")
    if "-v" in sys.argv:
        for f, exp, causes, rules in r["misses"]:
            print(f"  miss {f}: expected {'|'.join(exp)}, named {causes or '-'} (rules {rules or '-'})")
        for f, causes, rules in r["alarms"]:
            print(f"  alarm {f}: named {causes} (rules {rules})")


if __name__ == "__main__":
    main()
