"""gpudoctor watch with the real Prometheus server and node_exporter (Debian's
packages prometheus and prometheus-node-exporter), on 127.0.0.1 only:
Prometheus scrapes a watch on a fixture machine whose fake NVML goes through
four states (healthy, ECC errors, a hanging call, a GPU that disappears)
while 100 idle clients and garbage requests hold connections, and the
values are read back through Prometheus's HTTP API; the shipped alert rules
load in the server; node_exporter serves the --textfile output."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

import fixtures
from gdtest import REPO
from watchtest import Watch, free_port

PROMETHEUS = shutil.which("prometheus")
NODE_EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
RULES = os.path.join(REPO, "dist", "prometheus", "gpudoctor-alerts.yml")
DASHBOARD = os.path.join(REPO, "dist", "grafana", "gpudoctor-watch.json")


def http_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read().decode())


class Server:
    def __init__(self, argv, log):
        self.log = open(log, "w")
        self.p = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()


@unittest.skipUnless(PROMETHEUS, "prometheus is not installed (Debian package prometheus)")
class WatchWithPrometheus(unittest.TestCase):
    def query(self, q):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.pport, urllib.parse.urlencode({"query": q}))
        doc = http_json(url)
        self.assertEqual(doc["status"], "success", doc)
        return {json.dumps(x["metric"], sort_keys=True): float(x["value"][1])
                for x in doc["data"]["result"]}

    def wait_query(self, q, pred, timeout=30):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                last = self.query(q)
                if last and pred(list(last.values())):
                    return last
            except OSError as e:
                last = e
            time.sleep(0.5)
        self.fail("Prometheus: %s never matched (last %r); watch stderr:\n%s" % (q, last, self.w.stderr()))

    def test_four_states_through_prometheus(self):
        r = fixtures.healthy_root()
        r.write("proc/sys/kernel/random/boot_id", "prom\n")
        d = tempfile.mkdtemp(prefix="gd-prom-")
        self.pport = free_port()
        with Watch(r) as w:
            self.w = w
            w.wait_metric("gpudoctor_gpu_temperature_celsius")
            shutil.copy(RULES, os.path.join(d, "rules.yml"))
            with open(os.path.join(d, "prometheus.yml"), "w") as f:
                f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                        "rule_files: [rules.yml]\n"
                        "scrape_configs:\n  - job_name: gpudoctor-watch\n    scrape_timeout: 900ms\n"
                        "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % w.port)
            prom = Server([PROMETHEUS, "--config.file=" + os.path.join(d, "prometheus.yml"),
                           "--storage.tsdb.path=" + os.path.join(d, "data"),
                           "--web.listen-address=127.0.0.1:%d" % self.pport],
                          os.path.join(d, "prometheus.log"))
            try:
                # healthy
                self.wait_query('gpudoctor_gpu_temperature_celsius{gpu="0",model="NVIDIA H200"}',
                                lambda v: v == [31.0])
                self.wait_query('up{job="gpudoctor-watch"}', lambda v: v == [1.0])
                rules = http_json("http://127.0.0.1:%d/api/v1/rules" % self.pport)
                names = [x["name"] for g in rules["data"]["groups"] for x in g["rules"]]
                self.assertIn("GpuXidFatal", names)
                # the shipped dashboard's queries are valid PromQL and find data
                self.wait_query('gpudoctor_gpu_power_watts', lambda v: v == [75.123])
                time.sleep(2)	# rate() needs two samples
                with open(DASHBOARD) as f:
                    dash = json.load(f)
                empty = []
                for panel in dash["panels"]:
                    for t in panel["targets"]:
                        if not self.query(t["expr"].replace("$node", ".*")):	# fails on bad PromQL
                            empty.append(panel["title"])
                # no findings, no XIDs and no hardware throttle on this healthy machine
                self.assertLessEqual(set(empty), {"Active findings", "Clock event reasons (hardware)",
                                                  "XIDs per 10 minutes"}, empty)
                # the _info series join onto others by instance, as docs/watch-state.md shows
                self.wait_query('gpudoctor_up * on(instance) group_left(driver_version, cuda_version) '
                                'gpudoctor_driver_info{driver_version="580.95.05",cuda_version="13.0"}',
                                lambda v: v == [1.0])
                self.wait_query('gpudoctor_build_info{commit!="",kb_date!=""}', lambda v: v == [1.0])
                # ECC errors
                w.set_state(FAKE_NVML_ECC_VOLATILE_UNC=5)
                self.wait_query('gpudoctor_gpu_ecc_errors_total{type="uncorrected",scope="volatile"}',
                                lambda v: v == [5.0])
                # a counter: increase() over the scrapes Prometheus took
                self.wait_query('increase(gpudoctor_gpu_ecc_errors_total{type="uncorrected",scope="volatile"}[1m])',
                                lambda v: v[0] > 0)
                self.wait_query('gpudoctor_status{status="fail"}', lambda v: v == [1.0])
                promtool = shutil.which("promtool")
                if promtool:	# the scrape Prometheus took, with findings, passes the linter
                    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % w.port, timeout=5) as resp:
                        raw = resp.read()
                    p = subprocess.run([promtool, "check", "metrics"], input=raw, capture_output=True)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                self.wait_query('gpudoctor_finding{cause="ecc-errors",severity="fail"}',
                                lambda v: v == [1.0])
                self.wait_query('gpudoctor_check_ok{layer="driver"}', lambda v: v == [0.0])
                # abuse while Prometheus scrapes
                idle = [socket.create_connection(("127.0.0.1", w.port)) for _ in range(100)]
                for c in idle[:10]:
                    c.sendall(b"GET /metrics HTTP/1.1\r\nX: ")
                for _ in range(20):
                    g = socket.create_connection(("127.0.0.1", w.port))
                    g.sendall(os.urandom(512))
                    g.close()
                # an NVML call that hangs: up stays 1, the hang and the sample age show
                w.set_state(FAKE_NVML_ECC_VOLATILE_UNC=5, FAKE_NVML_HANG_CALL="ecc")
                self.wait_query("gpudoctor_nvml_hang", lambda v: v == [1.0])
                self.wait_query('gpudoctor_sample_age_seconds{source="nvml"}', lambda v: v[0] > 2)
                self.wait_query('up{job="gpudoctor-watch"}', lambda v: v == [1.0])
                self.wait_query('max_over_time(scrape_duration_seconds{job="gpudoctor-watch"}[10s])',
                                lambda v: v[0] < 0.5)
                for c in idle:
                    c.close()
                # a GPU that disappears
                w.set_state(FAKE_NVML_GPUS=0)
                self.wait_query('gpudoctor_gpus{source="nvml"}', lambda v: v == [0.0])
                self.wait_query('gpudoctor_finding{cause="gpu-count-mismatch"}', lambda v: v == [1.0])
                self.wait_query('gpudoctor_nvml_hang', lambda v: v == [0.0])
                # every scrape in the run succeeded
                self.wait_query('min_over_time(up{job="gpudoctor-watch"}[1m])', lambda v: v == [1.0])
            finally:
                prom.stop()


@unittest.skipUnless(NODE_EXPORTER, "prometheus-node-exporter is not installed")
class WatchWithNodeExporter(unittest.TestCase):
    def test_textfile_collector(self):
        r = fixtures.healthy_root()
        tdir = tempfile.mkdtemp(prefix="gd-textfile-")
        nport = free_port()
        with Watch(r, args=["--textfile", tdir], state={"FAKE_NVML_ECC_VOLATILE_UNC": 1}) as w:
            w.wait(lambda: os.path.exists(os.path.join(tdir, "gpudoctor.prom")), what="textfile")
            ne = Server([NODE_EXPORTER, "--web.listen-address=127.0.0.1:%d" % nport,
                         "--collector.disable-defaults", "--collector.textfile",
                         "--collector.textfile.directory=" + tdir],
                        os.path.join(tdir, "..", "node-exporter-%d.log" % nport))
            try:
                def scrape():
                    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % nport, timeout=5) as resp:
                        return resp.read().decode()
                want = ('gpudoctor_finding{cause="ecc-errors",gpu="0",layer="driver",'
                        'pci_bus_id="0000:18:00.0",severity="fail"} 1')
                body = w.wait(lambda: (lambda b: b if want in b else None)(scrape()),
                              what="node_exporter serving the ECC finding")
                self.assertIn("gpudoctor_up 1", body)
                self.assertRegex(body, r"(?m)^node_textfile_scrape_error 0$")
            finally:
                ne.stop()


if __name__ == "__main__":
    unittest.main()
