"""docs/json-schema.md documents every field gpudoctor.check/1 prints.

The documents of three fixture machines (a healthy one with every live probe,
the same under --no-load, and one with the CUDA toolkit, cuDNN and NCCL
libraries) are walked; every key must appear in the check part of the schema
document.  Maps keyed by data (fat-binary archs, module names, environment
variable names) are documented as maps, not key by key.
"""
import os
import re

from gdtest import GDTestCase, check
import fixtures
import fixtures_libs as fl

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA_KEYED = (".arch_entries.", ".archs_partial_entries.", ".kernel.modules.", ".driver.env.")


def keys(o, path, out):
    if isinstance(o, dict):
        for k, v in o.items():
            p = f"{path}.{k}"
            out.setdefault(k, p)
            keys(v, p, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, path + "[]", out)


class JsonSchemaDocumented(GDTestCase):
    def test_every_field_is_documented(self):
        text = open(os.path.join(REPO, "docs", "json-schema.md"), encoding="utf-8").read()
        m = re.search(r"^# `gpudoctor explain", text, re.M)
        doc = text[:m.start()] if m else text
        found = {}
        r = fl.healthy_libs_root()
        fl.add_cudnn(r, "usr/local/cuda-13.0/lib64")
        for d in (check(r), check(r, "--no-load"), check(fixtures.healthy_root())):
            d.pop("_rc", None)
            d.pop("_stderr", None)
            keys(d, "", found)
        self.assertGreater(len(found), 150, "the fixtures printed too little to judge the schema")
        missing = sorted(p for k, p in found.items()
                         if not any(x in p + "." for x in DATA_KEYED)
                         and not re.search(r'"%s"|\b%s\b' % (re.escape(k), re.escape(k)), doc))
        self.assertEqual(missing, [], "fields printed but not in docs/json-schema.md")
