"""Kubernetes for real: watch in a container with the host at /host.

- `--sample-nvml LIB`: watch samples NVML from LIB, a library of its own root
  (where the NVIDIA container toolkit injects libnvidia-ml.so.1), even with
  --root (which implies --no-load), and never loads the --root tree's NVML:
  here the tree's library crashes on load, so a sample proves which one
  answered; /metrics and the report name the library.  The near miss: the
  same command without the option samples nothing.
- node-problem-detector's path: NVML facts reach `gpudoctor --root /host
  --no-load health` through watch's state file in the host's
  /var/lib/gpudoctor (the hostPath both manifests mount).
- the DaemonSet's pod under podman (`podman kube play`), when podman can run
  containers here: see TestPodman.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
K8S = os.path.join(REPO, "dist", "kubernetes")
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import fixtures  # noqa: E402
import fixtures_driver as fd  # noqa: E402
from gdtest import GPUDOCTOR, clean_env  # noqa: E402
from watchtest import metric, parse_metrics, series_labels  # noqa: E402

LIBDIR = "usr/lib/x86_64-linux-gnu"


def host_and_own(remap_pending=False):
    """(host fixture root whose NVML crashes on load, path of a healthy NVML in
    a separate 'own root' standing for the container's)."""
    host = fixtures.healthy_root()
    fd.add_lib(host, "libnvidia-ml.so", "libnvidia-ml.so.1", "nvml", "580.95.05",
               cflags=('-DFAKE_DEFAULT_MODE="crash-on-load"',))
    own = tempfile.mkdtemp(prefix="gd-own-root-")
    lib = os.path.join(own, LIBDIR, "libnvidia-ml.so.1")
    os.makedirs(os.path.dirname(lib))
    shutil.copyfile(fd.build_fake("nvml", "libnvidia-ml.so.1"), lib)
    return host, lib


def watch_once(host, args, env=None, textfile=True):
    """watch --once on host with args; (rc, report, stderr, metrics or None, state_dir)."""
    state = host.p("var/lib/gpudoctor")
    os.makedirs(state, exist_ok=True)
    os.chmod(state, 0o755)
    prom = tempfile.mkdtemp(prefix="gd-textfile-")
    kmsg = os.path.join(prom, "kmsg")
    open(kmsg, "w").close()
    cmd = [GPUDOCTOR, "--root", host.path, "--timeout", "5", "watch", "--once",
           "--state-dir", state, "--kmsg-file", kmsg, "--textfile", prom] + list(args)
    p = subprocess.run(cmd, env=clean_env(**(env or {})), capture_output=True, text=True,
                       timeout=60)
    m = None
    path = os.path.join(prom, "gpudoctor.prom")
    if os.path.exists(path):
        with open(path) as f:
            m = parse_metrics(f.read())
    return p.returncode, p.stdout, p.stderr, m, state


class TestSampleNvml(unittest.TestCase):
    def test_own_root_nvml_sampled_tree_never_loaded(self):
        host, lib = host_and_own()
        rc, out, err, m, _ = watch_once(host, ["--sample-nvml", lib])
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(metric(m, "gpudoctor_gpus", source="nvml"), 1, out + err)
        self.assertEqual(metric(m, "gpudoctor_nvml_library_info", path=lib, root="own"), 1)
        self.assertEqual(series_labels(m, "gpudoctor_driver_info")["driver_version"], "580.95.05")
        self.assertIsNotNone(metric(m, "gpudoctor_gpu_temperature_celsius", gpu=0), sorted(
            n for n, _ in m))
        self.assertNotIn("nvml-failed", out)	# the tree's library would have crashed
        self.assertIn("NVML: %s (--sample-nvml" % lib, out)
        self.assertIn("NVML sampled from %s" % lib, err)

    def test_near_miss_without_the_option_nothing_is_sampled(self):
        host, _ = host_and_own()
        rc, out, err, m, _ = watch_once(host, [])
        self.assertEqual(rc, 0, out + err)
        self.assertIsNone(metric(m, "gpudoctor_gpus", source="nvml"))
        self.assertIsNone(series_labels(m, "gpudoctor_nvml_library_info"))
        self.assertIn("NVML has not answered", out)

    def test_control_the_tree_library_crashes_when_loaded(self):
        # the control for the test above: the tree's libnvidia-ml.so.1, loaded
        # on purpose, crashes, so a clean sample there proves it was not loaded
        host, _ = host_and_own()
        tree_lib = host.p(LIBDIR + "/libnvidia-ml.so.1")
        rc, out, err, m, _ = watch_once(host, ["--sample-nvml", tree_lib])
        self.assertIn("nvml-failed", out, out + err)

    def test_option_refusals(self):
        host, _ = host_and_own()
        for args, want in ((["watch", "--sample-nvml", "libnvidia-ml.so.1"], "absolute path"),
                           ):
            p = subprocess.run([GPUDOCTOR, "--root", host.path] + args, env=clean_env(),
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(want, p.stderr)
        p = subprocess.run([GPUDOCTOR, "--no-load", "watch", "--once", "--sample-nvml", "/x.so"],
                           env=clean_env(), capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--no-load", p.stderr)


class TestNPDGetsNvmlFacts(unittest.TestCase):
    """NPD's rule runs `gpudoctor --root /host --no-load health`; the NVML
    facts come from watch's state file in the host's /var/lib/gpudoctor."""

    def npd_health(self, host):
        args = None
        with open(os.path.join(K8S, "gpudoctor-plugin.json")) as f:
            import json
            for rule in json.load(f)["rules"]:
                if rule["reason"] == "GPUStackUnhealthy":
                    args = rule["args"]
        self.assertIsNotNone(args)
        args = [host.path if a == "/host" else a for a in args]
        return subprocess.run([GPUDOCTOR] + args, env=clean_env(), capture_output=True,
                              text=True, timeout=60)

    def test_uncorrectable_ecc_reaches_health(self):
        host, lib = host_and_own()
        rc, out, err, _, state = watch_once(host, ["--sample-nvml", lib],
                                            env={"FAKE_NVML_ECC_VOLATILE_UNC": "3"})
        with open(os.path.join(state, "state")) as f:
            st = f.read()
        self.assertRegex(st, r"(?m)^active=cause=ecc-errors", out + err + st)
        p = self.npd_health(host)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)	# NPD: 1 is a problem
        self.assertRegex(p.stdout, r"ecc-errors .*uncorrectable")

    def test_near_miss_healthy_nvml_health_ok(self):
        host, lib = host_and_own()
        rc, out, err, _, state = watch_once(host, ["--sample-nvml", lib])
        self.assertEqual(rc, 0, out + err)
        p = self.npd_health(host)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertNotIn("ecc-errors", p.stdout)


IMAGE = "localhost/gpudoctor-k8s-test:1"
PODMAN = ["podman", "--cgroup-manager=cgroupfs", "--events-backend=file"]


# This VM (and CI containers) refuse podman's default RLIMIT_NOFILE for new
# containers: lowered limits for every container of the pod, infra included.
CONF = tempfile.mkdtemp(prefix="gd-containers-conf-")
with open(os.path.join(CONF, "containers.conf"), "w") as _f:
    _f.write('[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n')


def podman(*args, timeout=120):
    env = dict(os.environ, CONTAINERS_CONF=os.path.join(CONF, "containers.conf"))
    return subprocess.run(PODMAN + list(args), capture_output=True, text=True, timeout=timeout,
                          env=env)


def image_rootfs(dest):
    """A minimal root: the gpudoctor binary and the libraries ldd names for it
    (no registry is reachable here, so no base image)."""
    os.makedirs(os.path.join(dest, "usr/bin"))
    for d in ("var/lib/gpudoctor", "tmp", "host", "dev", "proc", "sys", LIBDIR):
        os.makedirs(os.path.join(dest, d), exist_ok=True)
    shutil.copy(GPUDOCTOR, os.path.join(dest, "usr/bin/gpudoctor"))
    p = subprocess.run(["ldd", GPUDOCTOR], capture_output=True, text=True)
    for lib in re.findall(r"(/\S+)", p.stdout):
        out = os.path.join(dest, lib.lstrip("/"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.realpath(lib), out)
        os.chmod(out, 0o755)


def pod_from_daemonset(host, own_lib, kmsg, state, port):
    """The DaemonSet's pod template as a Pod: the host paths it mounts become
    fixture directories, the NVML library is bind-mounted where the toolkit
    puts it, the metrics port is published on 127.0.0.1 only.  Scheduling
    fields (nodeSelector, tolerations, priority, service account) have no
    meaning on one podman host and are left out."""
    import yaml
    with open(os.path.join(K8S, "gpudoctor-watch.yaml")) as f:
        ds = [d for d in yaml.safe_load_all(f) if d and d["kind"] == "DaemonSet"][0]
    spec = ds["spec"]["template"]["spec"]
    for k in ("nodeSelector", "tolerations", "priorityClassName", "serviceAccountName"):
        spec.pop(k, None)
    c = spec["containers"][0]
    c["image"] = IMAGE
    c["imagePullPolicy"] = "Never"
    for p in c["ports"]:
        if p["name"] == "metrics":
            p["hostPort"] = port
            p["hostIP"] = "127.0.0.1"
    where = {"/": host.path, "/sys": host.p("sys"), "/proc": host.p("proc"),
             "/dev/kmsg": kmsg, "/var/lib/gpudoctor": state}
    for v in spec["volumes"]:
        hp = v.get("hostPath")
        if hp:
            hp["path"] = where[hp["path"]]
            if hp.get("type") == "CharDevice":
                hp["type"] = "File"	# a kernel log file stands in for /dev/kmsg
    spec["volumes"].append({"name": "nvml", "hostPath": {"path": own_lib, "type": "File"}})
    c["volumeMounts"].append({"name": "nvml", "mountPath": "/" + LIBDIR + "/libnvidia-ml.so.1",
                              "readOnly": True})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "gpudoctor-watch-test", "labels":
                         ds["spec"]["template"]["metadata"]["labels"]},
            "spec": spec}


class TestPodman(unittest.TestCase):
    """`podman kube play` of the DaemonSet's pod with fixture host paths and a
    fake NVML injected as the toolkit would; /metrics scraped from outside."""

    def setUp(self):
        if not shutil.which("podman"):
            self.skipTest("podman is not installed")
        try:
            import yaml  # noqa: F401
        except ImportError:
            self.skipTest("python3-yaml is not installed")
        if os.geteuid() != 0:
            self.skipTest("needs root podman (hostPath mounts of fixture files, port on 127.0.0.1)")
        self.tmp = tempfile.mkdtemp(prefix="gd-k8s-podman-")
        root = os.path.join(self.tmp, "rootfs")
        image_rootfs(root)
        tar = os.path.join(self.tmp, "img.tar")
        subprocess.run(["tar", "-C", root, "-cf", tar, "."], check=True)
        # the Containerfile's entrypoint: the manifests give only args
        p = podman("import", "--change", 'ENTRYPOINT ["/usr/bin/gpudoctor"]', tar, IMAGE)
        if p.returncode != 0:
            self.skipTest("podman cannot import an image here: " + p.stderr[-300:])
        self.kube = None
        p = podman("run", "--rm", "--network", "none", IMAGE, "--version")
        if p.returncode != 0:
            self.skipTest("podman cannot run containers here: " + p.stderr[-300:])

    def tearDown(self):
        if getattr(self, "kube", None):
            podman("kube", "down", self.kube)

    def test_daemonset_pod_serves_nvml_series(self):
        import json
        import time
        import urllib.request
        from watchtest import free_port
        host, lib = host_and_own()
        state = host.p("var/lib/gpudoctor")
        os.makedirs(state, exist_ok=True)
        kmsg = os.path.join(self.tmp, "kmsg")
        shutil.copyfile(os.path.join(REPO, "tests", "e2e", "data", "kmsg-xids.txt"), kmsg)
        port = free_port()
        self.kube = os.path.join(self.tmp, "pod.yaml")
        with open(self.kube, "w") as f:
            json.dump(pod_from_daemonset(host, lib, kmsg, state, port), f)	# JSON is YAML
        p = podman("kube", "play", "--network", "bridge", self.kube, timeout=180)
        # a plain container runs here (setUp): the pod must too
        self.assertEqual(p.returncode, 0, "podman kube play: " + (p.stderr or p.stdout)[-1500:])
        body, err, end = None, None, time.monotonic() + 60
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
                    body = r.read().decode()
                if "gpudoctor_gpus{source=\"nvml\"}" in body:
                    break
            except OSError as ex:
                err = ex
            time.sleep(0.5)
        logs = podman("logs", "gpudoctor-watch-test-watch").stderr
        self.assertIsNotNone(body, "no /metrics answer: %r; logs:\n%s" % (err, logs))
        m = parse_metrics(body)
        self.assertEqual(metric(m, "gpudoctor_gpus", source="nvml"), 1, body[-3000:] + logs)
        self.assertEqual(metric(m, "gpudoctor_nvml_library_info",
                                path="/" + LIBDIR + "/libnvidia-ml.so.1", root="own"), 1)
        self.assertEqual(series_labels(m, "gpudoctor_driver_info")["driver_version"], "580.95.05")
        self.assertIsNotNone(metric(m, "gpudoctor_gpu_temperature_celsius", gpu=0))
        self.assertGreater(metric(m, "gpudoctor_kmsg_records_total") or 0, 0, logs)
        self.assertIsNone(metric(m, "gpudoctor_finding", cause="nvml-failed"))


if __name__ == "__main__":
    unittest.main()
