"""Kubernetes: the manifests in dist/kubernetes validated offline, and the
node-problem-detector plugin config checked the way NPD checks it.

- kubernetes-validate (PyPI) --strict on every built-in kind (DaemonSets,
  Service, RBAC, ConfigMap); the ServiceMonitor (a CRD kubernetes-validate
  has no schema for) against data/servicemonitor.schema.json, taken from
  prometheus-operator's CRD;
- the plugin config by NPD's own rules (pkg/custompluginmonitor/types/
  config.go: ApplyConfiguration and Validate): plugin "custom", durations
  that parse, rule timeouts within the global one, a default condition for
  every permanent rule, a rule path that exists in NPD's container (the
  volume the init container fills);
- each rule's command run on fixture roots the way NPD runs it: exit status
  0/1/2 and a message within max_output_length;
- the DaemonSet running watch: read-only hostPath mounts of /dev/kmsg, /sys,
  /proc and the driver root, the metrics port, a liveness probe, minimal
  capabilities.
kubernetes-validate is installed into build/k8s-venv with pip once; without
pip's index the schema checks skip and say so.
"""
import json
import os
import re
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
K8S = os.path.join(REPO, "dist", "kubernetes")
VENV = os.path.join(REPO, "build", "k8s-venv")
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import fixtures  # noqa: E402
import fixtures_lower as fl  # noqa: E402
from gdtest import GPUDOCTOR, clean_env  # noqa: E402


def go_duration(s):
    """Seconds of a Go time.ParseDuration string ("1m30s", "500ms"); ValueError otherwise."""
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    if s == "0":
        return 0.0
    parts = re.findall(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)", s)
    if not parts or "".join(a + b for a, b in parts) != s:
        raise ValueError(f"not a Go duration: {s!r}")
    return sum(float(a) * units[b] for a, b in parts)


def venv_python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(os.path.join(VENV, "bin", "kubernetes-validate")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True, capture_output=True)
        p = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            "kubernetes-validate", "jsonschema", "pyyaml"],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise unittest.SkipTest("cannot install kubernetes-validate from PyPI: " + p.stderr[-300:])
    return py


