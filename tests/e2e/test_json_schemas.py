"""Every JSON document gpudoctor writes has a machine-readable JSON Schema
under docs/schema/ (beside the prose of docs/json-schema.md), and real
outputs validate against it: check on a healthy and a broken fixture root,
matrix, plan, explain (a log and a cause id), health, which, kb-info, burn.

Validated by tests/e2e/jsonschema_lite.py, and also by the `jsonschema`
package where it is installed.  Each schema pins its document's "schema"
value, so a document whose version changes fails until its schema follows.
"""
import glob
import json
import os
import unittest

import fixtures
import jsonschema_lite
from gdtest import GDTestCase, clean_env, run

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "docs", "schema")

try:
    import jsonschema  # noqa: F401
except ImportError:
    jsonschema = None


def load(name):
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        return json.load(f)


class JsonSchemas(GDTestCase):
    def validate(self, name, doc):
        schema = load(name)
        errs = jsonschema_lite.errors(schema, doc)
        self.assertEqual(errs, [], f"{name}: {errs[:5]}")
        if jsonschema is not None:
            jsonschema.validate(doc, schema)
        # The schema can fail: a document of another kind does not pass.
        self.assertTrue(jsonschema_lite.errors(schema, {"schema": "gpudoctor.other/1"}))

    def json_of(self, args, root=None, rcs=(0, 1)):
        rc, out, err = run(args, env=clean_env(), root=root)
        self.assertIn(rc, rcs, err)
        return json.loads(out)

    def test_every_schema_is_valid_json_with_an_id(self):
        files = glob.glob(os.path.join(SCHEMAS, "*.schema.json"))
        self.assertGreaterEqual(len(files), 10)
        for f in files:
            with open(f) as fh:
                s = json.load(fh)
            self.assertTrue(s["$id"].endswith(os.path.basename(f)), f)
            self.assertIn("const", s["properties"]["schema"], f)

    def test_check(self):
        r = fixtures.healthy_root()
        self.validate("check", self.json_of(["--json", "check"], root=r.path))
        broken = fixtures.healthy_root()
        os.remove(os.path.join(broken.path, "dev", "nvidiactl"))
        doc = self.json_of(["--json", "check"], root=broken.path)
        self.assertEqual(doc["status"], "fail")
        self.validate("check", doc)

    def test_matrix_and_kb_info(self):
        self.validate("matrix", self.json_of(["matrix", "--json", "--tf", "2.15"]))
        self.validate("matrix", self.json_of(["matrix", "--json", "--torch", "2.11", "--gpu", "H200",
                                              "--driver", "535.54.03"]))
        self.validate("kb-info", self.json_of(["matrix", "--json", "--kb-info"]))
        # matrix/2's shapes: an upgrade scenario with its driver, a null
        # version (nothing fits), CuPy, and a verdict of no
        up = self.json_of(["matrix", "--json", "--gpu", "H200", "--driver", "535.104.05"])
        self.assertTrue(any(a["scenario"] == "with a newer driver" for a in up["answers"]))
        self.validate("matrix", up)
        none = self.json_of(["matrix", "--json", "--cc", "3.0"])
        self.assertIn(None, [a["version"] for a in none["answers"]])
        self.validate("matrix", none)
        self.validate("matrix", self.json_of(["matrix", "--json", "--cupy", "13", "--driver", "535.104.05"]))
        self.validate("matrix", self.json_of(["matrix", "--json", "--gpu", "RTX 4080", "--driver", "515.65.01"]))

    def test_matrix_schema_refuses_matrix1_shapes(self):
        # the schema can fail for what matrix/2 removed: the packed `what`,
        # "none" for no version, `excluded`, a single source string
        doc = self.json_of(["matrix", "--json", "--gpu", "H200", "--driver", "535.104.05"])
        schema = load("matrix")
        self.assertEqual(jsonschema_lite.errors(schema, doc), [])
        for mutate in (lambda a: a.update(what="with newer driver: " + a["what"]),
                       lambda a: a.update(excluded=False),
                       lambda a: a.update(sources="open-gpu-chips"),
                       lambda a: a.update(requires={"driver_min": "none"})):
            bad = json.loads(json.dumps(doc))
            mutate(bad["answers"][0])
            self.assertTrue(jsonschema_lite.errors(schema, bad), bad["answers"][0])

    def test_plan(self):
        r = fixtures.healthy_root()
        self.validate("plan", self.json_of(["--json", "plan", "--torch", "2.11"], root=r.path))

    def test_explain_and_cause(self):
        self.validate("cause", self.json_of(["explain", "--json", "cudnn-missing"]))
        import subprocess
        from gdtest import GPUDOCTOR
        p = subprocess.run([GPUDOCTOR, "explain", "--json", "-"], input="NVIDIA-SMI has failed because it "
                           "couldn't communicate with the NVIDIA driver\n", capture_output=True, text=True,
                           env=clean_env(), timeout=60)
        doc = json.loads(p.stdout)
        self.assertTrue(doc["matches"])
        self.validate("explain", doc)

    def test_health(self):
        r = fixtures.healthy_root()
        self.validate("health", self.json_of(["--json", "health"], root=r.path, rcs=(0, 1, 2)))

    def test_burn(self):
        import test_burn
        rc, doc, _ = test_burn.burn()
        self.assertEqual(rc, 0)
        self.validate("burn", doc)
        rc, doc, _ = test_burn.burn(FAKE_CUBLAS_CORRUPT_AT="40")
        self.assertEqual(doc["status"], "fail")
        self.validate("burn", doc)

    def test_which(self):
        self.validate("which", self.json_of(["which", "--json", "libc.so.6"]))


if __name__ == "__main__":
    unittest.main()
