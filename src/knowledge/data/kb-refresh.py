#!/usr/bin/env python3
"""kb-refresh: read the knowledge base's primary sources again and print a
reviewable diff against the checked-in tables (`make kb-refresh`).

A maintainer step with the network; CI does not run it, but tests the
parsers below on recorded responses (tests/kb-refresh/, test_kb_refresh.py).
Nothing is written over the tables: the diff is for a person to review and
apply, with the source it came from.

    python3 src/knowledge/data/kb-refresh.py                 # fetch and diff
    python3 src/knowledge/data/kb-refresh.py --offline DIR   # recorded responses
    OGKM=/path/to/open-gpu-kernel-modules python3 ...        # also the GPU lists

Sources:
  PyPI JSON API  https://pypi.org/pypi/NAME/json    torch, tensorflow, jax,
                 cupy-cuda12x, cupy-cuda13x, nvidia-cudnn-cu12/cu13: releases,
                 the cpXY tags of their manylinux wheels, Requires-Python
  open-gpu-kernel-modules tags (a clone: $OGKM), via gpu-drivers-from-open-gpu.py
  XID catalogue  https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html
  CUDA release notes  https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/
"""
import html
import json
import os
import re
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PYPI = "https://pypi.org/pypi/%s/json"
XID_URL = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
CUDA_RN_URL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"
PACKAGES = ("jax", "torch", "tensorflow", "cupy-cuda12x", "cupy-cuda13x", "nvidia-cudnn-cu12",
            "nvidia-cudnn-cu13")


def vkey(v):
    """Any number of components; a non-numeric part (rc1, post1) sorts before numbers."""
    out = []
    for p in re.split(r"[.+]", v):
        m = re.match(r"(\d+)(.*)", p)
        out.append((int(m.group(1)), m.group(2)) if m else (-1, p))
    return out


def is_final(v):
    return re.fullmatch(r"\d+(\.\d+)+", v) is not None


# ---- parsers (tested on recorded responses) ----

def parse_pypi(text):
    """PyPI's JSON API document -> {"requires_python": str, "releases":
    {version: [python versions of its manylinux cpXY wheels, "3.12" ...]}} for
    final releases that have files (yanked files left out)."""
    d = json.loads(text)
    out = {"name": d["info"]["name"], "requires_python": d["info"].get("requires_python"), "releases": {}}
    for v, files in d.get("releases", {}).items():
        if not is_final(v) or not files:
            continue
        pys = set()
        for f in files:
            if f.get("yanked"):
                continue
            m = re.search(r"-cp(3)(\d+)-(cp3\d+[a-z]*|abi3)-(manylinux|linux)", f.get("filename", ""))
            if m:
                pys.add("%s.%s" % (m.group(1), m.group(2)))
        out["releases"][v] = sorted(pys, key=vkey)
    return out


def py_range(pys):
    """["3.10", "3.11", "3.12"] -> "3.10-3.12" when contiguous, else a list."""
    if not pys:
        return None
    minors = [int(p.split(".")[1]) for p in pys]
    if minors == list(range(minors[0], minors[-1] + 1)):
        return "%s-%s" % (pys[0], pys[-1]) if len(pys) > 1 else pys[0]
    return ",".join(pys)


def _cells(row_html):
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row_html, flags=re.S | re.I)
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells]


def parse_xid_catalog(text):
    """The XID catalogue page -> {code: (mnemonic, description, immediate,
    investigatory)}.  Its table's columns: Type, Code, Mnemonic, Description,
    A100, H100, B100, GB200, Immediate Action, Investigatory Action, ..."""
    out = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", text, flags=re.S | re.I):
        c = _cells(row)
        if len(c) >= 10 and c[0] == "XID" and c[1].isdigit():
            out[int(c[1])] = (c[2], c[3], c[8] or "-", c[9] or "-")
    return out