def load_yaml_docs(path):
    """Documents of a YAML file, parsed by the venv's PyYAML (as JSON)."""
    code = ("import json,sys,yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))")
    out = subprocess.run([venv_python(), "-c", code, path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class TestManifests(unittest.TestCase):
    def test_builtin_kinds_validate_strict(self):
        venv_python()
        files = [os.path.join(K8S, f) for f in ("gpudoctor-watch.yaml", "node-problem-detector.yaml")]
        p = subprocess.run([os.path.join(VENV, "bin", "kubernetes-validate"), "--strict",
                            "-k", "1.30.0"] + files, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        passed = [x for x in p.stdout.splitlines() + p.stderr.splitlines() if " passed for resource " in x]
        self.assertEqual(len(passed), 10, p.stdout + p.stderr)

    def test_servicemonitor_against_crd_schema(self):
        py = venv_python()
        code = ("import json,sys,yaml,jsonschema\n"
                "schema=json.load(open(sys.argv[1]))\n"
                "docs=[d for d in yaml.safe_load_all(open(sys.argv[2])) if d]\n"
                "assert len(docs)==1, docs\n"
                "jsonschema.validate(docs[0], schema)\n"
                "bad=dict(docs[0]); bad['spec']=dict(bad['spec'], endpoint=[])\n"
                "try:\n    jsonschema.validate(bad, schema)\nexcept jsonschema.ValidationError:\n    print('typo rejected')\n")
        p = subprocess.run([py, "-c", code, os.path.join(HERE, "data", "servicemonitor.schema.json"),
                            os.path.join(K8S, "servicemonitor.yaml")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("typo rejected", p.stdout)

    def test_servicemonitor_selects_the_service(self):
        sm = load_yaml_docs(os.path.join(K8S, "servicemonitor.yaml"))[0]
        docs = load_yaml_docs(os.path.join(K8S, "gpudoctor-watch.yaml"))
        svc = [d for d in docs if d["kind"] == "Service"][0]
        for k, v in sm["spec"]["selector"]["matchLabels"].items():
            self.assertEqual(svc["metadata"]["labels"][k], v)
        self.assertIn(svc["metadata"]["namespace"], sm["spec"]["namespaceSelector"]["matchNames"])
        self.assertEqual(sm["spec"]["endpoints"][0]["port"], svc["spec"]["ports"][0]["name"])

    def test_watch_daemonset(self):
        docs = load_yaml_docs(os.path.join(K8S, "gpudoctor-watch.yaml"))
        ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
        pod = ds["spec"]["template"]["spec"]
        c = pod["containers"][0]
        self.assertIn("watch", c["args"])
        # --root /host implies --no-load: NVML comes from the container's own
        # root, the library the toolkit injects (tests/fleet/test_k8s_podman.py)
        lib = c["args"][c["args"].index("--sample-nvml") + 1]
        self.assertEqual(lib, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
        vols = {v["name"]: v for v in pod["volumes"]}
        mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
        host = {vols[m["name"]]["hostPath"]["path"]: m for m in c["volumeMounts"]
                if "hostPath" in vols[m["name"]]}
        for path in ("/dev/kmsg", "/sys", "/proc", "/"):
            self.assertIn(path, host, f"no hostPath mount of {path}")
            self.assertTrue(host[path].get("readOnly"), f"{path} is not mounted read-only")
        # Only the state directory is writable, and it is where health reads it.
        writable = [vols[m["name"]]["hostPath"]["path"] for m in c["volumeMounts"]
                    if "hostPath" in vols[m["name"]] and not m.get("readOnly")]
        self.assertEqual(writable, ["/var/lib/gpudoctor"])
        self.assertEqual(c["args"][c["args"].index("--state-dir") + 1], "/var/lib/gpudoctor")
        self.assertIn("/var/lib/gpudoctor", mounts)
        port = [p for p in c["ports"] if p["name"] == "metrics"][0]
        self.assertEqual(port["containerPort"], 9835)
        listen = c["args"][c["args"].index("--listen") + 1]
        self.assertTrue(listen.endswith(":9835"))
        self.assertEqual(c["livenessProbe"]["httpGet"]["port"], "metrics")
        # It listens on every pod address: a NetworkPolicy lets only the
        # monitoring namespace in, on the metrics port, and nothing out.
        pols = [d for d in docs if d["kind"] == "NetworkPolicy"]
        self.assertEqual(len(pols), 1)
        pol = pols[0]["spec"]
        for k, v in pol["podSelector"]["matchLabels"].items():
            self.assertEqual(ds["spec"]["template"]["metadata"]["labels"][k], v)
        self.assertEqual(sorted(pol["policyTypes"]), ["Egress", "Ingress"])
        self.assertEqual(pol["egress"], [])
        self.assertEqual([p["port"] for r in pol["ingress"] for p in r["ports"]], [9835])
        self.assertTrue(all(r.get("from") for r in pol["ingress"]), "an ingress rule open to all")
        sc = c["securityContext"]
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertLessEqual(set(sc["capabilities"]["add"]), {"SYSLOG", "DAC_READ_SEARCH"})
        self.assertFalse(sc["privileged"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(pod.get("hostNetwork", False))
        self.assertFalse(pod.get("hostPID", False))


class TestNPDPlugin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(K8S, "gpudoctor-plugin.json")) as f:
            cls.cfg = json.load(f)

    def test_npd_validate(self):
        cfg = self.cfg
        self.assertEqual(cfg["plugin"], "custom")
        g = cfg["pluginConfig"]
        interval, timeout = go_duration(g["invoke_interval"]), go_duration(g["timeout"])
        self.assertLessEqual(timeout, interval)
        self.assertEqual(g["max_output_length"], 80)
        self.assertIsInstance(cfg["source"], str)
        defaults = {c["type"]: c for c in cfg["conditions"]}
        self.assertEqual(set(defaults), {"GPUStackProblem", "GPUHardwareProblem"})
        for c in cfg["conditions"]:
            self.assertTrue(c["reason"] and c["message"])
            self.assertTrue(re.match(r"^[A-Z][A-Za-z]*$", c["reason"]), c["reason"])
        for r in cfg["rules"]:
            self.assertEqual(r["type"], "permanent")
            self.assertIn(r["condition"], defaults, "a permanent rule needs its default condition")
            self.assertTrue(re.match(r"^[A-Z][A-Za-z]*$", r["reason"]))
            rt = go_duration(r["timeout"])
            self.assertLessEqual(rt, timeout, "rule timeout above the global one (NPD refuses it)")
            # gpudoctor's own deadline ends before NPD's: NPD never kills it.
            deadline = float(r["args"][r["args"].index("--deadline") + 1])
            self.assertLess(deadline, rt)
        with self.assertRaises(ValueError):
            go_duration("12")

    def test_configmap_carries_the_same_config(self):
        docs = load_yaml_docs(os.path.join(K8S, "node-problem-detector.yaml"))
        cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
        self.assertEqual(json.loads(cm["data"]["gpudoctor-plugin.json"]), self.cfg)
        ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
        pod = ds["spec"]["template"]["spec"]
        npd = pod["containers"][0]
        self.assertIn("--config.custom-plugin-monitor=/config/gpudoctor-plugin.json", npd["command"])
        mounts = {m["mountPath"]: m["name"] for m in npd["volumeMounts"]}
        vols = {v["name"]: v for v in pod["volumes"]}
        # The rule's path exists in NPD's container: the volume the init container fills.
        for r in self.cfg["rules"]:
            d = os.path.dirname(r["path"])
            self.assertIn(d, mounts)
            self.assertIn("emptyDir", vols[mounts[d]])
            init = pod["initContainers"][0]
            self.assertEqual(init["command"][-1], r["path"])
            self.assertIn(d, [m["mountPath"] for m in init["volumeMounts"]])
            # --root /host is the host's root, read-only.
            root = r["args"][r["args"].index("--root") + 1]
            self.assertEqual(vols[mounts[root]]["hostPath"]["path"], "/")
        self.assertTrue(all(m.get("readOnly") for m in npd["volumeMounts"]))

    def run_rule(self, rule, root):
        args = [root.path if a == "/host" else a for a in rule["args"]]
        t = time.monotonic()
        p = subprocess.run([GPUDOCTOR] + args, capture_output=True, text=True, env=clean_env(),
                           timeout=go_duration(rule["timeout"]))
        return p, time.monotonic() - t

    def test_rules_on_fixtures(self):
        if not os.path.exists(GPUDOCTOR):
            self.skipTest(f"{GPUDOCTOR} not built")
        limit = self.cfg["pluginConfig"]["max_output_length"]
        healthy = fixtures.healthy_root()
        broken = fixtures.healthy_root()
        fl.add_kernel(broken, modules=("snd",))
        lost = fixtures.healthy_root()
        lost.write("proc/sys/kernel/random/boot_id", "b\n")
        lost.write("var/lib/gpudoctor/state", f"version=2\nupdated={int(time.time())}\nboot_id=b\n"
                   "status=fail\nactive=cause=gpu-lost status=fail layer=driver gpu=2 "
                   "title=GPU 2 fell off the bus (XID 79)\n")
        stack, hw = self.cfg["rules"]
        cases = [(stack, healthy, 0), (hw, healthy, 0), (stack, broken, 1), (hw, broken, 0),
                 (stack, lost, 1), (hw, lost, 1)]
        for rule, root, want in cases:
            with self.subTest(condition=rule["condition"], root=root.path, want=want):
                p, took = self.run_rule(rule, root)
                self.assertEqual(p.returncode, want, p.stdout + p.stderr)
                self.assertEqual(len(p.stdout.splitlines()), 1)
                self.assertLessEqual(len(p.stdout.rstrip("\n")), limit)
                self.assertLess(took, go_duration(rule["timeout"]))
        p, _ = self.run_rule(hw, lost)
        self.assertEqual(p.stdout, "gpudoctor: gpu-lost 2 GPU 2 fell off the bus (XID 79)\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
