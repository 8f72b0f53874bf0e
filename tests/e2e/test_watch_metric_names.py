"""gpudoctor watch's /metrics follows the Prometheus naming guide
(https://prometheus.io/docs/practices/naming/), checked on real scrapes of a
fixture machine with findings and XIDs (mapped and unmapped addresses):
NVML's cumulative counts are counters ending in _total; `gpu` holds only an
NVML index and no label is ever "-" or ""; gpudoctor_build_info and
gpudoctor_driver_info carry the build and the driver; enums (overall status,
fabric state) are one series per state, never a bare number; and the real
`promtool check metrics` accepts the scrape (its linter refuses a counter
without _total)."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import urllib.request

import fixtures
from gdtest import GPUDOCTOR, REPO
from watchtest import Watch, metric, parse_metrics, series_labels

RULES = os.path.join(REPO, "dist", "prometheus", "gpudoctor-alerts.yml")
DASHBOARD = os.path.join(REPO, "dist", "grafana", "gpudoctor-watch.json")
KMSG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kmsg-xids.txt")

# NVML's cumulative counts (nvml.h: ECC totals, retired pages, remapped rows,
# PCIe replays, NVLink error counters) and sysfs's AER counts.
COUNTERS = ("gpudoctor_gpu_ecc_errors_total", "gpudoctor_gpu_remapped_rows_total",
            "gpudoctor_gpu_pcie_replays_total", "gpudoctor_gpu_pcie_aer_errors_total",
            "gpudoctor_xid_errors_total")


def raw_scrape(w):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % w.port, timeout=5) as r:
        return r.read()


def types(text):
    return dict(re.findall(r"(?m)^# TYPE (\S+) (\S+)$", text))


def root(boot="names", gpus=2):
    r = fixtures.healthy_root(gpus=gpus)
    r.write("proc/sys/kernel/random/boot_id", boot + "\n")
    return r


class Conventions(unittest.TestCase):
    def scrape_with_xids(self, state=None, env=None):
        kfile = os.path.join(tempfile.mkdtemp(prefix="gd-kmsg-"), "kmsg")
        shutil.copyfile(KMSG, kfile)
        st = {"FAKE_NVML_GPUS": 2}
        st.update(state or {})
        w = Watch(root(), kmsg_file=kfile, state=st, env=env)
        return w

    def test_counters_labels_and_promtool(self):
        with self.scrape_with_xids(state={"FAKE_NVML_ECC_VOLATILE_UNC": 2}) as w:
            w.wait_metric("gpudoctor_xid_errors_total", xid=79)
            w.wait_metric("gpudoctor_gpu_ecc_errors_total", type="uncorrected", scope="volatile")
            w.wait_metric("gpudoctor_finding", cause="ecc-errors")
            raw = raw_scrape(w)
        text = raw.decode("utf-8")
        m = parse_metrics(text)
        t = types(text)
        # every counter is named *_total; NVML's cumulative counts are counters
        for name, typ in t.items():
            if typ == "counter":
                self.assertTrue(name.endswith("_total"), name)
        for name in COUNTERS:
            self.assertEqual(t.get(name), "counter", name)
        for old in ("gpudoctor_gpu_ecc_errors", "gpudoctor_gpu_remapped_rows",
                    "gpudoctor_gpu_pcie_replays", "gpudoctor_gpu_nvlink_errors"):
            self.assertNotIn(old, t)
        self.assertEqual(metric(m, "gpudoctor_gpu_ecc_errors_total", gpu=0, type="uncorrected",
                                scope="volatile"), 2)
        # one domain per label: gpu is an index; unknown labels are left out
        for (name, ls), _ in m.items():
            d = dict(ls)
            for k, v in d.items():
                self.assertNotIn(v, ("", "-"), (name, k))
            if "gpu" in d:
                self.assertRegex(d["gpu"], r"^[0-9]+$", name)
            if "pci_bus_id" in d:
                self.assertRegex(d["pci_bus_id"], r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$", name)
        # an XID at an address NVML did not map: its address, no gpu label
        self.assertEqual(series_labels(m, "gpudoctor_xid_errors_total", xid=79, pci_bus_id="0000:1a:00.0"),
                         {"xid": "79", "pci_bus_id": "0000:1a:00.0"})
        self.assertEqual(metric(m, "gpudoctor_xid_errors_total", gpu=1, xid=48), 1)
        # a machine-wide finding (no GPU) has no gpu label; a GPU's has its index
        self.assertEqual(metric(m, "gpudoctor_finding", cause="ecc-errors", severity="fail", gpu=0), 1)
        # the overall status as one series per state
        self.assertEqual({dict(ls)["status"]: v for (n, ls), v in m.items() if n == "gpudoctor_status"},
                         {"ok": 0, "warn": 0, "fail": 1})
        promtool = shutil.which("promtool")
        if not promtool:
            self.skipTest("promtool is not installed (Debian package prometheus)")
        p = subprocess.run([promtool, "check", "metrics"], input=raw, capture_output=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # near miss: the linter does refuse a counter without _total, so the
        # check above can fail for the thing it names
        bad = raw.replace(b"gpudoctor_gpu_pcie_replays_total", b"gpudoctor_gpu_pcie_replays")
        p = subprocess.run([promtool, "check", "metrics"], input=bad, capture_output=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(b"_total", p.stdout + p.stderr)

    def test_rules_and_dashboard_name_served_families(self):
        """Every gpudoctor_* name in the shipped alert rules and dashboard is
        a family that a real scrape declares (a rename left behind fails)."""
        with self.scrape_with_xids() as w:
            w.wait_metric("gpudoctor_xid_unacknowledged")
            text = raw_scrape(w).decode("utf-8")
        served = set(types(text))
        for f in (RULES, DASHBOARD):
            with open(f) as fh:
                used = set(re.findall(r"\bgpudoctor_[a-z_]+", fh.read())) - {"gpudoctor_"}
            self.assertTrue(used, f)
            self.assertEqual(sorted(used - served), [], f)

    def test_build_and_driver_info(self):
        v = subprocess.run([GPUDOCTOR, "--version"], capture_output=True, text=True).stdout
        mv = re.match(r"gpudoctor (\S+) \(commit (\S+), knowledge as of (\S+)\)", v)
        self.assertIsNotNone(mv, v)
        # a driver version with a quote, a backslash and a newline stays one label value
        with Watch(root(gpus=1), state={"FAKE_NVML_CUDA_VERSION": 12080},
                   env={"FAKE_NVML_DRIVER_VERSION": '570.1"\\\n'}) as w:
            w.wait_metric("gpudoctor_driver_info")
            raw = raw_scrape(w)
        m = parse_metrics(raw.decode("utf-8"))
        self.assertEqual(series_labels(m, "gpudoctor_build_info"),
                         {"version": mv.group(1), "commit": mv.group(2), "kb_date": mv.group(3)})
        self.assertEqual(metric(m, "gpudoctor_build_info"), 1)
        d = series_labels(m, "gpudoctor_driver_info")
        self.assertEqual(d["cuda_version"], "12.8")
        self.assertTrue(d["driver_version"].startswith('570.1\\"'), d)
        self.assertEqual(metric(m, "gpudoctor_driver_info"), 1)
        promtool = shutil.which("promtool")
        if promtool:
            p = subprocess.run([promtool, "check", "metrics"], input=raw, capture_output=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_no_driver_info_without_nvml(self):
        """Near miss: NVML that does not answer gives no driver_info series
        (never an empty version), while build_info stays."""
        with Watch(root(gpus=1), state={"FAKE_NVML_MODE": "init-error:9"}) as w:
            w.wait_metric("gpudoctor_build_info")
            m = w.wait(lambda: (lambda m: m if any(n == "gpudoctor_finding" for n, _ in m) else None)(w.metrics()),
                       what="a finding for NVML")
        self.assertIsNone(metric(m, "gpudoctor_driver_info"))
        # the machine's findings have no gpu label rather than "-"
        for (n, ls), _ in m.items():
            if n == "gpudoctor_finding":
                self.assertNotIn(dict(ls).get("gpu"), ("", "-"), dict(ls))

    def test_fabric_state_series(self):
        names = {"not_started", "in_progress", "completed"}
        with Watch(root(gpus=1), state={"FAKE_NVML_FABRIC": "2:0"}) as w:
            w.wait_metric("gpudoctor_gpu_fabric_state", state="in_progress")
            m = w.metrics()
            got = {dict(ls)["state"]: v for (n, ls), v in m.items() if n == "gpudoctor_gpu_fabric_state"}
            self.assertEqual(got, {"not_started": 0, "in_progress": 1, "completed": 0})
            w.set_state(FAKE_NVML_FABRIC="3:0")
            w.wait(lambda: metric(w.metrics(), "gpudoctor_gpu_fabric_state", state="completed") == 1,
                   what="fabric completed")
            self.assertEqual({dict(ls)["state"] for (n, ls), _ in w.metrics().items()
                              if n == "gpudoctor_gpu_fabric_state"}, names)
            # 0 is not supported in nvml.h, 7 is not defined: no series, never a bare number
            for undefined in ("0:0", "7:0"):
                w.set_state(FAKE_NVML_FABRIC=undefined)
                w.wait(lambda: metric(w.metrics(), "gpudoctor_gpu_fabric_state") is None,
                       what="no fabric series for state %s" % undefined)


if __name__ == "__main__":
    unittest.main()
