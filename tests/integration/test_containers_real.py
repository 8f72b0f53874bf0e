"""gpudoctor inside a real container: a Debian root built with debootstrap,
run with podman (Debian's packages), asserting what the containers layer
finds from inside.

The root is built once and cached as
/var/cache/gpudoctor-test/debootstrap-<suite>-<variant>.tar (the convention
shared with the fleet tests; created atomically: built in a temporary
directory, then renamed into place), from the mirror apt uses here
(/etc/apt/sources.list*), and imported into podman's storage as
localhost/gpudoctor-test:<suite>-<variant>.  The gpudoctor binary is
bind-mounted read-only into the container.

podman runs with --network none, the cgroupfs manager and lowered
nofile/nproc limits, so that it also works inside a CI container without
systemd; with crun refusing (cgroup v1 hybrid hosts) runc is used.  A test
that cannot run (no podman, no debootstrap and no cache, a machine where
podman cannot start containers) skips and says why.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GPUDOCTOR = os.environ.get("GPUDOCTOR", os.path.join(REPO, "build", "gpudoctor"))
CACHE = os.environ.get("GD_TEST_CACHE", "/var/cache/gpudoctor-test")
SUITE, VARIANT = "bookworm", "minbase"
IMAGE = f"localhost/gpudoctor-test:{SUITE}-{VARIANT}"
MIB = 1024 * 1024


def apt_mirror():
    """The Debian mirror apt uses here (deb822 .sources or one-line .list)."""
    files = sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + \
        ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for f in files:
        try:
            text = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if f.endswith(".sources"):
            for block in text.split("\n\n"):
                uris = re.search(r"^URIs:\s*(\S+)", block, re.M)
                suites = re.search(r"^Suites:\s*(.+)$", block, re.M)
                if uris and suites and SUITE in suites.group(1).split() and "security" not in uris.group(1):
                    return uris.group(1)
        else:
            for line in text.splitlines():
                m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", line)
                if m and m.group(2) == SUITE:
                    return m.group(1)
    return "http://deb.debian.org/debian"


def cached_root_tar():
    """The cached debootstrap tarball, built (atomically) when absent."""
    tar = os.path.join(CACHE, f"debootstrap-{SUITE}-{VARIANT}.tar")
    if os.path.exists(tar):
        return tar
    if not shutil.which("debootstrap"):
        raise unittest.SkipTest("debootstrap is not installed and there is no cached root " + tar)
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gd-debootstrap-", dir=CACHE)
    try:
        root = os.path.join(work, "root")
        p = subprocess.run(["debootstrap", f"--variant={VARIANT}", SUITE, root, apt_mirror()],
                           capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise unittest.SkipTest("debootstrap failed (no network or mirror?): " + p.stderr[-400:])
        tmp = os.path.join(work, "root.tar")
        subprocess.run(["tar", "-C", root, "-cf", tmp, "."], check=True, timeout=600)
        try:
            os.link(tmp, tar)	# atomic, and never over a tar another test made meanwhile
        except FileExistsError:
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tar


class Podman:
    base = ["podman", "--cgroup-manager=cgroupfs", "--events-backend=file"]
    common = ["--rm", "--network", "none", "--ulimit", "nofile=1024:1024",
              "--ulimit", "nproc=1024:1024"]

    def __init__(self):
        self.runtime = []

    def cmd(self, *args):
        return self.base + self.runtime + list(args)

    def run(self, flags, argv, timeout=120):
        return subprocess.run(self.cmd("run", *self.common, *flags, IMAGE, *argv),
                              capture_output=True, text=True, timeout=timeout)

    def setup(self):
        if not shutil.which("podman"):
            raise unittest.SkipTest("podman is not installed (apt-get install podman)")
        tar = cached_root_tar()
        if subprocess.run(self.cmd("image", "exists", IMAGE)).returncode != 0:
            p = subprocess.run(self.cmd("import", tar, IMAGE), capture_output=True, text=True,
                               timeout=600)
            if p.returncode != 0:
                raise unittest.SkipTest("podman cannot import an image here: " + p.stderr[-300:])
        errors = []
        for runtime in ([], ["--runtime", "runc"] if shutil.which("runc") else None):
            if runtime is None:
                continue
            self.runtime = runtime
            p = self.run([], ["true"])
            if p.returncode == 0:
                return
            errors.append(f"{runtime or 'default runtime'}: {p.stderr.strip()[-200:]}")
        raise unittest.SkipTest("this machine cannot run containers with podman: " + "; ".join(errors))


class TestRealContainer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GPUDOCTOR):
            raise unittest.SkipTest(f"{GPUDOCTOR} not built")
        if "asan" in os.path.basename(os.path.dirname(os.path.abspath(GPUDOCTOR))):
            raise unittest.SkipTest("an ASan build needs its runtime, which the Debian root lacks")
        cls.podman = Podman()
        cls.podman.setup()

    def check_inside(self, *flags, ok_rc=(0, 1)):
        p = self.podman.run(list(flags) + ["-v", f"{os.path.abspath(GPUDOCTOR)}:/usr/local/bin/gpudoctor:ro"],
                            ["/usr/local/bin/gpudoctor", "--json", "check"])
        if p.returncode not in ok_rc:
            raise AssertionError(f"podman run failed ({p.returncode}): {p.stderr}\n{p.stdout[-2000:]}")
        doc = json.loads(p.stdout)
        doc["_stderr"] = p.stderr
        return doc

    def finding(self, doc, cause):
        for f in doc["findings"]:
            if f.get("cause") == cause:
                return f
        return None

    def test_shm_64m_and_memlock_8m(self):
        doc = self.check_inside("--shm-size", "64m", "--ulimit", "memlock=8388608:8388608")
        c = doc["inventory"]["containers"]
        self.assertTrue(c["in_container"])
        self.assertEqual(c["engine"], "podman")
        self.assertIn("/run/.containerenv exists", c["markers"])
        self.assertEqual(c["shm_bytes"], 64 * MIB)
        self.assertEqual(c["shm_source"], "statvfs /dev/shm")
        self.assertEqual(c["memlock_soft"], 8 * MIB)
        shm = self.finding(doc, "shm-too-small")
        self.assertIsNotNone(shm, json.dumps(doc["findings"], indent=1))
        self.assertEqual(shm["title"], "/dev/shm is 64 MiB: too small for DataLoader workers and NCCL")
        self.assertIn("podman run --shm-size=1g (or --ipc=host)", shm["fix"])
        ml = self.finding(doc, "memlock-limited")
        self.assertIsNotNone(ml)
        self.assertEqual(ml["title"], "RLIMIT_MEMLOCK is 8 MiB, not unlimited")
        self.assertIn("podman run --ulimit memlock=-1", ml["fix"])
        # started without a GPU: nothing injected, nothing asked for
        self.assertIsNotNone(self.finding(doc, "container-gpu-not-requested"))

    def test_shm_2g(self):
        doc = self.check_inside("--shm-size", "2g", "--ulimit", "memlock=4194304:4194304")
        c = doc["inventory"]["containers"]
        self.assertEqual(c["shm_bytes"], 2048 * MIB)
        self.assertIsNone(self.finding(doc, "shm-too-small"))
        self.assertEqual(c["memlock_soft"], 4 * MIB)
        self.assertEqual(self.finding(doc, "memlock-limited")["title"], "RLIMIT_MEMLOCK is 4 MiB, not unlimited")

    def test_memlock_unlimited(self):
        p = self.podman.run(["--ulimit", "memlock=-1:-1"], ["true"])
        if p.returncode != 0:
            raise unittest.SkipTest("this machine does not let podman raise RLIMIT_MEMLOCK: "
                                    + p.stderr.strip()[-200:])
        doc = self.check_inside("--shm-size", "2g", "--ulimit", "memlock=-1:-1")
        self.assertEqual(doc["inventory"]["containers"]["memlock_soft"], "unlimited")
        self.assertIsNone(self.finding(doc, "memlock-limited"))

    def test_nodes_refused_by_device_cgroup(self):
        # NVIDIA nodes the device cgroup does not list: what a host's
        # systemctl daemon-reload leaves in a running GPU container
        p = self.podman.run(["--cap-add", "MKNOD", "-v",
                             f"{os.path.abspath(GPUDOCTOR)}:/usr/local/bin/gpudoctor:ro"],
                            ["sh", "-c", "test -r /sys/fs/cgroup/devices/devices.list || exit 77; "
                             "mknod -m 666 /dev/nvidiactl c 195 255 && mknod -m 666 /dev/nvidia0 c 195 0 "
                             "&& /usr/local/bin/gpudoctor __probe devopen /dev/nvidia0 "
                             "&& /usr/local/bin/gpudoctor --json check --no-load"])
        if p.returncode == 77:
            raise unittest.SkipTest("no cgroup v1 devices.list in the container (cgroup v2): the "
                                    "device rules are an eBPF program only the live probe can test")
        out = p.stdout
        self.assertIn("/dev/nvidia0=1\n", out)	# EPERM from the device cgroup
        doc = json.loads(out[out.index("end\n") + 4:])
        f = self.finding(doc, "container-device-revoked")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertIn("has no entry allowing c 195:*", " ".join(f["evidence"]))
        self.assertIsNone(self.finding(doc, "container-gpu-not-requested"))

    def test_cuda_image_without_nvidia_runtime(self):
        # what a CUDA image's own environment asks for, without any NVIDIA runtime
        doc = self.check_inside("--shm-size", "1g", "-e", "NVIDIA_VISIBLE_DEVICES=all",
                                "-e", "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
                                "-e", "CUDA_VERSION=12.8.1", "-e", "NVIDIA_REQUIRE_CUDA=cuda>=12.8")
        f = self.finding(doc, "container-runtime-missing")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertIn("podman run --device nvidia.com/gpu=all", f["fix"])
        te = doc["inventory"]["containers"]["toolkit_env"]
        self.assertEqual(te["devices"], "all")
        self.assertFalse(te["legacy_image"])


if __name__ == "__main__":
    unittest.main()
