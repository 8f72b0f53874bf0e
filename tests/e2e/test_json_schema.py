"""docs/json-schema.md documents every field gpudoctor.check/1 prints.

The documents of three fixture machines (a healthy one with every live probe,
the same under --no-load, and one with the CUDA toolkit, cuDNN and NCCL
libraries) are walked; every field's path (".inventory.gpus[].link.width")
must be one the check part of the schema document declares at that place:
a word that appears somewhere else in the document does not count.  Maps
keyed by data (fat-binary archs, module names, environment variable names,
the layers of timings_ms) are documented as maps, not key by key.
"""
import os
import re

from gdtest import GDTestCase, check
import fixtures
import fixtures_libs as fl

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA_KEYED = (".arch_entries.", ".archs_partial_entries.", ".kernel.modules.", ".driver.env.",
              "^.timings_ms.")
# "nvswitches": [ same fields ] (as "gpus")
ALIASES = ((".inventory.nvswitches[]", ".inventory.gpus[]"),)


def tokens(text):
    """The tokens of a schema block: strings, punctuation, and words (prose)."""
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|([{}\[\]:,|])|([^\s"{}\[\]:,|]+)', text):
        if m.group(1) is not None:
            yield ("s", m.group(1))
        elif m.group(2):
            yield (m.group(2), m.group(2))
        else:
            yield ("w", m.group(3))


def documented_paths(text, root):
    """Every field path a schema block documents: ".inventory.gpus[].bdf".

    The blocks are pseudo-JSON with prose: in an object, a string not in a
    value is a key ("name", "architecture" lists keys without values; "a" |
    "b": names alternative keys); after ":" comes a value, up to the next ","
    or closing bracket, and an "{" or "[" there opens the key's object or list.
    Strings inside lists and values are examples, not keys."""
    out = set()
    # a frame: [kind, paths, in_value, pending keys]
    stack = [["{", [root], False, []]] if root is not None else []
    for kind, val in tokens(text):
        top = stack[-1] if stack else None
        if kind in "{[":
            if top is None:
                paths = [""]
            elif top[0] == "[":
                paths = top[1]
            else:
                paths = [p + "." + k for p in top[1] for k in top[3]] or top[1]
            if kind == "[":
                paths = [p + "[]" for p in paths]
            stack.append([kind, paths, False, []])
            continue
        if top is None:
            continue
        if kind in "}]":
            stack.pop()
            if stack:
                stack[-1][2] = True     # the closed object was a value
            continue
        if top[0] == "[":
            continue
        if kind == ",":
            top[2] = False
            top[3] = []
        elif kind == ":":
            top[2] = True
        elif kind == "s" and not top[2]:
            top[3].append(val)
            for p in top[1]:
                out.add(p + "." + val)
    return out


def schema_paths(text):
    """The paths the check part of docs/json-schema.md declares: its first
    block (the document), the inventory field by field, and the later
    inventory blocks (each starts at the document's root)."""
    end = re.search(r"^# `gpudoctor (matrix|plan|explain)", text, re.M)
    text = text[:end.start()] if end else text
    out = set()
    section = ""
    for part in re.split(r"^(#+ .*)$", text, flags=re.M):
        if part.startswith("#"):
            section = part
            continue
        for block in re.findall(r"^```\n(.*?)^```", part, re.M | re.S):
            root = None if block.lstrip().startswith("{") else ""
            if "field by field" in section:
                root = ".inventory"
            out |= documented_paths(block, root)
    return out


def data_keyed(p):
    return any(p.startswith(x[1:]) if x.startswith("^") else x in p for x in DATA_KEYED)


def keys(o, path, out):
    """Every field path of a document: out[".inventory.gpus[].bdf"] = itself."""
    if isinstance(o, dict):
        for k, v in o.items():
            p = f"{path}.{k}"
            out.setdefault(p, p)
            keys(v, p, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, path + "[]", out)


class JsonSchemaDocumented(GDTestCase):
    def test_every_field_is_documented(self):
        text = open(os.path.join(REPO, "docs", "json-schema.md"), encoding="utf-8").read()
        documented = schema_paths(text)
        self.assertGreater(len(documented), 300, "the schema parser read too little of the document")
        found = {}
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, "usr/local/cuda-13.0/lib64")
        for d in (check(r), check(r, "--no-load"), check(fixtures.healthy_root())):
            d.pop("_rc", None)
            d.pop("_stderr", None)
            keys(d, "", found)
        for a, b in ALIASES:
            found = {p.replace(a, b, 1) if p.startswith(a) else p: p for p in found}
        self.assertGreater(len(found), 150, "the fixtures printed too little to judge the schema")
        missing = sorted(shown for p, shown in found.items()
                         if not data_keyed(p + ".") and p not in documented)
        self.assertEqual(missing, [], "fields printed but not in docs/json-schema.md")