def parse_cuda_drivers(text):
    """The release notes' table "CUDA Toolkit and Corresponding Driver
    Versions" -> {("13.0", "GA"): "580.65.06"} (Linux x86_64 minimum)."""
    out = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", text, flags=re.S | re.I):
        c = _cells(row)
        if len(c) < 2:
            continue
        m = re.match(r"CUDA\s+(\d+\.\d+)\s+(GA|Update\s+\d+)", c[0])
        d = re.search(r"(\d{3}\.\d+(\.\d+)?)", c[1])
        if m and d:
            out[(m.group(1), re.sub(r"\s+", " ", m.group(2)))] = d.group(1)
    return out


# ---- the checked-in tables ----

def read_tsv(name):
    rows = []
    header = None
    for line in open(os.path.join(HERE, name), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        c = line.rstrip("\n").split("\t")
        if header is None:
            header = c
            continue
        rows.append(dict(zip(header, c)))
    return rows


def read_fact(key):
    for r in read_tsv("facts.tsv"):
        if r["key"] == key:
            return r["value"]
    return None


# ---- comparisons: each yields "table: what: old -> new (source)" lines ----

def diff_jax(p):
    have = (read_fact("jax.releases") or "").split()
    first = vkey(have[0]) if have else vkey("0.4.26")
    new = sorted((v for v in p["releases"] if vkey(v) >= first), key=vkey)
    for v in new:
        if v not in have:
            yield "facts.tsv jax.releases: + %s (Requires-Python of the newest: %s) (pypi:jax)" % (
                v, p["requires_python"])
    for v in have:
        if v not in p["releases"]:
            yield "facts.tsv jax.releases: - %s (not on PyPI)" % v


def diff_python(table, key_col, p, rows, match):
    """A release's Python column against the cpXY tags of its wheels."""
    for r in rows:
        vs = [v for v in p["releases"] if match(r[key_col], v)]
        if not vs:
            continue
        pys = sorted({x for v in vs for x in p["releases"][v]}, key=vkey)
        got = py_range(pys)
        if got and got != r["python"]:
            yield "%s %s %s: python %s -> %s (pypi:%s %s)" % (table, r[key_col], r.get("variant", r.get(
                "package", "")), r["python"], got, p["name"], ",".join(sorted(vs, key=vkey)[-3:]))


def torch_match(row_version, v):
    return v == row_version or v.startswith(row_version + ".")


def diff_torch(p):
    rows = [r for r in read_tsv("torch.tsv") if r.get("default") == "1"]
    yield from diff_python("torch.tsv", "version", p, rows, torch_match)
    have = {r["version"] for r in read_tsv("torch.tsv")}
    for v in sorted(p["releases"], key=vkey):
        mm = ".".join(v.split(".")[:2])
        if vkey(mm) > vkey(max(have, key=vkey)) and mm not in have:
            have.add(mm)
            yield "torch.tsv: + %s (a release newer than the table: read its wheel's METADATA, " \
                  "torch/version.py and libtorch_cuda.so's fatbin) (pypi:torch)" % mm


def diff_tf(p):
    """tf.tsv rows are one release each ("2.21.0"); from 2.2 on only Python 3
    matters (older rows list 2.7 too, which the cpXY tags here do not
    count)."""
    rows = [r for r in read_tsv("tf.tsv") if vkey(r["version"]) >= vkey("2.2.0")]
    yield from diff_python("tf.tsv", "version", p, rows, lambda row, v: v == row)


def diff_cupy(p):
    rows = [r for r in read_tsv("cupy.tsv") if r["package"] == p["name"]]
    nxt = {}
    for r in rows:
        later = [o["cupy"] for o in rows if o["cupy"].split(".")[0] == r["cupy"].split(".")[0]
                 and vkey(o["cupy"]) > vkey(r["cupy"])]
        nxt[r["cupy"]] = min(later, key=vkey) if later else None

    def match(row, v):
        if v.split(".")[0] != row.split(".")[0] or vkey(v) < vkey(row):
            return False
        return nxt.get(row) is None or vkey(v) < vkey(nxt[row])
    yield from diff_python("cupy.tsv", "cupy", p, rows, match)


def diff_xid(cat):
    have = {int(r["xid"]): r for r in read_tsv("xid.tsv")}
    for code, (mn, desc, imm, inv) in sorted(cat.items()):
        r = have.get(code)
        if not r:
            yield "xid.tsv: + %d %s %s (immediate %s) (nvidia-xid-catalog)" % (code, mn, desc, imm)
            continue
        if r["name"] != mn:
            yield "xid.tsv %d: name %s -> %s" % (code, r["name"], mn)
        if (r["nvidia_immediate"] or "-") != imm and not (imm in ("", "-") and r["nvidia_immediate"] == "-"):
            yield "xid.tsv %d: immediate %s -> %s" % (code, r["nvidia_immediate"], imm)


def diff_cuda(drivers):
    have = {(r["toolkit"], r["release"]): r["linux_min"] for r in read_tsv("cuda.tsv")}
    for k, d in sorted(drivers.items(), key=lambda kv: (vkey(kv[0][0]), kv[0][1])):
        if k not in have:
            yield "cuda.tsv: + CUDA %s %s, Linux driver >= %s (cuda-rn)" % (k[0], k[1], d)
        elif have[k] != d:
            yield "cuda.tsv CUDA %s %s: linux_min %s -> %s (cuda-rn)" % (k[0], k[1], have[k], d)


def diff_gpu_drivers(clone):
    """Regenerate gpu_drivers.tsv from a clone's tags and diff it."""
    new = subprocess.run([sys.executable, os.path.join(HERE, "gpu-drivers-from-open-gpu.py"), clone],
                         capture_output=True, text=True, check=True).stdout
    old = open(os.path.join(HERE, "gpu_drivers.tsv"), encoding="utf-8").read()
    rows = lambda t: {l.split("\t")[0]: l for l in t.splitlines() if l and not l.startswith("#")}
    o, n = rows(old), rows(new)
    for k in sorted(set(o) | set(n)):
        if o.get(k) != n.get(k):
            yield "gpu_drivers.tsv %s: %s -> %s" % (k, o.get(k, "(none)"), n.get(k, "(none)"))


# ---- driver ----

def fetch(url):
    req = urllib.request.Request(url, headers={"User-Agent": "gpudoctor kb-refresh"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read().decode("utf-8", "replace")


def get(offline, name, url):
    if offline:
        path = os.path.join(offline, name)
        return open(path, encoding="utf-8").read() if os.path.exists(path) else None
    try:
        return fetch(url)
    except Exception as e:  # a source that cannot be read is reported, not fatal
        print("# %s: not read (%s)" % (url, e))
        return None


def run(offline=None, out=sys.stdout):
    lines = []
    for pkg in PACKAGES:
        text = get(offline, "pypi-%s.json" % pkg, PYPI % pkg)
        if text is None:
            continue
        p = parse_pypi(text)
        if pkg == "jax":
            lines += list(diff_jax(p))
        elif pkg == "torch":
            lines += list(diff_torch(p))
        elif pkg == "tensorflow":
            lines += list(diff_tf(p))
        elif pkg.startswith("cupy-"):
            lines += list(diff_cupy(p))
    text = get(offline, "xid-catalog.html", XID_URL)
    if text is not None:
        lines += list(diff_xid(parse_xid_catalog(text)))
    text = get(offline, "cuda-release-notes.html", CUDA_RN_URL)
    if text is not None:
        lines += list(diff_cuda(parse_cuda_drivers(text)))
    if os.environ.get("OGKM") and not offline:
        lines += list(diff_gpu_drivers(os.environ["OGKM"]))
    for l in lines:
        print(l, file=out)
    print("# kb-refresh: %d difference(s) to review" % len(lines), file=out)
    return lines


if __name__ == "__main__":
    off = None
    if len(sys.argv) > 2 and sys.argv[1] == "--offline":
        off = sys.argv[2]
    run(off)
