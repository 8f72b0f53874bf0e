"""Helpers for the `gpudoctor watch` tests: start a daemon on a fixture root,
talk to it over HTTP, listen as systemd's notify socket.

    r = fixtures.healthy_root()
    with Watch(r, state={"FAKE_NVML_MODE": "healthy"}) as w:
        w.wait_metric("gpudoctor_up")
        w.set_state(FAKE_NVML_ECC_VOLATILE_UNC=3)      # the fake NVML reads it at each call
        w.wait(lambda: "ecc-errors" in w.get("/healthz")[1])
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

from gdtest import GPUDOCTOR, clean_env, watch_legacy
import causerec  # what watch serves, logs and saves counts as its output (catalogue_triggered.py)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def parse_metrics(text):
    """{(name, frozenset(labels.items())): value} of an exposition text."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not m:
            raise AssertionError("not an exposition line: %r" % line)
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), frozenset(labels.items()))] = float(m.group(4))
    return out


def metric(metrics, name, **labels):
    """The value of the series of name whose labels include labels, or None."""
    for (n, ls), v in metrics.items():
        if n == name and all((k, str(x)) in ls for k, x in labels.items()):
            return v
    return None


def series_labels(metrics, name, **labels):
    """The labels (a dict) of the series of name whose labels include labels,
    or None: to assert that a label is left out."""
    for (n, ls), _ in metrics.items():
        if n == name and all((k, str(x)) in ls for k, x in labels.items()):
            return dict(ls)
    return None


class Notify:
    """A datagram socket standing in for systemd's NOTIFY_SOCKET (abstract when asked)."""

    def __init__(self, abstract=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            self.name = "@gd-notify-%d-%d" % (os.getpid(), free_port())
            self.sock.bind("\0" + self.name[1:])
        else:
            self.dir = tempfile.mkdtemp(prefix="gd-notify-")
            self.name = os.path.join(self.dir, "notify")
            self.sock.bind(self.name)
        self.sock.settimeout(0.2)
        self.msgs = []		# (monotonic time, text)

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                data = self.sock.recv(4096)
                self.msgs.append((time.monotonic(), data.decode()))
            except socket.timeout:
                pass
        return self.msgs

    def close(self):
        self.sock.close()


class Watch:
    def __init__(self, root, args=(), state=None, env=None, interval="1s", timeout="2",
                 state_dir=None, notify=None, kmsg_file=None, listen=True):
        self.root = root
        self.port = free_port() if listen else None
        self.state_file = os.path.join(root.path, "fake-nvml-state")
        self.set_state(**(state or {}))
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="gd-watch-state-")
        e = clean_env(FAKE_NVML_STATE_FILE=self.state_file)
        e.update(env or {})
        if notify is not None:
            e["NOTIFY_SOCKET"] = notify.name
        # the fixtures' libraries are our own fakes: load them (a --root other
        # than / implies --no-load otherwise)
        self.cmd = [GPUDOCTOR, "--root", root.path, "--load-from-root", "--timeout", timeout,
                    "watch",
                    "--interval", interval, "--state-dir", self.state_dir,
                    "--listen", "127.0.0.1:%d" % self.port if listen else "none"]
        if kmsg_file:
            self.cmd += ["--kmsg-file", kmsg_file]
        else:
            empty = os.path.join(self.state_dir, "empty-kmsg")
            open(empty, "w").close()
            self.cmd += ["--kmsg-file", empty]
        self.cmd += list(args)
        self.env = e
        self.proc = None
        self.stderr_path = os.path.join(self.state_dir, "stderr.log")

    def __enter__(self):
        self.errf = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=self.errf)
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.errf.close()
        return self.proc.returncode if self.proc else None

    def stderr(self):
        with open(self.stderr_path) as f:
            text = f.read()
        causerec.record_output(["watch"], text)
        return text

    def set_state(self, **kv):
        with open(self.state_file + ".tmp", "w") as f:
            for k, v in kv.items():
                f.write("%s=%s\n" % (k, v))
        os.replace(self.state_file + ".tmp", self.state_file)

    def get(self, path, timeout=5, method="GET"):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), method=method)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                st, body = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            st, body = e.code, e.read().decode()
        causerec.record_output(["watch", path], body)
        return st, body

    def metrics(self):
        st, body = self.get("/metrics")
        assert st == 200, (st, body)
        return parse_metrics(body)

    def wait(self, cond, timeout=20, what="condition"):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            if self.proc and self.proc.poll() is not None:
                raise AssertionError("watch exited %s: %s" % (self.proc.returncode, self.stderr()))
            try:
                last = cond()
                if last:
                    return last
            except (OSError, AssertionError) as ex:
                last = ex
            time.sleep(0.1)
        raise AssertionError("timed out waiting for %s (last: %r); stderr:\n%s"
                             % (what, last, self.stderr()))

    def wait_metric(self, name, timeout=20, **labels):
        return self.wait(lambda: metric(self.metrics(), name, **labels), timeout,
                         "%s%r" % (name, labels))

    def state(self):
        path = os.path.join(self.state_dir, "state")
        with open(path) as f:
            text = f.read()
        causerec.record_output(["watch"], text)
        lines = text.splitlines()
        d = {"active": []}
        for l in lines:
            k, _, v = l.partition("=")
            if k == "active":
                d["active"].append(watch_legacy(v))
                d.setdefault("records", []).append(v)
            else:
                d[k] = v
        return d
